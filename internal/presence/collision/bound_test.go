package collision_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/collision"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// A bound lists the first Max collisions of each brain in order and counts
// them all; a focus lists and counts one presence's; degrees count each
// record's.
func TestCollisionsWithinBoundAndTotal(t *testing.T) {
	const other = "/srv/other"
	crowd := func(n int, opts ...presencetest.Option) []presence.Record {
		out := make([]presence.Record, n)
		for i := range out {
			out[i] = presencetest.Rec(fmt.Sprintf("agent-%02d", i), brain, opts...)
		}
		return out
	}
	join := func(parts ...[]presence.Record) []presence.Record {
		var out []presence.Record
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name       string
		live       []presence.Record
		scope      string
		max        int
		focus      int // index into live, -1 for none
		wantTotal  int
		wantListed int
		wantDeg    []int32 // nil: not checked
	}{
		{name: "nothing", live: nil, max: 3, focus: -1},
		{name: "one worktree, unbounded", live: crowd(5, presencetest.Worktree("/w/wt")), focus: -1, wantTotal: 10, wantListed: 10, wantDeg: []int32{4, 4, 4, 4, 4}},
		{name: "one worktree, bound 3", live: crowd(5, presencetest.Worktree("/w/wt")), max: 3, focus: -1, wantTotal: 10, wantListed: 3, wantDeg: []int32{4, 4, 4, 4, 4}},
		{name: "bound above the total", live: crowd(4, presencetest.CallerRoot("/w/cr")), max: 100, focus: -1, wantTotal: 6, wantListed: 6},
		{name: "bound 1", live: crowd(40, presencetest.CallerRoot("/w/cr")), max: 1, focus: -1, wantTotal: 780, wantListed: 1},
		{name: "caller_root and worktree both shared count once", live: crowd(6, presencetest.CallerRoot("/w/wt"), presencetest.Worktree("/w/wt")), max: 4, focus: -1, wantTotal: 15, wantListed: 4},
		{name: "working sets alone", live: crowd(6, presencetest.WS("/w/go.mod")), max: 2, focus: -1, wantTotal: 15, wantListed: 2},
		{
			name: "two worktrees joined by one shared path",
			live: join(
				crowd(3, presencetest.Worktree("/w/wt1"), presencetest.WS("src")),
				[]presence.Record{
					presencetest.Rec("x", brain, presencetest.Worktree("/w/wt2"), presencetest.WS("/w/wt1/src/a.go")),
					presencetest.Rec("y", brain, presencetest.Worktree("/w/wt2")),
				}),
			max: 100, focus: -1,
			// three pairs in wt1, x~y in wt2, and x with each of wt1's three
			wantTotal: 7, wantListed: 7, wantDeg: []int32{3, 3, 3, 4, 1},
		},
		{name: "brains bound apart", live: join(crowd(4, presencetest.Worktree("/w/wt")), []presence.Record{
			presencetest.Rec("o1", other, presencetest.Worktree("/w/wt")), presencetest.Rec("o2", other, presencetest.Worktree("/w/wt")), presencetest.Rec("o3", other, presencetest.Worktree("/w/wt")),
		}), max: 2, focus: -1, wantTotal: 9, wantListed: 4},
		{name: "scope one brain", live: join(crowd(4, presencetest.Worktree("/w/wt")), []presence.Record{
			presencetest.Rec("o1", other, presencetest.Worktree("/w/wt")), presencetest.Rec("o2", other, presencetest.Worktree("/w/wt")),
		}), scope: other, max: 5, focus: -1, wantTotal: 1, wantListed: 1},
		{name: "without a mutation signal, not counted", live: join(crowd(3, presencetest.Worktree("/w/wt")), crowd(0), []presence.Record{
			presencetest.Rec("idle", brain, presencetest.Worktree("/w/wt"), presencetest.NoMutation()),
		}), max: 5, focus: -1, wantTotal: 3, wantListed: 3, wantDeg: []int32{2, 2, 2, 0}},
		{
			// A session with three subagents, and two other sessions: one
			// team of four never collides within itself.
			name: "a team in a crowded worktree",
			live: join(
				[]presence.Record{presencetest.Rec("lead", brain, presencetest.Worktree("/w/wt"), presencetest.CallerRoot("/w/wt"))},
				crowd(3, presencetest.Worktree("/w/wt"), presencetest.CallerRoot("/w/wt"), presencetest.Parent(presence.ID("lead", brain))),
				[]presence.Record{presencetest.Rec("x", brain, presencetest.Worktree("/w/wt"), presencetest.CallerRoot("/w/wt")), presencetest.Rec("y", brain, presencetest.Worktree("/w/wt"))},
			),
			max: 4, focus: -1, wantTotal: 9, wantListed: 4, wantDeg: []int32{2, 2, 2, 2, 5, 5},
		},
		{
			name: "a team overlapping by working set only",
			live: join(
				[]presence.Record{presencetest.Rec("lead", brain, presencetest.WS("/w/src"))},
				crowd(2, presencetest.WS("/w/src/a.go"), presencetest.Parent(presence.ID("lead", brain))),
				[]presence.Record{presencetest.Rec("x", brain, presencetest.Touched("/w/src/b.go"))},
			),
			max: 10, focus: -1, wantTotal: 1, wantListed: 1, wantDeg: []int32{1, 0, 0, 1},
		},
		{name: "focus", live: crowd(30, presencetest.Worktree("/w/wt")), max: 5, focus: 7, wantTotal: 29, wantListed: 5},
		{name: "focus unbounded", live: crowd(30, presencetest.Worktree("/w/wt")), focus: 29, wantTotal: 29, wantListed: 29},
		{name: "focus alone in its place", live: join(crowd(5, presencetest.Worktree("/w/wt")), []presence.Record{presencetest.Rec("z", brain, presencetest.Worktree("/w/elsewhere"))}), max: 5, focus: 5},
		{name: "focus on another brain than the scope", live: join(crowd(3, presencetest.Worktree("/w/wt")), []presence.Record{
			presencetest.Rec("o1", other, presencetest.Worktree("/w/wt")), presencetest.Rec("o2", other, presencetest.Worktree("/w/wt")),
		}), scope: brain, max: 5, focus: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := presence.CollisionBound{Max: tt.max, Degrees: true}
			if tt.focus >= 0 {
				b.Focus = tt.live[tt.focus].PresenceID
			}
			got, tally := presence.CollisionsWithin(tt.scope, tt.live, time.UnixMilli(presencetest.T0), b)
			if tally.Pairs != tt.wantTotal || len(got) != tt.wantListed {
				t.Fatalf("got %d listed of %d, want %d of %d", len(got), tally.Pairs, tt.wantListed, tt.wantTotal)
			}
			// What is listed is the first of the brute force's order.
			want := bruteCollisions(tt.scope, tt.live)
			if tt.focus >= 0 {
				want = involving(want, b.Focus)
			}
			if len(want) != tt.wantTotal {
				t.Fatalf("the brute force finds %d collisions, the table says %d", len(want), tt.wantTotal)
			}
			if !reflect.DeepEqual(keys(got), keys(firstPerBrain(want, tt.max))) {
				t.Errorf("listed %v, want %v", keys(got), keys(firstPerBrain(want, tt.max)))
			}
			if tt.wantDeg != nil && !reflect.DeepEqual(tally.Degrees, tt.wantDeg) {
				t.Errorf("degrees: got %v, want %v", tally.Degrees, tt.wantDeg)
			}
			if len(tally.Degrees) != len(tt.live) {
				t.Errorf("degrees: got %d, want one per record (%d)", len(tally.Degrees), len(tt.live))
			}
		})
	}
}

