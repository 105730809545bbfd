package gitscan_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
)

// benchPair is a generated repository of about 2,000 files in 40
// directories, and two worktrees that each changed five files, one of
// them the same line of the same file: a conflicting pair.
func benchPair(b *testing.B) (r *repo, a, c string) {
	b.Helper()
	r = &repo{tb: b, dir: b.TempDir()}
	r.main = filepath.Join(r.dir, "main")
	gitIn(b, "", "init", "-q", "-b", "main", r.main)
	for d := range 40 {
		for f := range 50 {
			writeFile(b, filepath.Join(r.main, fmt.Sprintf("pkg%02d", d), fmt.Sprintf("file%02d.go", f)), lines(40, nil))
		}
	}
	gitIn(b, r.main, "add", "-A")
	gitIn(b, r.main, "commit", "-q", "-m", "generated")
	a, c = r.worktree("a"), r.worktree("c")
	// A checkout writes its files and its index in one second, which
	// leaves every entry racily clean: git add would hash all 2,000
	// files. A worktree in use has had its index refreshed since (the
	// agent's own git status, add or commit): so here, a second later.
	time.Sleep(1100 * time.Millisecond)
	for _, wt := range []string{a, c} {
		gitIn(b, wt, "update-index", "-q", "--refresh")
	}
	for i := range 5 {
		writeFile(b, filepath.Join(a, fmt.Sprintf("pkg%02d/file00.go", i)), lines(40, map[int]string{3: "a"}))
		writeFile(b, filepath.Join(c, fmt.Sprintf("pkg%02d/file00.go", i+4)), lines(40, map[int]string{3: "c"}))
	}
	return r, a, c
}

// BenchmarkPredictMerge is the scanner's whole prediction for one pair,
// as it pays it on a cache miss: two working-tree snapshots (each a copy
// of the index, git add -A, write-tree, commit-tree) and git merge-tree.
func BenchmarkPredictMerge(b *testing.B) {
	_, a, c := benchPair(b)
	g := newRunner(b, gitscan.RunnerConfig{})
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		sa, err := g.Snapshot(ctx, a)
		if err != nil {
			b.Fatal(err)
		}
		sc, err := g.Snapshot(ctx, c)
		if err != nil {
			b.Fatal(err)
		}
		m, err := g.PredictMerge(ctx, a, sa.Commit, sc.Commit)
		if err != nil || !m.Conflict {
			b.Fatalf("merge %+v, %v: want a conflict", m, err)
		}
	}
}

// BenchmarkMergeTreeByHand is git merge-tree alone on the same pair's
// snapshots, run by hand: the floor under BenchmarkPredictMerge.
func BenchmarkMergeTreeByHand(b *testing.B) {
	_, a, c := benchPair(b)
	g := newRunner(b, gitscan.RunnerConfig{})
	ctx := context.Background()
	sa, err := g.Snapshot(ctx, a)
	if err != nil {
		b.Fatal(err)
	}
	sc, err := g.Snapshot(ctx, c)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command("git", "-C", a, "merge-tree", "--write-tree", "--name-only", sa.Commit, sc.Commit)
		if err := cmd.Run(); err == nil {
			b.Fatal("merge-tree answered a clean merge, want a conflict (exit 1)")
		}
	}
}

// BenchmarkChanges is one worktree's changes: the scan a mutation asks
// for.
func BenchmarkChanges(b *testing.B) {
	_, a, _ := benchPair(b)
	g := newRunner(b, gitscan.RunnerConfig{})
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := g.Changes(ctx, a, gitscan.ChangesOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
