package gitscan_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/filelock"
	"github.com/hall-dev/hall/internal/gitscan"
)

// TestSweepTemp (issue 40 item 17): what a Hall killed without warning
// left in the temporary folder goes at the next scanner's start (a
// scratch whose lock no process holds, a snapshot's index over an hour
// old), and nothing a live process may hold: a scratch whose lock is
// held or was written under a minute ago, one with no lock file (an older
// Hall's), a young index, another program's folder.
func TestSweepTemp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	now := time.Now()
	old := now.Add(-2 * time.Hour)
	mk := func(name string, lock bool, age time.Time) string {
		t.Helper()
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "0", "objects"), 0o700); err != nil {
			t.Fatal(err)
		}
		if lock {
			l, _, err := filelock.TryLock(p, "pid 1")
			if err != nil {
				t.Fatal(err)
			}
			l.Close() // its holder died: the kernel let go
			if err := os.Chtimes(filepath.Join(p, filelock.Name), age, age); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(p, age, age); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := mk("hall-scratch-dead", true, old)
	young := mk("hall-scratch-young", true, now)
	lockless := mk("hall-scratch-lockless", false, old)
	held := mk("hall-scratch-held", true, old)
	l, _, err := filelock.TryLock(held, "pid 2")
	if err != nil || l == nil {
		t.Fatalf("hold %s: %v", held, err)
	}
	defer l.Close()
	oldIndex := mk("hall-gitscan-old", false, old)
	youngIndex := mk("hall-gitscan-young", false, now)
	other := mk("someone-elses", false, old)

	s := gitscan.NewScanner(gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{})})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()

	for _, p := range []string{dead, oldIndex} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left (%v); want it swept", filepath.Base(p), err)
		}
	}
	for _, p := range []string{young, lockless, held, youngIndex, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s swept (%v); want it left", filepath.Base(p), err)
		}
	}
	// The new scanner's own scratch is held: a second sweep, even an
	// hour on, leaves it.
	mine, _ := filepath.Glob(filepath.Join(tmp, "hall-scratch-*"))
	mine = slices.DeleteFunc(mine, func(p string) bool { return slices.Contains([]string{young, lockless, held}, p) })
	if len(mine) != 1 {
		t.Fatalf("the scanner's scratch: %v, want one", mine)
	}
	if swept := gitscan.SweepTemp(tmp, now.Add(time.Hour)); slices.Contains(swept, mine[0]) {
		t.Errorf("a live scanner's scratch swept: %v", swept)
	}
}
