package recovery_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/recovery"
)

// TestTakeThenChange: Take answers once the working tree may change;
// what it saved is the tree as it was, whatever happens to it next, and
// the record Get answers is whole (files, commit, size).
func TestTakeThenChange(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, true)
	write(t, filepath.Join(wt, "a.txt"), "mine, uncommitted\n", 0o644)
	write(t, filepath.Join(wt, "new.txt"), "new, untracked\n", 0o644)
	want := map[string]string{"a.txt": state(t, filepath.Join(wt, "a.txt")), "new.txt": state(t, filepath.Join(wt, "new.txt"))}
	store := openStore(t, recovery.Limits{}, nil)
	taken := takeShell(t, store, wt, "git checkout . && git clean -fd")
	// The command runs at once, while the record may still be finishing.
	git(t, wt, "checkout", "-q", ".")
	git(t, wt, "clean", "-fdq")
	snap, err := store.Get(ctx, taken.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Commit == "" || snap.Tree != taken.Tree || snap.Bytes == 0 || len(snap.Files) != 2 {
		t.Fatalf("record %+v: want its commit, the taken tree %s, a size and two files", snap, taken.Tree)
	}
	if _, err := store.Restore(ctx, taken.ID, recovery.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		if got := state(t, filepath.Join(wt, p)); got != w {
			t.Errorf("%s: %s, want %s", p, got, w)
		}
	}
}

// TestBorrowedThenSelfContained: a snapshot borrows the objects of the
// worktree's snapshot before it while it is taken, and once recorded
// needs nothing of it: the first dropped, the second still restores
// every file, and no loan is left in its objects.
func TestBorrowedThenSelfContained(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, false)
	store := openStore(t, recovery.Limits{}, nil)
	write(t, filepath.Join(wt, "dir", "x.txt"), "x, first edit\n", 0o644)
	first, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt, "b.txt"), "b, second edit\n", 0o644)
	second := takeShell(t, store, wt, "git reset --hard")
	if err := store.Wait(ctx, second.ID); err != nil {
		t.Fatal(err)
	}
	selfContained(t, store, wt, second.ID, first.ID, "dir/x.txt", "b.txt")
}

// selfContained checks a recorded snapshot that borrowed from lender:
// no loan is left in its objects, and with the lender gone it still
// brings back files, as they are now, after a reset --hard.
func selfContained(t *testing.T, store *recovery.Store, wt, id, lender string, files ...string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(store.Dir(), id, "objects", "info", "alternates")); !os.IsNotExist(err) {
		t.Fatalf("a loan left in the recorded snapshot: %v", err)
	}
	if err := os.RemoveAll(filepath.Join(store.Dir(), lender)); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, p := range files {
		want[p] = state(t, filepath.Join(wt, filepath.FromSlash(p)))
	}
	git(t, wt, "reset", "-q", "--hard")
	if _, err := store.Restore(context.Background(), id, recovery.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		if got := state(t, filepath.Join(wt, filepath.FromSlash(p))); got != w {
			t.Errorf("%s: %s, want %s", p, got, w)
		}
	}
}

