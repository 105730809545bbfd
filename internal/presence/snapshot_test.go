package presence_test

import (
	"context"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract/contracttest"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// Record.Equal must see a change in any field, or a change would go
// unsignalled, a brain's collisions would be served stale, and the live
// stream would miss an update. A field added to Record fails here until
// Equal compares it.
func TestRecordEqualSeesEveryField(t *testing.T) {
	base := presencetest.Rec("a", brain, presencetest.WS("src"), presencetest.CallerRoot("/r"), presencetest.Worktree("/w"),
		presencetest.Touched("/w/a.go"))
	base.Changed, base.ChangedTotal, base.ChangedAtMs = []string{"a.go"}, 1, 5
	if clone := base.Clone(); !base.Equal(&base) || !base.Equal(&clone) {
		t.Fatal("Equal: a record differs from itself")
	}
	changed, err := contracttest.EachFieldChanged(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) < 20 {
		t.Fatalf("only %d fields changed: the walk is broken", len(changed))
	}
	for _, c := range changed {
		if base.Equal(&c.Value) || c.Value.Equal(&base) {
			t.Errorf("Equal: a change of %s is not seen", c.Field)
		}
	}
}

// Snapshot derives again only the brains whose live records changed; its
// collisions stay exactly CollisionsIn over the whole live roster through
// writes, beats, leaves, brains emptied and records going stale.
func TestSnapshotCollisionsEqualAWholeDerivation(t *testing.T) {
	ctx := context.Background()
	clk := presencetest.NewClock(presencetest.T0)
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Now: clk.Now})
	rng := rand.New(rand.NewSource(3))
	roster := presencetest.BenchRoster(300)
	for i := range roster {
		roster[i].TTLMs = int64(60_000 + rng.Intn(120_000))
		if err := store.Upsert(ctx, roster[i]); err != nil {
			t.Fatal(err)
		}
	}
	for step := 0; step < 60; step++ {
		snap, err := svc.Snapshot(ctx) // not watching: a listing, then the derivation
		if err != nil {
			t.Fatal(err)
		}
		// At the snapshot's time: an observed mutation that lapsed since
		// the last derivation changes the brain's answer too.
		want, _ := presence.CollisionsWithin("", snap.Live, time.UnixMilli(snap.AtMs), presence.CollisionBound{})
		if !reflect.DeepEqual(snap.Collisions, want) {
			t.Fatalf("step %d: Snapshot's collisions (%d) differ from CollisionsIn over its live roster (%d)", step, len(snap.Collisions), len(want))
		}
		if step > 0 && len(snap.Live) == 0 {
			break
		}
		// Change a few records: move them, drop their mutation, remove
		// them, or let the clock age the roster.
		for k := 0; k < 1+rng.Intn(4); k++ {
			r := roster[rng.Intn(len(roster))]
			switch rng.Intn(5) {
			case 0:
				store.Delete(ctx, r.PresenceID)
				continue
			case 1:
				r.Mutation = presence.Mutation{}
			case 2:
				r.Worktree, r.CallerRoot = roster[rng.Intn(len(roster))].Worktree, ""
			case 3:
				r.WorkingSet = append([]string(nil), roster[rng.Intn(len(roster))].WorkingSet...)
			}
			r.LastBeatMs = clk.Now().UnixMilli()
			if err := store.Upsert(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if rng.Intn(3) == 0 {
			clk.Advance(time.Duration(rng.Intn(40)) * time.Second)
		}
	}
}
