package presence_test

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// burst beats n one-beat agents on brain, each once.
func burst(tb testing.TB, svc *presence.Service, prefix string, n int) {
	tb.Helper()
	for i := range n {
		mustBeat(tb, svc, presence.Beat{AgentID: fmt.Sprintf("%s-%d", prefix, i), Brain: brain})
	}
}

// A burst of one-beat agents leaves neither files nor cached records once
// past their ttl: each reclaim pass removes at most its batch, the passes
// end, and what the live view walks afterwards is the live presences
// alone. (Found: 88,700 one-beat agents left 88,816 files and a cache
// every beat walked until a restart.)
func TestReclaimLapsedInBoundedPasses(t *testing.T) {
	const lapsed, live = 600, 5
	clock := presencetest.NewClock(1_700_000_000_000)
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Now: clock.Now, TTL: 10 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	svc.ReadFromCache()
	burst(t, svc, "one-beat", lapsed)
	clock.Advance(10*time.Second + presence.LapseGrace + time.Millisecond)
	burst(t, svc, "alive", live)

	passes := 0
	for more := true; more; {
		removed, m := svc.ReclaimLapsed(t.Context())
		if removed > presence.ReclaimBatch {
			t.Fatalf("pass %d removed %d, want at most %d", passes, removed, presence.ReclaimBatch)
		}
		more = m
		passes++
		if passes > lapsed {
			t.Fatal("reclaim passes never end")
		}
	}
	if want := (lapsed + presence.ReclaimBatch - 1) / presence.ReclaimBatch; passes != want {
		t.Errorf("passes: got %d, want %d", passes, want)
	}
	if got := len(dirstoretest.Names(t, store.Dir())); got != live {
		t.Errorf("files left: got %d, want %d (the live ones)", got, live)
	}
	if got := svc.CachedCount(); got != live {
		t.Errorf("cached records: got %d, want %d (the live ones)", got, live)
	}
	if got := svc.Stats().Reclaimed; got != lapsed {
		t.Errorf("Stats.Reclaimed: got %d, want %d", got, lapsed)
	}
	snap, err := svc.Snapshot(t.Context())
	if err != nil || len(snap.Live) != live {
		t.Fatalf("Snapshot: got %d live (%v), want %d", len(snap.Live), err, live)
	}
}

// A record is never reclaimed before its ttl and the grace have passed,
// and one its agent beat again is never reclaimed at all.
func TestReclaimLapsedNeverLive(t *testing.T) {
	clock := presencetest.NewClock(1_700_000_000_000)
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Now: clock.Now, TTL: 10 * time.Second, Logger: slog.New(slog.DiscardHandler)})
	svc.ReadFromCache()
	burst(t, svc, "a", 3)
	clock.Advance(10*time.Second + presence.LapseGrace) // the grace's last millisecond
	if n, _ := svc.ReclaimLapsed(t.Context()); n != 0 {
		t.Fatalf("reclaimed %d within the grace, want 0", n)
	}
	burst(t, svc, "a", 1) // a-0 beats again: a new beat, stored at once
	clock.Advance(time.Millisecond)
	if n, _ := svc.ReclaimLapsed(t.Context()); n != 2 {
		t.Fatalf("reclaimed %d, want 2 (a-1 and a-2; a-0 beat again)", n)
	}
	if _, err := store.Get(t.Context(), presence.ID("a-0", brain)); err != nil {
		t.Fatalf("the presence that beat again: %v", err)
	}
}

// While Run is active, lapsed records leave the folder without a restart.
func TestRunReclaimsLapsed(t *testing.T) {
	clock := presencetest.NewClock(1_700_000_000_000)
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Now: clock.Now, TTL: 10 * time.Second, Throttle: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	startRun(t, svc, presence.RunConfig{Rescan: time.Hour})
	burst(t, svc, "one-beat", 600)
	clock.Advance(10*time.Second + presence.LapseGrace + time.Millisecond)
	eventually.True(t, patience, "the lapsed records to leave the folder", func() bool {
		return len(dirstoretest.Names(t, store.Dir())) == 0 && svc.CachedCount() == 0
	})
}