// Within answers as the brute force does, whatever the bound and focus:
// the first Max pairs of each brain, the true total, and every record's
// pairs.
func TestCollisionsWithinEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(20260101))
	cut := 0
	for round := 0; round < 400; round++ {
		live := randomRoster(rng, rng.Intn(60))
		for _, scope := range []string{"", "/b/one", "/b/two", "/"} {
			all := bruteCollisions(scope, live)
			max := []int{0, 1, 2, 5, 20}[rng.Intn(5)]
			b := presence.CollisionBound{Max: max, Degrees: true}
			got, tally := presence.CollisionsWithin(scope, live, time.UnixMilli(presencetest.T0), b)
			want := firstPerBrain(all, max)
			if len(want) < len(all) {
				cut++
			}
			if tally.Pairs != len(all) || !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d scope %q max %d: listed %d of %d, want %d of %d\ngot  %v\nwant %v",
					round, scope, max, len(got), tally.Pairs, len(want), len(all), keys(got), keys(want))
			}
			deg := make([]int32, len(live))
			for _, c := range all {
				deg[indexOf(live, c.A)]++
				deg[indexOf(live, c.B)]++
			}
			if !reflect.DeepEqual(tally.Degrees, deg) {
				t.Fatalf("round %d scope %q: degrees %v, want %v", round, scope, tally.Degrees, deg)
			}
			if len(live) == 0 {
				continue
			}
			focus := live[rng.Intn(len(live))].PresenceID
			got, tally = presence.CollisionsWithin(scope, live, time.UnixMilli(presencetest.T0), presence.CollisionBound{Max: max, Focus: focus})
			mine := involving(all, focus)
			if want := firstPerBrain(mine, max); tally.Pairs != len(mine) || !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d scope %q max %d focus %s: listed %d of %d, want %d of %d\ngot  %v\nwant %v",
					round, scope, max, focus, len(got), tally.Pairs, len(want), len(mine), keys(got), keys(want))
			}
		}
	}
	if cut < 200 {
		t.Fatalf("bounds too loose: %d listings were cut, want at least 200", cut)
	}
}

