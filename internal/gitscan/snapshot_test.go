package gitscan_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/fifotest"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/safefile"
)

// TestSnapshotIsTheWorkingTree holds a snapshot to the files on disk: a
// same-size edit right after checkout (in the index's own tick, which git
// tells apart only by the index file's time), a new file, a deletion, a
// staged file; not an ignored one. And a second snapshot of an unchanged
// worktree is the same commit: the merge cache's key.
func TestSnapshotIsTheWorkingTree(t *testing.T) {
	sc := newScratch(t)
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{})
	r := newRepo(t)
	a := r.worktree("a")
	gittest.WriteFile(t, filepath.Join(a, "lib", "a.go"), "package lib\n\nfunc A() int { return 2 }\n") // the same size
	gittest.WriteFile(t, filepath.Join(a, "new.go"), "package x\n")
	gittest.WriteFile(t, filepath.Join(a, "staged.go"), "package s\n")
	gittest.Git(t, a, "add", "staged.go")
	gittest.WriteFile(t, filepath.Join(a, "debug.log"), "ignored\n")
	if err := os.Remove(filepath.Join(a, "f.txt")); err != nil {
		t.Fatal(err)
	}
	before := r.fingerprint(a)
	s, err := g.Snapshot(ctx, a, sc)
	if err != nil {
		t.Fatal(err)
	}
	if r.fingerprint(a) != before {
		t.Fatal("the snapshot changed the worktree, its index, a ref or the stash")
	}
	if head := gittest.Git(t, a, "rev-parse", "HEAD"); s.Head != head || sgit(t, sc, a, "rev-parse", s.Commit+"^") != head {
		t.Errorf("snapshot head %s, parent of its commit %s; want HEAD %s", s.Head, sgit(t, sc, a, "rev-parse", s.Commit+"^"), head)
	}
	for _, f := range []string{"lib/a.go", "new.go", "staged.go"} {
		if got, want := sgit(t, sc, a, "rev-parse", s.Commit+":"+f), gittest.Git(t, a, "hash-object", f); got != want {
			t.Errorf("%s in the snapshot is %s, on disk %s", f, got, want)
		}
	}
	files := sgit(t, sc, a, "ls-tree", "-r", "--name-only", s.Tree)
	if want := ".gitignore\nlib/a.go\nnew.go\nstaged.go"; files != want {
		t.Errorf("snapshot tree holds\n%s\nwant\n%s", files, want)
	}
	again, err := g.Snapshot(ctx, a, sc)
	if err != nil {
		t.Fatal(err)
	}
	if again != s {
		t.Errorf("an unchanged worktree snapshot twice: %+v, then %+v", s, again)
	}
	if strings.Contains(gittest.Git(t, a, "for-each-ref"), s.Commit) {
		t.Error("a ref points at the snapshot")
	}
}

