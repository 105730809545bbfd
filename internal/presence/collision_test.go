package presence

import (
	"context"
	"reflect"
	"testing"
	"time"
)

const brain = "/home/ana/shop"

func TestCollisionsForBothSides(t *testing.T) {
	a := newRec("claude-7", brain, withWorktree("/w/wt"))
	b := newRec("codex-1", brain, withWorktree("/w/wt"))
	bystander := newRec("cursor-2", brain, withWorktree("/w/other"))
	elsewhere := newRec("m1nd-1", "/srv/other", withWorktree("/w/wt"))
	live := []Record{a, bystander, b, elsewhere}

	for _, p := range []Record{a, b} {
		got := CollisionsFor(p, live)
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
	for _, p := range []Record{bystander, elsewhere} {
		if got := CollisionsFor(p, live); len(got) != 0 {
			t.Errorf("CollisionsFor(%s): got %d collisions, want 0", p.AgentID, len(got))
		}
	}

	// The same through a Service snapshot: north lands on both sessions.
	store := mustOpenDirStore(t)
	ctx := context.Background()
	for _, r := range live {
		if err := store.Upsert(ctx, r); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
	}
	clk := newTestClock(t0 + 1000)
	svc := NewService(store, Config{Now: clk.Now})
	snap, err := svc.Snapshot(ctx)
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	for _, p := range []Record{a, b} {
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
	store := mustOpenDirStore(t)
	fresh := newRec("claude-7", brain, withWorktree("/w/wt"), withLastBeat(t0+60000))
	old := newRec("codex-1", brain, withWorktree("/w/wt"), withLastBeat(t0), withTTL(60000))
	for _, r := range []Record{fresh, old} {
		if err := store.Upsert(ctx, r); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
	}
	clk := newTestClock(t0 + 60000) // exactly old's ttl: still live
	svc := NewService(store, Config{Now: clk.Now})

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
	if got, want := ids(snap.Live), []string{fresh.PresenceID}; !reflect.DeepEqual(got, want) {
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
