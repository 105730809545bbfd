package gitscan_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
)

// TestChangesSteadyScanRunsTwoProcesses: a worktree scanned again and
// again costs two git processes a scan once its base and its branch's
// commits are known (rev-parse, status), with the same answer as a
// runner that keeps nothing; a commit on the branch, the base moving, the
// default base renamed, a base given that no longer resolves are each seen
// at the next scan.
func TestChangesSteadyScanRunsTwoProcesses(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	a := r.worktree("a")
	gittest.WriteFile(t, filepath.Join(a, "committed.txt"), "c\n")
	gittest.Git(t, a, "add", "committed.txt")
	gittest.Git(t, a, "commit", "-q", "-m", "c")
	gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{3: "unstaged"}))

	g := newRunner(t, gitscan.RunnerConfig{})
	// fresh answers as a runner that keeps nothing gives them.
	fresh := func(o gitscan.ChangesOptions) gitscan.Changes {
		t.Helper()
		c, err := newRunner(t, gitscan.RunnerConfig{}).Changes(ctx, a, o)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	scan := func(o gitscan.ChangesOptions) (gitscan.Changes, int64) {
		t.Helper()
		before := g.Processes()
		c, err := g.Changes(ctx, a, o)
		if err != nil {
			t.Fatal(err)
		}
		return c, g.Processes() - before
	}
	same := func(step string, o gitscan.ChangesOptions, wantProcs int64) {
		t.Helper()
		got, procs := scan(o)
		if want := fresh(o); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", step, got, want)
		}
		if wantProcs > 0 && procs != wantProcs {
			t.Errorf("%s: %d git processes, want %d", step, procs, wantProcs)
		}
	}

	first, procs := scan(gitscan.ChangesOptions{})
	if procs < 5 {
		t.Errorf("a first scan ran %d git processes: the base and the branch's commits must be asked", procs)
	}
	if len(first.Files) != 2 || first.MergeBase == "" {
		t.Fatalf("first scan %+v, want committed.txt and f.txt against a merge base", first)
	}
	scan(gitscan.ChangesOptions{}) // the base's commit is learnt
	same("a steady scan", gitscan.ChangesOptions{}, 2)

	// A new commit on the branch: HEAD moved, its commits asked again.
	gittest.WriteFile(t, filepath.Join(a, "second.txt"), "2\n")
	gittest.Git(t, a, "add", "second.txt")
	gittest.Git(t, a, "commit", "-q", "-m", "second")
	same("after a commit on the branch", gitscan.ChangesOptions{}, 4)
	same("steady again", gitscan.ChangesOptions{}, 2)

	// The base moves on: the merge base is asked again, and stays.
	gittest.WriteFile(t, filepath.Join(r.main, "main-only.txt"), "m\n")
	gittest.Git(t, r.main, "add", "main-only.txt")
	gittest.Git(t, r.main, "commit", "-q", "-m", "main moves on")
	same("after the base moved", gitscan.ChangesOptions{}, 4)

	// The default base renamed within the cached base's time: git's
	// refusal of the old name is not the worktree's, the new one is
	// asked.
	gittest.Git(t, r.main, "branch", "-m", "main", "trunk")
	same("after the default base was renamed", gitscan.ChangesOptions{}, 0)
	if c, _ := scan(gitscan.ChangesOptions{}); c.Base != "refs/heads/trunk" {
		t.Errorf("base after the rename %q, want refs/heads/trunk", c.Base)
	}
	gittest.Git(t, r.main, "branch", "-m", "trunk", "main")
	same("the default base renamed back", gitscan.ChangesOptions{}, 0)

	// A base given: cached by its commit as well; once deleted, git's
	// refusal is the answer again, as without a cache.
	gittest.Git(t, r.main, "branch", "feature", "main")
	o := gitscan.ChangesOptions{Base: "feature"}
	scan(o)
	same("a given base, steady", o, 2)
	gittest.Git(t, r.main, "branch", "-D", "feature")
	if _, err := g.Changes(ctx, a, o); err == nil {
		t.Error("a given base that no longer resolves answered")
	}
}

// TestChangesAsksTheBaseOncePerRepository: the default base is the
// repository's, not a worktree's: once one worktree's scan asked it, the
// first scan of another worktree of the same repository asks no more
// (symbolic-ref and worktree list), and answers as a runner that keeps
// nothing; a worktree of another repository asks its own. The first git
// in each directory is a git config (the drivers to turn off, kept
// while the configuration stays: gitenv.go).
func TestChangesAsksTheBaseOncePerRepository(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	a, b := r.worktree("a"), r.worktree("b")
	gittest.WriteFile(t, filepath.Join(b, "b.txt"), "b\n")
	gittest.Git(t, b, "add", "b.txt")
	gittest.Git(t, b, "commit", "-q", "-m", "b")
	other := newRepo(t)
	// A history of its own: two repositories made within one second by
	// newRepo share their commits, and so their root commits, which the
	// runner keeps by HEAD's commit (identity.go) whatever the repository.
	gittest.WriteFile(t, filepath.Join(other.main, "other.txt"), "other\n")
	gittest.Git(t, other.main, "add", "other.txt")
	gittest.Git(t, other.main, "commit", "-q", "-m", "other")

	g := newRunner(t, gitscan.RunnerConfig{})
	first := func(wt string) (gitscan.Changes, int64) {
		t.Helper()
		before := g.Processes()
		c, err := g.Changes(ctx, wt, gitscan.ChangesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want, err := newRunner(t, gitscan.RunnerConfig{}).Changes(ctx, wt, gitscan.ChangesOptions{}); err != nil || !reflect.DeepEqual(c, want) {
			t.Errorf("%s: %+v, want %+v (%v)", wt, c, want, err)
		}
		return c, g.Processes() - before
	}
	// Each first scan of a clone and branch reads its repository's
	// identity besides (identity.go): git config, and git rev-list for
	// the root commit, as these repositories have no remote.
	if _, procs := first(a); procs != 8 {
		t.Errorf("the repository's first scan ran %d git processes, want 8 (rev-parse, symbolic-ref, config, worktree list, merge-base, status; the identity's config, rev-list)", procs)
	}
	// b committed on its branch: rev-parse, merge-base, config, diff, status; the identity's two.
	if c, procs := first(b); procs != 7 || c.Base != "refs/heads/main" || len(c.Files) != 1 {
		t.Errorf("another worktree's first scan: %d git processes, base %q, files %v; want 7, refs/heads/main, [b.txt]", procs, c.Base, c.Files)
	}
	if _, procs := first(other.main); procs != 8 {
		t.Errorf("another repository's first scan ran %d git processes, want 8: its base is its own", procs)
	}
}