// involving keeps the collisions id is a side of.
func involving(cs []presence.Collision, id string) []presence.Collision {
	var out []presence.Collision
	for _, c := range cs {
		if _, ok := c.Partner(id); ok {
			out = append(out, c)
		}
	}
	return out
}

// firstPerBrain keeps the first max collisions of each brain (all when max
// is 0); cs is in brain order.
func firstPerBrain(cs []presence.Collision, max int) []presence.Collision {
	var out []presence.Collision
	n := 0
	for i, c := range cs {
		if i > 0 && c.Brain != cs[i-1].Brain {
			n = 0
		}
		if max == 0 || n < max {
			out = append(out, c)
		}
		n++
	}
	return out
}

// indexOf finds a record in a roster whose ids are all distinct.
func indexOf(live []presence.Record, r *presence.Record) int {
	for i := range live {
		if live[i].PresenceID == r.PresenceID {
			return i
		}
	}
	panic("not a record of the roster")
}

// Focus, offered the roster one record at a time in any order, counts and
// keeps what the brute force finds for that record.
func TestFocusOfferEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(77))
	for round := 0; round < 300; round++ {
		live := randomRoster(rng, 1+rng.Intn(60))
		me := rng.Intn(len(live))
		max := []int{0, 1, 3, 10}[rng.Intn(4)]
		want := firstPerBrain(involving(bruteCollisions("", live), live[me].PresenceID), max)
		mine := len(involving(bruteCollisions("", live), live[me].PresenceID))

		f := collision.NewFocus(me, partyOf(live[me]), max)
		for _, i := range rng.Perm(len(live)) {
			if i != me {
				f.Offer(i, partyOf(live[i]))
			}
		}
		var got []string
		for _, p := range f.Kept() {
			got = append(got, live[p[0]].PresenceID+"~"+live[p[1]].PresenceID)
		}
		var wantKeys []string
		for _, c := range want {
			wantKeys = append(wantKeys, c.Key())
		}
		if f.Pairs() != mine || !reflect.DeepEqual(got, wantKeys) {
			t.Fatalf("round %d: counted %d, kept %v; want %d, %v", round, f.Pairs(), got, mine, wantKeys)
		}
		f.Release()
	}
}

// partyOf is what package presence gives the predicate of a record at T0.
func partyOf(r presence.Record) collision.Party {
	return collision.Party{ID: r.PresenceID, Brain: r.Brain, CallerRoot: r.CallerRoot, Worktree: r.Worktree,
		Base: presence.Where(r.Worktree, r.CallerRoot, r.Brain), WorkingSet: r.WorkingSet, Touched: r.Touched,
		Team: r.Team(), Agent: r.AgentID, Mutating: r.MutatingAt(time.UnixMilli(presencetest.T0))}
}
