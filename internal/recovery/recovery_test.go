package recovery_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/recovery"
)

// TestDestroyedWorkComesBack takes a snapshot, runs the real destructive
// command, and restores: every file lost comes back as it was (content,
// mode, link target), untracked ones included; the snapshot left the
// repository's git directory byte-identical (objects, index and its
// modification time, refs, stash, config, HEAD).
func TestDestroyedWorkComesBack(t *testing.T) {
	// Work every case starts from: an edit of a tracked file, a mode
	// change, a staged new file, untracked files (one 0640, one in a new
	// directory, a link), an ignored file.
	work := func(t *testing.T, wt string) {
		write(t, filepath.Join(wt, "a.txt"), "a one\na two\nmine\n", 0o644)
		if err := os.Chmod(filepath.Join(wt, "b.txt"), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(wt, "dir", "x.txt"), "x edited\n", 0o644)
		write(t, filepath.Join(wt, "staged.txt"), "staged\n", 0o644)
		git(t, wt, "add", "staged.txt")
		write(t, filepath.Join(wt, "notes.txt"), "untracked\n", 0o640)
		write(t, filepath.Join(wt, "new", "deep", "n.txt"), "deep\n", 0o600)
		write(t, filepath.Join(wt, "dir", "u.txt"), "untracked in dir\n", 0o644)
		if err := os.Symlink("notes.txt", filepath.Join(wt, "notes.link")); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(wt, "build.log"), "ignored\n", 0o644)
	}
	cases := []struct {
		name    string
		destroy string
		lost    []string // files the command destroys, restored
		force   bool     // the command wrote new content over a lost file
		run     func(t *testing.T, wt string)
	}{
		{name: "checkout .", destroy: "git checkout .", lost: []string{"a.txt", "b.txt", "dir/x.txt"}},
		{name: "checkout -- f", destroy: "git checkout -- a.txt", lost: []string{"a.txt"}},
		{name: "restore f", destroy: "git restore dir/x.txt", lost: []string{"dir/x.txt"}},
		{name: "reset --hard", destroy: "git reset -q --hard", lost: []string{"a.txt", "b.txt", "dir/x.txt", "staged.txt"}},
		{name: "stash, stash drop", destroy: "git stash -q && git stash drop -q", lost: []string{"a.txt", "b.txt", "dir/x.txt", "staged.txt"}},
		{name: "clean -fdx", destroy: "git clean -q -fdx", lost: []string{"notes.txt", "notes.link", "new/deep/n.txt", "dir/u.txt"}},
		{name: "rm f", destroy: "rm notes.txt a.txt", lost: []string{"notes.txt", "a.txt"}},
		{name: "rm -rf dir", destroy: "rm -rf dir new", lost: []string{"dir/x.txt", "dir/y.txt", "dir/u.txt", "new/deep/n.txt"}},
		{name: "sed -i", destroy: "sed -i s/mine/theirs/ a.txt", lost: []string{"a.txt"}, force: true},
		{name: "mv over", destroy: "mv notes.txt a.txt", lost: []string{"a.txt", "notes.txt"}, force: true},
		{name: "cp over", destroy: "cp b.txt dir/x.txt", lost: []string{"dir/x.txt"}, force: true},
		{name: "> redirect", destroy: ": > notes.txt", lost: []string{"notes.txt"}, force: true},
		{name: "write over another's edit", lost: []string{"a.txt"}, force: true, run: func(t *testing.T, wt string) {
			write(t, filepath.Join(wt, "a.txt"), "the other session's version\n", 0o644)
		}},
		{name: "branch switch", destroy: "git checkout -q -f other", lost: []string{"a.txt", "b.txt", "dir/x.txt", "staged.txt"}, force: true},
	}
	ctx := context.Background()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			main, wt := newRepo(t, i%2 == 1)
			work(t, wt)
			store := openStore(t, recovery.Limits{}, nil)
			want := map[string]string{}
			for _, p := range c.lost {
				want[p] = state(t, filepath.Join(wt, p))
			}
			before := fingerprint(t, main)
			snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Agent: "claude-code", Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Tool: "Bash", Command: c.destroy}, Paths: c.lost[:1]})
			if err != nil {
				t.Fatal(err)
			}
			if after := fingerprint(t, main); after != before {
				t.Fatalf("the snapshot changed the repository:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if snap.Files[0].Path != c.lost[0] {
				t.Errorf("first file listed %q, want the hinted %q", snap.Files[0].Path, c.lost[0])
			}
			if c.run != nil {
				c.run(t, wt)
			} else {
				sh(t, wt, c.destroy)
			}
			for _, p := range c.lost {
				if state(t, filepath.Join(wt, p)) == want[p] {
					t.Fatalf("%s: %s did not destroy %s", c.name, c.destroy, p)
				}
			}
			_, err = store.Restore(ctx, snap.ID, recovery.RestoreOptions{Paths: c.lost})
			var changed *recovery.ChangedError
			if c.force {
				if !errors.As(err, &changed) {
					t.Fatalf("restore over new content: %v, want a ChangedError", err)
				}
				_, err = store.Restore(ctx, snap.ID, recovery.RestoreOptions{Paths: c.lost, Force: true})
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range c.lost {
				if got := state(t, filepath.Join(wt, p)); got != want[p] {
					t.Errorf("%s restored as %s, want %s", p, got, want[p])
				}
			}
		})
	}
}

