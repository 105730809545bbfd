package presence_test

import (
	"context"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
)

// patience bounds the waits for what the Service's live loop eventually
// does.
const patience = 20 * time.Second

// brain is the brain most tests beat on: the spec example's.
const brain = "/home/ana/shop"

// untilSnapshot waits on Changed tokens until cond holds for a snapshot
// taken after one, and returns that snapshot.
func untilSnapshot(tb testing.TB, svc *presence.Service, what string, cond func(presence.Snapshot) bool) presence.Snapshot {
	tb.Helper()
	var snap presence.Snapshot
	eventually.Notified(tb, patience, svc.Changed(), what, func() bool {
		var err error
		if snap, err = svc.Snapshot(context.Background()); err != nil {
			tb.Fatalf("Snapshot: %v", err)
		}
		return cond(snap)
	})
	return snap
}