// TestSnapshotSeesARacyEdit: a same-size edit within the second the
// checkout wrote the index matches the index entry's stat data, as git
// compares it here (seconds); git finds the edit only because the entry is
// as new as the index file itself ("racily clean"). So the copied index
// must keep the real one's time: a copy stamped a second later hides the
// edit from the snapshot.
func TestSnapshotSeesARacyEdit(t *testing.T) {
	sc := newScratch(t)
	g := newRunner(t, gitscan.RunnerConfig{})
	r := newRepo(t)
	wt := r.worktree("a")
	gittest.WriteFile(t, filepath.Join(wt, "lib", "a.go"), "package lib\n\nfunc A() int { return 2 }\n") // the same size
	idx, err := os.Stat(gittest.Git(t, wt, "rev-parse", "--path-format=absolute", "--git-path", "index"))
	if err != nil {
		t.Fatal(err)
	}
	// Not a measure of speed: the copy must be made in a later second
	// than the index was written, as a scan a moment later makes it.
	time.Sleep(time.Until(idx.ModTime().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
	s, err := g.Snapshot(context.Background(), wt, sc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sgit(t, sc, wt, "rev-parse", s.Commit+":lib/a.go"), gittest.Git(t, wt, "hash-object", "lib/a.go"); got != want {
		t.Fatalf("lib/a.go in the snapshot is %s, on disk %s", got, want)
	}
}

// TestSnapshotRefusesAHostileIndex: a FIFO put where the worktree's index
// is (the path a hook's cwd can lead the scanner to), or a symlink to one
// (git's rev-parse resolves the link, so the FIFO is what is opened), is
// refused at once by the safe open, never waited on.
func TestSnapshotRefusesAHostileIndex(t *testing.T) {
	sc := newScratch(t)
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{})
	for _, kind := range []string{"fifo", "symlink to a fifo"} {
		t.Run(kind, func(t *testing.T) {
			r := newRepo(t)
			a := r.worktree("a")
			index := gittest.Git(t, a, "rev-parse", "--path-format=absolute", "--git-path", "index")
			if err := os.Remove(index); err != nil {
				t.Fatal(err)
			}
			switch kind {
			case "fifo":
				fifotest.Make(t, index)
			case "symlink to a fifo":
				fifo := filepath.Join(t.TempDir(), "fifo")
				fifotest.Make(t, fifo)
				if err := os.Symlink(fifo, index); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := g.Snapshot(ctx, a, sc); err == nil || !errors.Is(err, safefile.ErrNotRegular) {
				t.Errorf("snapshot over a %s index: %v, want refused as not a regular file", kind, err)
			}
		})
	}
}

// TestSnapshotListedIsSnapshot: a snapshot taken from a scan's list of
// changed files is the same commit as one of the whole working tree, over
// every shape a worktree's changes take, and leaves the worktree, its
// index, refs and stash as they were: four git processes (three when
// nothing is uncommitted), as many as the whole tree's. Where the list is
// cut at its bound the whole tree is taken: the same commit again.
func TestSnapshotListedIsSnapshot(t *testing.T) {
	sc := newScratch(t)
	ctx := context.Background()
	cases := []struct {
		name     string
		maxFiles int
		change   func(t *testing.T, wt string)
	}{
		{"nothing changed", 0, func(t *testing.T, wt string) {}},
		{"edits, a new file, a staged one, a deletion, an ignored file", 0, func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "lib", "a.go"), "package lib\n\nfunc A() int { return 2 }\n")
			gittest.WriteFile(t, filepath.Join(wt, "new", "deep", "n.go"), "package n\n")
			gittest.WriteFile(t, filepath.Join(wt, "staged.go"), "package s\n")
			gittest.Git(t, wt, "add", "staged.go")
			gittest.WriteFile(t, filepath.Join(wt, "debug.log"), "ignored\n")
			mustRemove(t, filepath.Join(wt, "f.txt"))
		}},
		{"committed on the branch, then changed again", 0, func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{2: "committed"}))
			gittest.Git(t, wt, "commit", "-q", "-am", "on the branch")
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{2: "committed", 9: "again"}))
		}},
		{"staged, then modified again", 0, func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{3: "staged"}))
			gittest.Git(t, wt, "add", "f.txt")
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{3: "staged", 4: "then"}))
		}},
		{"a deletion staged, a rename staged", 0, func(t *testing.T, wt string) {
			gittest.Git(t, wt, "rm", "-q", ".gitignore")
			gittest.Git(t, wt, "mv", "lib/a.go", "lib/b.go")
		}},
		{"a file turned into a directory", 0, func(t *testing.T, wt string) {
			mustRemove(t, filepath.Join(wt, "f.txt"))
			gittest.WriteFile(t, filepath.Join(wt, "f.txt", "inner.txt"), "now a directory\n")
		}},
		{"a directory turned into a file", 0, func(t *testing.T, wt string) {
			if err := os.RemoveAll(filepath.Join(wt, "lib")); err != nil {
				t.Fatal(err)
			}
			gittest.WriteFile(t, filepath.Join(wt, "lib"), "now a file\n")
		}},
		{"a symlink and an executable bit", 0, func(t *testing.T, wt string) {
			if err := os.Symlink("f.txt", filepath.Join(wt, "link")); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(wt, "lib", "a.go"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"a nested repository with a commit", 0, func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{5: "beside"}))
			nested := filepath.Join(wt, "nested")
			gittest.Git(t, "", "init", "-q", nested)
			gittest.WriteFile(t, filepath.Join(nested, "x.txt"), "inside\n")
			gittest.Git(t, nested, "add", "x.txt")
			gittest.Git(t, nested, "commit", "-q", "-m", "nested")
		}},
		{"a list cut at its bound", 1, func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{6: "cut"}))
			gittest.WriteFile(t, filepath.Join(wt, "z.txt"), "left out of the list\n")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newRunner(t, gitscan.RunnerConfig{})
			r := newRepo(t)
			wt := r.worktree("a")
			tc.change(t, wt)
			ch, err := g.Changes(ctx, wt, gitscan.ChangesOptions{MaxFiles: tc.maxFiles})
			if err != nil {
				t.Fatal(err)
			}
			before := r.fingerprint(wt)
			n := g.Processes()
			listed, err := g.SnapshotListed(ctx, ch, sc)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := g.Processes()-n, int64(4); got != want && (got != 3 || tc.name != "nothing changed") {
				t.Errorf("the listed snapshot ran %d git processes, want %d", got, want)
			}
			whole, err := g.Snapshot(ctx, wt, sc)
			if err != nil {
				t.Fatal(err)
			}
			if r.fingerprint(wt) != before {
				t.Fatal("a snapshot changed the worktree, its index, a ref or the stash")
			}
			if listed != whole {
				t.Errorf("from the list %+v (tree %s), of the whole tree %+v (tree %s)", listed,
					sgit(t, sc, wt, "ls-tree", "-r", listed.Tree), whole, sgit(t, sc, wt, "ls-tree", "-r", whole.Tree))
			}
		})
	}
}

// TestSnapshotListedReadsTheList: the snapshot from a scan's list hashes
// the listed files only, so a file changed after the scan is left for the
// next scan; and where HEAD moved since the scan, the list is not the
// working tree's any more and the whole tree is taken.
func TestSnapshotListedReadsTheList(t *testing.T) {
	sc := newScratch(t)
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{})
	r := newRepo(t)
	wt := r.worktree("a")
	gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{1: "scanned"}))
	ch, err := g.Changes(ctx, wt, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, filepath.Join(wt, "later.txt"), "after the scan\n")
	s, err := g.SnapshotListed(ctx, ch, sc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sgit(t, sc, wt, "ls-tree", "-r", "--name-only", s.Tree), ".gitignore\nf.txt\nlib/a.go"; got != want {
		t.Errorf("the listed snapshot holds\n%s\nwant the scan's files only\n%s", got, want)
	}
	if got, want := sgit(t, sc, wt, "rev-parse", s.Commit+":f.txt"), gittest.Git(t, wt, "hash-object", "f.txt"); got != want {
		t.Errorf("f.txt in the snapshot is %s, on disk %s", got, want)
	}

	gittest.Git(t, wt, "add", "later.txt")
	gittest.Git(t, wt, "commit", "-q", "-m", "HEAD moves after the scan")
	s, err = g.SnapshotListed(ctx, ch, sc)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := g.Snapshot(ctx, wt, sc)
	if err != nil {
		t.Fatal(err)
	}
	if s != whole {
		t.Errorf("HEAD moved since the scan: from the list %+v, of the whole tree %+v", s, whole)
	}
}

func mustRemove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}
