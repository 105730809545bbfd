package presence_test

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// TestRunSignalsExpiryWhateverWakesTheLoop: a presence that stops beating
// is signalled on Changed at its ttl even when the expiry timer fires
// together with another case of the live loop. A 1 ms flush tick (the
// throttle is 5 ms) makes that coincidence likely in every round; a loop
// that signalled expiries only from the timer's own case lost them.
func TestRunSignalsExpiryWhateverWakesTheLoop(t *testing.T) {
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Throttle: 5 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	startRun(t, svc, presence.RunConfig{})
	writer := dirstore.New(filepath.Dir(store.Dir())) // another writer on the same folder

	for round := 0; round < 12; round++ {
		r := presencetest.Rec(fmt.Sprintf("quiet-%d", round), "/srv/shop", presencetest.NoMutation(), presencetest.LastBeat(time.Now().UnixMilli()), presencetest.TTL(150))
		if err := writer.Upsert(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		untilSnapshot(t, svc, "the join", func(s presence.Snapshot) bool { _, ok := s.Find(r.PresenceID); return ok })
		deadline := time.After(5 * time.Second)
		for left := false; !left; {
			select {
			case <-svc.Changed():
				snap, err := svc.Snapshot(t.Context())
				_, live := snap.Find(r.PresenceID)
				left = err == nil && !live
			case <-deadline:
				t.Fatalf("round %d: no change signalled within 5 s of a 150 ms ttl running out", round)
			}
		}
	}
}
