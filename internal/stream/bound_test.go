package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/url"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// TestHubRebuildsTheViewUnderTheBound: with a bound so small that the
// listed collisions churn at every step (a pair earlier by id pushes a
// later one out, a closing one lets the next in) and totals change with no
// listed change, every subscriber's snapshot plus diffs still rebuild
// exactly its view of the contract, collisions_total included: owner-wide,
// one brain, one presence, collisions only.
func TestHubRebuildsTheViewUnderTheBound(t *testing.T) {
	const bound = 4
	th := newTestHallWith(t, stream.Config{}, presence.Config{TTL: time.Hour, MaxCollisions: bound})
	brains := []string{"/srv/bound-a", "/srv/bound-b"}
	agents := make([]string, 16)
	for i := range agents {
		agents[i] = fmt.Sprintf("agent-%02d", i)
	}
	mine := presence.ID(agents[3], brains[0])
	type sub struct {
		name string
		q    url.Values
		f    *streamtest.Follower
		view stream.View
		// expect is the view the filter asks for, from a hub snapshot.
		expect               func(presence.Snapshot) contract.PresencesResponse
		unlisted, totalsOnly int
	}
	subs := []*sub{
		{name: "owner-wide", q: url.Values{}, expect: func(s presence.Snapshot) contract.PresencesResponse { return contract.FromSnapshot(s, "") }},
		{name: "one brain", q: url.Values{"brain": {brains[0]}}, expect: func(s presence.Snapshot) contract.PresencesResponse {
			return contract.FromSnapshot(s.ForBrain(brains[0]), brains[0])
		}},
		{name: "one presence", q: url.Values{"presence_id": {mine}}, expect: func(s presence.Snapshot) contract.PresencesResponse {
			r := contract.PresencesResponse{Presences: []contract.Presence{}, Collisions: contract.Collisions(s.CollisionsFor(mine)), Overlaps: []contract.Overlap{}}
			if p, ok := s.Find(mine); ok {
				r.Presences = append(r.Presences, contract.FromRecord(p))
				r.CollisionsTotal = s.Counts.Of(brains[0], mine)
			}
			return r
		}},
		{name: "collisions only", q: url.Values{"brain": {brains[1]}, "collisions_only": {"1"}}, expect: func(s presence.Snapshot) contract.PresencesResponse {
			r := contract.FromSnapshot(s.ForBrain(brains[1]), brains[1])
			r.Presences = []contract.Presence{}
			return r
		}},
	}
	for _, s := range subs {
		s.f = streamtest.Follow(t, th.srv.URL+"?"+s.q.Encode(), "")
	}
	// apply folds one event into a subscriber's view, counting what the
	// bound alone did.
	apply := func(s *sub, ev stream.Event) {
		ch := s.view.Apply(ev)
		s.unlisted += len(ch.Unlisted)
		if ev.Diff != nil && ev.Diff.CollisionsTotal != nil && ch.Empty() {
			s.totalsOnly++
		}
	}
	same := func(a, b contract.PresencesResponse) bool {
		a.ServedAtMs, b.ServedAtMs, a.Cursor, b.Cursor = 0, 0, "", ""
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		return string(x) == string(y)
	}
	// check waits until each view is the filter's view of the hub's
	// roster now: the owner-wide view at the very cursor.
	check := func(step int) {
		snap, cursor, err := th.hub.SnapshotCursor(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range subs {
			want := s.expect(snap)
			deadline := time.After(wait)
			for !(same(s.view.Response(), want) && (s.name != "owner-wide" || s.view.Cursor == cursor)) {
				ev, ok := s.f.NextBefore(deadline)
				if !ok {
					got, _ := json.Marshal(s.view.Response())
					exp, _ := json.Marshal(want)
					t.Fatalf("step %d, %s: the rebuilt view never matched\ngot  %s\nwant %s", step, s.name, got, exp)
				}
				apply(s, ev)
			}
		}
	}

	rng := rand.New(rand.NewSource(42))
	worktrees := []string{"wt1", "wt2", "wt3"}
	paths := []string{"src", "src/a.go", "docs", "go.mod"}
	cut := 0
	for step := 0; step < 300; step++ {
		a, b := agents[rng.Intn(len(agents))], brains[rng.Intn(2)]
		if a == agents[3] && rng.Intn(2) == 0 {
			b = brains[0] // the watched presence comes and goes often
		}
		if rng.Intn(6) == 0 {
			if err := th.svc.Leave(context.Background(), presence.ID(a, b)); err != nil && presence.ErrorCode(err) != presence.ENOTFOUND {
				t.Fatal(err)
			}
			if _, err := th.hub.Snapshot(context.Background()); err != nil {
				t.Fatal(err)
			}
		} else {
			wt := b + "/" + worktrees[rng.Intn(len(worktrees))]
			var ws []string
			for _, p := range paths {
				if rng.Intn(4) == 0 {
					ws = append(ws, p)
				}
			}
			if rng.Intn(5) == 0 {
				ws = append(ws, b+"/shared/config") // overlaps across worktrees
			}
			th.beat(t, presence.Beat{AgentID: a, Brain: b, Worktree: wt, CallerRoot: wt, WorkingSet: ws, Tool: "Edit"})
		}
		if snap, _ := th.hub.Snapshot(context.Background()); snap.CollisionsTotal > len(snap.Collisions) {
			cut++
		}
		if step%10 == 9 {
			check(step)
		}
	}
	check(300)
	if cut < 100 {
		t.Errorf("the bound cut the list at %d steps of 300, want at least 100", cut)
	}
	var unlisted, totalsOnly int
	for _, s := range subs {
		unlisted += s.unlisted
		totalsOnly += s.totalsOnly
	}
	if unlisted == 0 || totalsOnly == 0 {
		t.Errorf("the churn never showed the bound at work: %d unlisted, %d diffs with a new total alone", unlisted, totalsOnly)
	}
}