// TestUnfinishedRecordFinishedByNextOpen: a Hall that stopped after its
// hook answer and before the snapshot's record was finished leaves the
// snapshot as Take first wrote it (<id>.tmp, its record without commit
// or files, its loan); the next store opened over the directory finishes
// it, and it restores.
func TestUnfinishedRecordFinishedByNextOpen(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, false)
	dir := filepath.Join(t.TempDir(), "recovery")
	clk := &clock{t: time.Now()}
	store, err := recovery.Open(ctx, dir, newRunner(t), recovery.Limits{}, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt, "a.txt"), "first\n", 0o644)
	lender, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt, "a.txt"), "second, lost at the crash\n", 0o644)
	want := state(t, filepath.Join(wt, "a.txt"))
	snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Command: "rm a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	// Back to what Take leaves before its record is finished.
	tmp := filepath.Join(dir, snap.ID+".tmp")
	if err := os.Rename(filepath.Join(dir, snap.ID), tmp); err != nil {
		t.Fatal(err)
	}
	half := snap
	half.Commit, half.Files, half.Bytes = "", nil, 0
	b, _ := json.Marshal(half)
	if err := os.WriteFile(filepath.Join(tmp, "snapshot.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "objects", "info", "alternates"), []byte(filepath.Join(dir, lender.ID, "objects")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Get(ctx, snap.ID); err == nil {
		t.Fatal("an unfinished snapshot is listed")
	}
	// Too young: its own Hall may still be finishing it.
	store2, err := recovery.Open(ctx, dir, newRunner(t), recovery.Limits{}, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store2.Get(ctx, snap.ID); err == nil {
		t.Fatal("a snapshot another Hall may be finishing was finished")
	}
	clk.t = clk.t.Add(3 * recovery.FinishBudget)
	store3, err := recovery.Open(ctx, dir, newRunner(t), recovery.Limits{}, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store3.Get(ctx, snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Commit != snap.Commit || len(got.Files) != len(snap.Files) {
		t.Fatalf("finished record %+v, want %+v", got, snap)
	}
	os.Remove(filepath.Join(wt, "a.txt"))
	if _, err := store3.Restore(ctx, snap.ID, recovery.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := state(t, filepath.Join(wt, "a.txt")); s != want {
		t.Errorf("a.txt: %s, want %s", s, want)
	}
}

// holdNext makes the finishing of the store's next snapshot (the first
// to start finishing from now on) wait until the returned open is
// called; every later one finishes as usual.
func holdNext(store *recovery.Store) (open func()) {
	ch := make(chan struct{})
	var next sync.Once
	recovery.HoldFinishing(store, func() {
		held := false
		next.Do(func() { held = true })
		if held {
			<-ch
		}
	})
	return sync.OnceFunc(func() { close(ch) })
}

// takeShell takes a snapshot of wt as a hook answer does before command.
func takeShell(t *testing.T, store *recovery.Store, wt, command string) recovery.Snapshot {
	t.Helper()
	snap, err := store.Take(context.Background(), recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Command: command}})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestBorrowsWhileLenderFinishing: a snapshot taken while the one before
// it is still being finished borrows its objects all the same (a file
// unchanged since is not written again), waits for its record before
// finishing its own, and once recorded needs nothing of it.
func TestBorrowsWhileLenderFinishing(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, false)
	store := openStore(t, recovery.Limits{}, nil)
	open := holdNext(store)
	defer open()
	write(t, filepath.Join(wt, "dir", "x.txt"), "x, first edit\n", 0o644)
	first := takeShell(t, store, wt, "git stash")
	write(t, filepath.Join(wt, "b.txt"), "b, second edit\n", 0o644)
	second := takeShell(t, store, wt, "git reset --hard")
	loose := func(id, file string) bool {
		oid := strings.TrimSpace(git(t, wt, "hash-object", file))
		_, err := os.Stat(filepath.Join(store.Dir(), id+".tmp", "objects", oid[:2], oid[2:]))
		return err == nil
	}
	if !loose(first.ID, "dir/x.txt") || loose(second.ID, "dir/x.txt") || !loose(second.ID, "b.txt") {
		t.Fatalf("x.txt's content in the first (%v) and the second (%v), b.txt's in the second (%v): want in the first alone, and b.txt's in the second",
			loose(first.ID, "dir/x.txt"), loose(second.ID, "dir/x.txt"), loose(second.ID, "b.txt"))
	}
	waited := make(chan error, 1)
	go func() { waited <- store.Wait(ctx, second.ID) }()
	select {
	case err := <-waited:
		t.Fatalf("the second recorded (%v) before the snapshot it borrows from", err)
	case <-time.After(50 * time.Millisecond):
	}
	open()
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	selfContained(t, store, wt, second.ID, first.ID, "dir/x.txt", "b.txt")
}

// TestLenderNotPrunedWhileLent: the snapshot a snapshot being finished
// borrows from is kept past the store's limits until the borrower is
// recorded, and pruned after.
func TestLenderNotPrunedWhileLent(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, false)
	store := openStore(t, recovery.Limits{MaxCount: 1}, nil)
	write(t, filepath.Join(wt, "a.txt"), "first\n", 0o644)
	first, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	open := holdNext(store)
	defer open()
	write(t, filepath.Join(wt, "a.txt"), "second\n", 0o644)
	second := takeShell(t, store, wt, "rm a.txt")
	if _, err := store.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(store.Dir(), first.ID)); err != nil {
		t.Fatalf("the lender pruned while lent: %v", err)
	}
	open()
	if err := store.Wait(ctx, second.ID); err != nil {
		t.Fatal(err)
	}
	res, err := store.Prune(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(store.Dir(), first.ID)); !os.IsNotExist(err) || res.Kept != 1 {
		t.Fatalf("after the borrower was recorded: the lender %v, %d kept; want it pruned, one kept", err, res.Kept)
	}
}

// TestLenderFailsBorrowerToo: a snapshot whose lender could not be
// recorded (its objects gone with it) is not recorded either, says why,
// and leaves nothing behind. Both are asked after their finishing ended
// (Close waits for it): Wait still says why each failed (it once said
// nil for an id no longer being finished, which a loaded machine's
// scheduling hit now and then: issue 40 item 11).
func TestLenderFailsBorrowerToo(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, false)
	store := openStore(t, recovery.Limits{}, nil)
	open := holdNext(store)
	defer open()
	write(t, filepath.Join(wt, "a.txt"), "first\n", 0o644)
	first := takeShell(t, store, wt, "git stash")
	write(t, filepath.Join(wt, "b.txt"), "second\n", 0o644)
	second := takeShell(t, store, wt, "git reset --hard")
	if err := os.RemoveAll(filepath.Join(store.Dir(), first.ID+".tmp")); err != nil {
		t.Fatal(err)
	}
	open()
	if err := store.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := store.Wait(ctx, first.ID); err == nil {
		t.Fatal("the lender recorded without its directory")
	}
	if err := store.Wait(ctx, second.ID); err == nil || !strings.Contains(err.Error(), first.ID) {
		t.Fatalf("the borrower: %v, want an error naming %s", err, first.ID)
	}
	entries, err := os.ReadDir(store.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}
