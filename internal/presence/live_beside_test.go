package presence_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// LiveBeside is Snapshot.Live cut to one presence's brain, in the same
// order, with the presence's record as the snapshot shows it; as the
// roster ages (records going stale, one beaten again) it stays so.
func TestLiveBesideIsTheSnapshotsBrain(t *testing.T) {
	ctx := context.Background()
	clk := presencetest.NewClock(presencetest.T0)
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Now: clk.Now})
	roster := presencetest.BenchRoster(200)
	for i := range roster {
		roster[i].TTLMs = int64(60_000 + 1_000*(i%90))
		if err := store.Upsert(ctx, roster[i]); err != nil {
			t.Fatal(err)
		}
	}
	// One presence beats through the service, so its record is the
	// service's own projection rather than the store's copy.
	res, err := svc.Beat(ctx, presence.Beat{AgentID: "beater", Brain: roster[0].Brain, Worktree: roster[0].Worktree, Tool: "Edit"})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{res.PresenceID, roster[0].PresenceID, roster[1].PresenceID, roster[77].PresenceID, roster[199].PresenceID}
	for step := 0; step < 4; step++ {
		snap, err := svc.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			want, ok := snap.Find(id)
			self, live, err := svc.LiveBeside(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				if self.PresenceID != "" || !reflect.DeepEqual(live, snap.Live) {
					t.Errorf("step %d, %s not live: self %q and %d records, want none and the whole roster (%d)", step, id, self.PresenceID, len(live), len(snap.Live))
				}
				continue
			}
			var brain []presence.Record
			for _, r := range snap.Live {
				if r.Brain == want.Brain {
					brain = append(brain, r)
				}
			}
			if !reflect.DeepEqual(self, want) {
				t.Errorf("step %d, %s: self %+v, want %+v", step, id, self, want)
			}
			if !reflect.DeepEqual(live, brain) {
				t.Errorf("step %d, %s: %v, want its brain's %v", step, id, presencetest.IDs(live), presencetest.IDs(brain))
			}
		}
		clk.Advance(40 * time.Second)
	}
	if _, _, err := svc.LiveBeside(ctx, "no-such-presence"); err != nil {
		t.Errorf("an unknown id: %v, want the whole roster and no error", err)
	}
}