// TestRestoreAll restores every file a snapshot lists after git clean
// and reset: untracked, staged and modified come back, the ignored file
// does not (it is not kept), and the index is left to the user.
func TestRestoreAll(t *testing.T) {
	main, wt := newRepo(t, false)
	write(t, filepath.Join(wt, "a.txt"), "mine\n", 0o644)
	write(t, filepath.Join(wt, "u.txt"), "untracked\n", 0o755)
	write(t, filepath.Join(wt, "x.log"), "ignored\n", 0o644)
	store := openStore(t, recovery.Limits{}, nil)
	ctx := context.Background()
	snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range snap.Files {
		paths = append(paths, f.Path+" "+f.State)
	}
	if want := []string{"a.txt modified", "u.txt added"}; !slices.Equal(paths, want) {
		t.Errorf("files %q, want %q", paths, want)
	}
	sh(t, wt, "git reset -q --hard && git clean -q -fdx")
	index := state(t, filepath.Join(main, ".git", "index"))
	res, err := store.Restore(ctx, snap.ID, recovery.RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Restored, []string{"a.txt", "u.txt"}) {
		t.Errorf("restored %q", res.Restored)
	}
	if got := state(t, filepath.Join(wt, "u.txt")); got != state(t, filepath.Join(wt, "u.txt")) || got != `-rwxr-xr-x "untracked\n"` {
		t.Errorf("u.txt %s", got)
	}
	if state(t, filepath.Join(wt, "x.log")) != "absent" {
		t.Error("an ignored file came back: it is not kept")
	}
	if state(t, filepath.Join(main, ".git", "index")) != index {
		t.Error("restore wrote the index")
	}
	// A second restore finds everything as the snapshot has it.
	res, err = store.Restore(ctx, snap.ID, recovery.RestoreOptions{})
	if err != nil || len(res.Restored) != 0 || len(res.Unchanged) != 2 {
		t.Errorf("second restore: %+v, %v", res, err)
	}
	diffs, err := store.Diff(ctx, snap.ID, nil)
	if err != nil || len(diffs) != 2 || diffs[0].State != recovery.DiffSame {
		t.Errorf("diff %+v, %v", diffs, err)
	}
}

