package hall

import (
	"context"
	"sync/atomic"
	"testing"
)

// TestCloseCancelsAndWaits: Close cancels what the Hall started in the
// background and returns only after it returned; nothing starts after.
func TestCloseCancelsAndWaits(t *testing.T) {
	var h Hall
	started := make(chan struct{})
	var ended atomic.Bool
	h.life.Go(func(ctx context.Context) {
		close(started)
		<-ctx.Done() // a check in flight: it ends only when cancelled
		ended.Store(true)
	})
	<-started
	h.Close()
	if !ended.Load() {
		t.Fatal("Close returned before the background work did")
	}
	ran := false
	h.life.Go(func(context.Context) { ran = true })
	h.Close() // again: nothing to wait for
	if ran {
		t.Error("work started after Close ran")
	}
}
