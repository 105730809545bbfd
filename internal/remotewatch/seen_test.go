package remotewatch_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/remotewatch"
)

// When a tip was first seen survives the Hall's restart: a Hall started
// again on the same registry root (the same store) says the time its
// first look saw the tip, not the time of the restart's look; a tip
// pushed meanwhile is first seen at that look. (It was kept in memory
// only: a restart saw every tip anew.) A file that cannot be read is a
// fresh start, never an error.
func TestFirstSeenSurvivesARestart(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	w := newWorld(t, nil)
	gittest.WriteFile(t, filepath.Join(w.work, "src/cart.go"), lines(20, "mine", 3))
	w.push(t, "early", "src/cart.go", lines(20, "theirs", 3), false)
	root := filepath.Join(gittest.TempDir(t), "remotes")
	clock := clockwork.NewFakeClock()
	look := func() *remotewatch.Watcher {
		wa, _ := newWatcher(t, remotewatch.Config{Clock: clock, Interval: time.Minute, Root: root})
		wa.Track([]string{w.work})
		wa.Look(ctx)
		return wa
	}
	seenOf := func(wa *remotewatch.Watcher, branch string) int64 {
		t.Helper()
		p, ok := find(wa.Pushed(w.work), branch)
		if !ok {
			t.Fatalf("%s is no side: %v", branch, branchNames(wa.Pushed(w.work)))
		}
		return p.Branch.SeenMs
	}
	first := clock.Now().UnixMilli()
	if got := seenOf(look(), "early"); got != first {
		t.Fatalf("early first seen %d, want %d", got, first)
	}

	clock.Advance(time.Hour)
	w.push(t, "late", "src/cart.go", lines(20, "late", 3), false)
	again := look()
	if got := seenOf(again, "early"); got != first {
		t.Errorf("after a restart, early first seen %d, want %d (the first look's)", got, first)
	}
	if got, want := seenOf(again, "late"), clock.Now().UnixMilli(); got != want {
		t.Errorf("late, pushed while the Hall was stopped: first seen %d, want %d (this look's)", got, want)
	}

	store := remotewatch.StoreDir(again.Root(), again.Remotes()[0].Identity)
	if err := os.WriteFile(filepath.Join(store, "hall-seen.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if got, want := seenOf(look(), "early"), clock.Now().UnixMilli(); got != want {
		t.Errorf("with the file unreadable, early first seen %d, want %d (this look's)", got, want)
	}
}