// TestRestoreRefusesAndTo: a file written since the snapshot is refused
// and nothing is written (not even the other files asked for); --to
// writes the snapshot's files elsewhere and leaves the worktree alone.
func TestRestoreRefusesAndTo(t *testing.T) {
	_, wt := newRepo(t, true)
	write(t, filepath.Join(wt, "a.txt"), "mine\n", 0o644)
	write(t, filepath.Join(wt, "u.txt"), "untracked\n", 0o644)
	store := openStore(t, recovery.Limits{}, nil)
	ctx := context.Background()
	snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: filepath.Join(wt, "dir"), Trigger: recovery.Trigger{Kind: recovery.TriggerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Worktree != wt {
		t.Errorf("worktree %q, want the top %q", snap.Worktree, wt)
	}
	write(t, filepath.Join(wt, "a.txt"), "newer work\n", 0o644)
	if err := os.Remove(filepath.Join(wt, "u.txt")); err != nil {
		t.Fatal(err)
	}
	_, err = store.Restore(ctx, snap.ID, recovery.RestoreOptions{})
	var changed *recovery.ChangedError
	if !errors.As(err, &changed) || !slices.Equal(changed.Paths, []string{"a.txt"}) {
		t.Fatalf("restore: %v, want a.txt refused", err)
	}
	if state(t, filepath.Join(wt, "u.txt")) != "absent" || state(t, filepath.Join(wt, "a.txt")) != `-rw-r--r-- "newer work\n"` {
		t.Error("a refused restore wrote files")
	}
	to := t.TempDir()
	if _, err := store.Restore(ctx, snap.ID, recovery.RestoreOptions{To: to, Paths: []string{"a.txt", "link", "run.sh"}}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"a.txt": `-rw-r--r-- "mine\n"`, "link": "link -> a.txt", "run.sh": `-rwxr-xr-x "#!/bin/sh\necho run\n"`} {
		if got := state(t, filepath.Join(to, p)); got != want {
			t.Errorf("--to %s: %s, want %s", p, got, want)
		}
	}
	if state(t, filepath.Join(wt, "a.txt")) != `-rw-r--r-- "newer work\n"` {
		t.Error("--to wrote the worktree")
	}
	if _, err := store.Restore(ctx, snap.ID, recovery.RestoreOptions{Paths: []string{"../etc"}}); err == nil {
		t.Error("a path outside the worktree was taken")
	}
	if _, err := store.Get(ctx, "../../etc"); !errors.Is(err, recovery.ErrNotFound) {
		t.Errorf("Get of a path: %v", err)
	}
}

// TestRetention: age (an injected clock), count and size each drop the
// oldest snapshots, on Prune and on Open.
func TestRetention(t *testing.T) {
	_, wt := newRepo(t, false)
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	dir := filepath.Join(t.TempDir(), "recovery")
	store, err := recovery.Open(ctx, dir, newRunner(t), recovery.Limits{MaxAge: time.Hour, MaxCount: 3}, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 5 {
		write(t, filepath.Join(wt, "a.txt"), string(rune('a'+i))+"\n", 0o644)
		snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerCLI}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, snap.ID)
		clk.t = clk.t.Add(20 * time.Minute)
	}
	if !slices.IsSorted(ids) {
		t.Errorf("ids %q do not sort by time", ids)
	}
	listed := func() []string {
		list, _, err := store.List(ctx, recovery.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range list {
			got = append(got, s.ID)
		}
		slices.Reverse(got)
		return got
	}
	// Each record held the bounds already (the fifth was taken 80 min
	// after the first, past the hour, and the count keeps 3): Prune has
	// nothing left to drop.
	res, err := store.Prune(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := listed(); !slices.Equal(got, ids[2:]) || res.Dropped != 0 {
		t.Errorf("after age and count: %q (%+v), want %q, none left to Prune", got, res, ids[2:])
	}
	clk.t = clk.t.Add(-20 * time.Minute) // all within the hour: count alone
	store2, err := recovery.Open(ctx, dir, newRunner(t), recovery.Limits{MaxAge: time.Hour, MaxCount: 2}, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	store = store2
	if got := listed(); !slices.Equal(got, ids[3:]) {
		t.Errorf("after Open with count 2: %q, want %q", got, ids[3:])
	}
	list, _, _ := store.List(ctx, recovery.Filter{})
	store3, err := recovery.Open(ctx, dir, nil, recovery.Limits{MaxBytes: list[0].Bytes}, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	store = store3
	if got := listed(); !slices.Equal(got, ids[4:]) {
		t.Errorf("after Open with bytes of one: %q, want %q", got, ids[4:])
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries in the store, want 1", len(entries))
	}
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("store mode %v, %v", info.Mode(), err)
	}
}

// TestSaveTimesOut: a snapshot whose budget cannot be met fails with
// git's timeout and leaves nothing in the store.
func TestSaveTimesOut(t *testing.T) {
	_, wt := newRepo(t, false)
	for i := range 2000 {
		write(t, filepath.Join(wt, "many", string(rune('a'+i%26)), "f"+string(rune('a'+i/26%26))+string(rune('a'+i/676))+".txt"), "x\n", 0o644)
	}
	store := openStore(t, recovery.Limits{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerShell}})
	if gitscan.CodeOf(err) != gitscan.Timeout {
		t.Fatalf("save past its budget: %v, want a timeout", err)
	}
	entries, _ := os.ReadDir(store.Dir())
	if len(entries) != 0 {
		t.Errorf("%d entries left in the store", len(entries))
	}
}

// TestUnbornBranch: a repository with no commit yet is snapshot too
// (every file new, the snapshot a root commit), and rm -rf brings nothing
// lost: the files come back byte-identical, the repository untouched.
func TestUnbornBranch(t *testing.T) {
	ctx := context.Background()
	wt := filepath.Join(t.TempDir(), "fresh")
	git(t, t.TempDir(), "init", "-q", "-b", "main", wt)
	write(t, filepath.Join(wt, "main.go"), "package main\n", 0o644)
	write(t, filepath.Join(wt, "run.sh"), "#!/bin/sh\n", 0o755)
	write(t, filepath.Join(wt, "staged.txt"), "staged\n", 0o644)
	git(t, wt, "add", "staged.txt")
	want := map[string]string{}
	for _, p := range []string{"main.go", "run.sh", "staged.txt"} {
		want[p] = state(t, filepath.Join(wt, p))
	}
	before := fingerprint(t, wt)
	store := openStore(t, recovery.Limits{}, nil)
	snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Command: "rm -rf ."}})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Head != "" || len(snap.Files) != 3 || snap.Files[0].State != recovery.StateAdded {
		t.Fatalf("snapshot %+v: want no HEAD and three added files", snap)
	}
	if after := fingerprint(t, wt); after != before {
		t.Fatalf("the snapshot changed the repository:\n%s\n%s", before, after)
	}
	sh(t, wt, "rm -f main.go run.sh staged.txt")
	if _, err := store.Restore(ctx, snap.ID, recovery.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		if got := state(t, filepath.Join(wt, p)); got != w {
			t.Errorf("%s restored as %s, want %s", p, got, w)
		}
	}
}

