package presence_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

func TestCollisionsForBothSides(t *testing.T) {
	a := presencetest.Rec("claude-7", brain, presencetest.Worktree("/w/wt"))
	b := presencetest.Rec("codex-1", brain, presencetest.Worktree("/w/wt"))
	bystander := presencetest.Rec("cursor-2", brain, presencetest.Worktree("/w/other"))
	elsewhere := presencetest.Rec("m1nd-1", "/srv/other", presencetest.Worktree("/w/wt"))
	live := []presence.Record{a, bystander, b, elsewhere}

	for _, p := range []presence.Record{a, b} {
		got := presence.CollisionsFor(p, live, time.UnixMilli(presencetest.T0))
		if len(got) != 1 {
			t.Fatalf("CollisionsFor(%s): got %d collisions, want 1", p.AgentID, len(got))
		}
		partner, ok := got[0].Partner(p.PresenceID)
		want := b
		if p.PresenceID == b.PresenceID {
			want = a
		}
		if !ok || partner.PresenceID != want.PresenceID {
			t.Errorf("CollisionsFor(%s) partner: got %s, want %s", p.AgentID, partner.AgentID, want.AgentID)
		}
	}
	for _, p := range []presence.Record{bystander, elsewhere} {
		if got := presence.CollisionsFor(p, live, time.UnixMilli(presencetest.T0)); len(got) != 0 {
			t.Errorf("CollisionsFor(%s): got %d collisions, want 0", p.AgentID, len(got))
		}
	}

	// The same through a Service snapshot: north lands on both sessions.
	store := dirstoretest.Open(t)
	ctx := context.Background()
	for _, r := range live {
		if err := store.Upsert(ctx, r); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
	}
	clk := presencetest.NewClock(presencetest.T0 + 1000)
	svc := presence.NewService(store, presence.Config{Now: clk.Now})
	snap, err := svc.Snapshot(ctx)
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	for _, p := range []presence.Record{a, b} {
		if got := snap.CollisionsFor(p.PresenceID); len(got) != 1 {
			t.Errorf("Snapshot.CollisionsFor(%s): got %d, want 1", p.AgentID, len(got))
		}
	}
	if got := snap.CollisionsFor(bystander.PresenceID); len(got) != 0 {
		t.Errorf("Snapshot.CollisionsFor(bystander): got %d, want 0", len(got))
	}
}

// A partner whose ttl ran out is not live, so it collides with no one.
func TestStalePartnerNeverCollides(t *testing.T) {
	ctx := context.Background()
	store := dirstoretest.Open(t)
	fresh := presencetest.Rec("claude-7", brain, presencetest.Worktree("/w/wt"), presencetest.LastBeat(presencetest.T0+60000))
	old := presencetest.Rec("codex-1", brain, presencetest.Worktree("/w/wt"), presencetest.LastBeat(presencetest.T0), presencetest.TTL(60000))
	for _, r := range []presence.Record{fresh, old} {
		if err := store.Upsert(ctx, r); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
	}
	clk := presencetest.NewClock(presencetest.T0 + 60000) // exactly old's ttl: still live
	svc := presence.NewService(store, presence.Config{Now: clk.Now})

	snap, err := svc.Snapshot(ctx)
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if got, want := len(snap.Live), 2; got != want {
		t.Fatalf("live at the ttl boundary: got %d, want %d", got, want)
	}
	if got, want := len(snap.Collisions), 1; got != want {
		t.Fatalf("collisions at the ttl boundary: got %d, want %d", got, want)
	}

	clk.Advance(time.Millisecond)
	snap, err = svc.Snapshot(ctx)
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if got, want := presencetest.IDs(snap.Live), []string{fresh.PresenceID}; !reflect.DeepEqual(got, want) {
		t.Errorf("live 1 ms past the partner's ttl: got %v, want %v", got, want)
	}
	if got := snap.Collisions; len(got) != 0 {
		t.Errorf("collisions with a stale partner: got %+v, want none", got)
	}
	if got := snap.CollisionsFor(fresh.PresenceID); len(got) != 0 {
		t.Errorf("CollisionsFor(fresh) with a stale partner: got %d, want 0", len(got))
	}
	if !snap.Known(brain) {
		t.Errorf("Known(%q): got false, want true", brain)
	}
}

