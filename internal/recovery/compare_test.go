//go:build linux || darwin

package recovery_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/recovery"
)

// TestCompareHashesLittle (issue 40 item 8): comparing a snapshot's
// 1 GiB file (sparse: no disk used) with the worktree hashes nothing
// while its size and times say it is unchanged since the snapshot, call
// after call; once it changed (its times), it is not hashed past the
// bound a call hashes but said not compared, and why; a small file of
// the same size written since is hashed (changed), one of another size
// is changed unhashed. Counted in bytes hashed, not timed.
func TestCompareHashesLittle(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, false)
	big := filepath.Join(wt, "big.img")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	write(t, filepath.Join(wt, "same-size.txt"), "before\n", 0o644)
	write(t, filepath.Join(wt, "other-size.txt"), "before\n", 0o644)
	// The snapshot is taken past the window in which a change is too
	// close to it to be told by its times (set-up, not a measure).
	waitPast(t, big, 3*time.Second)
	run, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{Timeout: 5 * time.Minute}) // a 1 GiB snapshot on a loaded machine
	if err != nil {
		t.Fatal(err)
	}
	store, err := recovery.Open(ctx, filepath.Join(t.TempDir(), "recovery"), run, recovery.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	diff := func(paths ...string) (map[string]recovery.FileDiff, int64) {
		t.Helper()
		before := recovery.HashedBytes(store)
		files, err := store.Diff(ctx, snap.ID, paths)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]recovery.FileDiff{}
		for _, f := range files {
			m[f.Path] = f
		}
		return m, recovery.HashedBytes(store) - before
	}
	for range 3 {
		if got, hashed := diff("big.img"); got["big.img"].State != recovery.DiffSame || hashed != 0 {
			t.Fatalf("big.img unchanged: %+v, %d bytes hashed; want same, none hashed", got, hashed)
		}
	}
	if got, hashed := diff("."); got["big.img"].State != recovery.DiffSame || got["a.txt"].State != recovery.DiffSame || hashed != 0 {
		t.Fatalf("the whole tree unchanged: %+v, %d bytes hashed; want same, none hashed", got, hashed)
	}
	now := time.Now()
	if err := os.Chtimes(big, now, now); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt, "same-size.txt"), "after!\n", 0o644)
	write(t, filepath.Join(wt, "other-size.txt"), "after, longer\n", 0o644)
	got, hashed := diff("big.img", "same-size.txt", "other-size.txt")
	if b := got["big.img"]; b.State != recovery.DiffNotCompared || b.Note == "" {
		t.Errorf("big.img touched since: %+v; want not compared, and why", b)
	}
	if got["same-size.txt"].State != recovery.DiffChanged || got["other-size.txt"].State != recovery.DiffChanged {
		t.Errorf("files written since: %+v; want both changed", got)
	}
	if hashed != int64(len("after!\n")) {
		t.Errorf("%d bytes hashed; want the same-size file's %d alone", hashed, len("after!\n"))
	}
}

// waitPast waits until the clock is past name's status change time by d.
func waitPast(t *testing.T, name string, d time.Duration) {
	t.Helper()
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	ctime, ok := recovery.StatusChanged(info)
	if !ok {
		t.Fatalf("%s: no status change time", name)
	}
	time.Sleep(time.Until(ctime.Add(d)))
}