// TestAdoptScanSnapshot: a snapshot the scanner took into its scratch is
// kept as a recovery point (trigger scan) holding what it adds, so it
// restores after the scratch is gone; the same tree again is not kept
// twice; past MaxScanKept of one worktree the oldest goes; the
// repository is untouched.
func TestAdoptScanSnapshot(t *testing.T) {
	ctx := context.Background()
	main, wt := newRepo(t, true)
	write(t, filepath.Join(wt, "a.txt"), "scan saw this\n", 0o644)
	write(t, filepath.Join(wt, "fresh.txt"), "untracked\n", 0o600)
	want := map[string]string{"a.txt": state(t, filepath.Join(wt, "a.txt")), "fresh.txt": state(t, filepath.Join(wt, "fresh.txt"))}
	before := fingerprint(t, main)
	run := newRunner(t)
	scratchDir := filepath.Join(t.TempDir(), "scratch")
	scratch, err := gitscan.NewScratch(scratchDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := run.Snapshot(ctx, wt, scratch)
	if err != nil {
		t.Fatal(err)
	}
	env, err := scratch.Env(g.GitDir)
	if err != nil {
		t.Fatal(err)
	}
	store := openStore(t, recovery.Limits{}, nil)
	snap, ok, err := store.Adopt(ctx, g, env)
	if err != nil || !ok {
		t.Fatalf("adopt: %v, %v", ok, err)
	}
	if snap.Trigger.Kind != recovery.TriggerScan || len(snap.Files) < 2 {
		t.Errorf("adopted %+v", snap)
	}
	if _, ok, err := store.Adopt(ctx, g, env); ok || err != nil {
		t.Errorf("the same tree adopted again: %v, %v", ok, err)
	}
	if after := fingerprint(t, main); after != before {
		t.Fatalf("adopting changed the repository")
	}
	if err := os.RemoveAll(scratchDir); err != nil {
		t.Fatal(err)
	}
	sh(t, wt, "git checkout -q . && git clean -q -fd")
	if _, err := store.Restore(ctx, snap.ID, recovery.RestoreOptions{Paths: []string{"a.txt", "fresh.txt"}}); err != nil {
		t.Fatal(err)
	}
	for p, w := range want {
		if got := state(t, filepath.Join(wt, p)); got != w {
			t.Errorf("%s restored as %s, want %s", p, got, w)
		}
	}

	scratch, _ = gitscan.NewScratch(scratchDir, 0)
	env, _ = scratch.Env(g.GitDir)
	for i := range recovery.MaxScanKept + 2 {
		write(t, filepath.Join(wt, "a.txt"), fmt.Sprintf("round %d\n", i), 0o644)
		g, err := run.Snapshot(ctx, wt, scratch)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := store.Adopt(ctx, g, env); !ok || err != nil {
			t.Fatalf("round %d: %v, %v", i, ok, err)
		}
	}
	list, _, err := store.List(ctx, recovery.Filter{})
	if err != nil || len(list) != recovery.MaxScanKept {
		t.Fatalf("%d scan snapshots kept (%v), want %d", len(list), err, recovery.MaxScanKept)
	}
}