// A Service lists at most MaxCollisions on each brain and counts them all:
// on the snapshot, by brain and by presence, narrowed by ForBrain; a beat
// answers its first NorthCap and its own count, and North does the same
// from a snapshot whatever the brain's list holds.
func TestServiceBoundsCollisions(t *testing.T) {
	store := dirstoretest.Open(t)
	ctx := context.Background()
	clk := presencetest.NewClock(presencetest.T0 + 1000)
	const bound = 7
	svc := presence.NewService(store, presence.Config{Now: clk.Now, MaxCollisions: bound})
	other := "/srv/other"
	var last presence.BeatResult
	for i := 0; i < 30; i++ { // 435 pairs on brain
		var err error
		if last, err = svc.Beat(ctx, presence.Beat{AgentID: fmt.Sprintf("agent-%02d", i), Brain: brain, Worktree: "/w/wt", Tool: "Edit"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ { // 3 pairs on other
		if _, err := svc.Beat(ctx, presence.Beat{AgentID: fmt.Sprintf("other-%d", i), Brain: other, Worktree: "/w/wt", Tool: "Edit"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(last.Collisions) != presence.NorthCap || last.CollisionsTotal != 29 {
		t.Errorf("the 30th beat: got %d collisions listed of %d, want %d of 29", len(last.Collisions), last.CollisionsTotal, presence.NorthCap)
	}
	snap, err := svc.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Collisions) != bound+3 || snap.CollisionsTotal != 438 || snap.Counts.OnBrain(brain) != 435 || snap.Counts.OnBrain(other) != 3 {
		t.Fatalf("snapshot: %d listed of %d (brain %d, other %d), want %d of 438 (435, 3)",
			len(snap.Collisions), snap.CollisionsTotal, snap.Counts.OnBrain(brain), snap.Counts.OnBrain(other), bound+3)
	}
	want, _ := presence.CollisionsWithin(brain, snap.Live, time.UnixMilli(snap.AtMs), presence.CollisionBound{Max: bound})
	if !reflect.DeepEqual(keysOf(snap.Collisions[:bound]), keysOf(want)) {
		t.Errorf("listed on brain: got %v, want the first by id %v", keysOf(snap.Collisions[:bound]), keysOf(want))
	}
	for _, r := range snap.Live {
		wantN := 29
		if r.Brain == other {
			wantN = 2
		}
		if got := snap.Counts.Of(r.Brain, r.PresenceID); got != wantN {
			t.Errorf("count of %s: got %d, want %d", r.AgentID, got, wantN)
		}
	}
	if b := snap.ForBrain(other); b.CollisionsTotal != 3 || len(b.Collisions) != 3 {
		t.Errorf("ForBrain(other): %d of %d, want 3 of 3", len(b.Collisions), b.CollisionsTotal)
	}
	// The last agent by id is in none of the pairs listed, yet north
	// names its first partners.
	lastID := ""
	for _, r := range snap.Live {
		if r.Brain == brain && r.PresenceID > lastID {
			lastID = r.PresenceID
		}
	}
	if got := snap.CollisionsFor(lastID); len(got) != 0 {
		t.Fatalf("the last id by order is listed %d times: the test needs it unlisted", len(got))
	}
	if cs, n := snap.North(lastID); len(cs) != presence.NorthCap || n != 29 {
		t.Errorf("North(last): %d listed of %d, want %d of 29", len(cs), n, presence.NorthCap)
	}
	if cs, n := snap.North("prs_000000000000"); len(cs) != 0 || n != 0 {
		t.Errorf("North(not live): %d of %d, want none", len(cs), n)
	}
}

func keysOf(cs []presence.Collision) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Key()
	}
	return out
}

// A working set past MaxCollisionWorkingSet entries is kept whole on the
// record; the predicate reads its first MaxCollisionWorkingSet entries
// and counts the rest as left out (a bound on the sweep's cost).
func TestCollisionWorkingSetBound(t *testing.T) {
	ws := make([]string, presence.MaxCollisionWorkingSet+76)
	for i := range ws {
		ws[i] = fmt.Sprintf("src/f%d.go", i)
	}
	a := presencetest.Rec("claude-7", brain, presencetest.WS(ws...))
	if got := a.WorkingSetUnchecked(); got != 76 {
		t.Errorf("WorkingSetUnchecked: got %d, want 76", got)
	}
	now := time.UnixMilli(presencetest.T0)
	inside := presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/elsewhere"), presencetest.WS(ws[presence.MaxCollisionWorkingSet-1]))
	if _, ok := presence.CollisionBetween(a, inside, now); !ok {
		t.Error("an entry within the bound: got no collision, want one")
	}
	past := presencetest.Rec("codex-1", brain, presencetest.CallerRoot("/elsewhere"), presencetest.WS(ws[presence.MaxCollisionWorkingSet]))
	if c, ok := presence.CollisionBetween(a, past, now); ok {
		t.Errorf("an entry past the bound: got %+v, want none (left out, counted)", c)
	}
}
