package gitscan_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
)

// benchPair is a generated repository of about 2,000 files in 40
// directories, and two worktrees that each changed five files, one of
// them the same line of the same file: a conflicting pair.
func benchPair(b *testing.B) (r *repo, a, c string) {
	b.Helper()
	r = &repo{tb: b, dir: b.TempDir()}
	r.main = filepath.Join(r.dir, "main")
	gittest.Git(b, "", "init", "-q", "-b", "main", r.main)
	for d := range 40 {
		for f := range 50 {
			gittest.WriteFile(b, filepath.Join(r.main, fmt.Sprintf("pkg%02d", d), fmt.Sprintf("file%02d.go", f)), lines(40, nil))
		}
	}
	gittest.Git(b, r.main, "add", "-A")
	gittest.Git(b, r.main, "commit", "-q", "-m", "generated")
	a, c = r.worktree("a"), r.worktree("c")
	// A checkout writes its files and its index in one second, which
	// leaves every entry racily clean: git add would hash all 2,000
	// files. A worktree in use has had its index refreshed since (the
	// agent's own git status, add or commit): so here, a second later.
	time.Sleep(1100 * time.Millisecond)
	for _, wt := range []string{a, c} {
		gittest.Git(b, wt, "update-index", "-q", "--refresh")
	}
	for i := range 5 {
		gittest.WriteFile(b, filepath.Join(a, fmt.Sprintf("pkg%02d/file00.go", i)), lines(40, map[int]string{3: "a"}))
		gittest.WriteFile(b, filepath.Join(c, fmt.Sprintf("pkg%02d/file00.go", i+4)), lines(40, map[int]string{3: "c"}))
	}
	return r, a, c
}

// BenchmarkPredictMerge is the scanner's whole prediction for one pair,
// as it pays it on a cache miss: two working-tree snapshots from the
// scans' lists of changed files (each a copy of the index, git
// update-index of the listed files, write-tree, commit-tree) and git
// merge-tree. The scans themselves are the scanner's anyway, taken once.
func BenchmarkPredictMerge(b *testing.B) {
	scr := newScratch(b)
	_, a, c := benchPair(b)
	g := newRunner(b, gitscan.RunnerConfig{})
	ctx := context.Background()
	ca, err := g.Changes(ctx, a, gitscan.ChangesOptions{})
	if err != nil {
		b.Fatal(err)
	}
	cc, err := g.Changes(ctx, c, gitscan.ChangesOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		predictPair(b, g, scr, func() (gitscan.Snapshot, error) { return g.SnapshotListed(ctx, ca, scr) },
			func() (gitscan.Snapshot, error) { return g.SnapshotListed(ctx, cc, scr) })
	}
}

// BenchmarkPredictMergeWholeTree is BenchmarkPredictMerge with snapshots
// of the whole working tree (git add -A through the copied index), as a
// snapshot is taken where no scan's list stands for the tree.
func BenchmarkPredictMergeWholeTree(b *testing.B) {
	scr := newScratch(b)
	_, a, c := benchPair(b)
	g := newRunner(b, gitscan.RunnerConfig{})
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		predictPair(b, g, scr, func() (gitscan.Snapshot, error) { return g.Snapshot(ctx, a, scr) },
			func() (gitscan.Snapshot, error) { return g.Snapshot(ctx, c, scr) })
	}
}

// predictPair snapshots both sides and merges them, as the scanner does
// on a cache miss; the pair must conflict.
func predictPair(b *testing.B, g *gitscan.Runner, scr *gitscan.Scratch, snapA, snapC func() (gitscan.Snapshot, error)) {
	sa, err := snapA()
	if err != nil {
		b.Fatal(err)
	}
	sc, err := snapC()
	if err != nil {
		b.Fatal(err)
	}
	m, err := g.PredictMerge(context.Background(), scr, sa, sc)
	if err != nil || !m.Conflict {
		b.Fatalf("merge %+v, %v: want a conflict", m, err)
	}
}

// BenchmarkMergeTreeByHand is git merge-tree alone on the same pair's
// snapshots, run by hand: the floor under BenchmarkPredictMerge.
func BenchmarkMergeTreeByHand(b *testing.B) {
	scr := newScratch(b)
	_, a, c := benchPair(b)
	g := newRunner(b, gitscan.RunnerConfig{})
	ctx := context.Background()
	sa, err := g.Snapshot(ctx, a, scr)
	if err != nil {
		b.Fatal(err)
	}
	sc, err := g.Snapshot(ctx, c, scr)
	if err != nil {
		b.Fatal(err)
	}
	env, err := scr.Env(sa.GitDir)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command("git", "-C", a, "merge-tree", "--write-tree", "--name-only", sa.Commit, sc.Commit)
		cmd.Env = append(os.Environ(), env...)
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
