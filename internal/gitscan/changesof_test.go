package gitscan_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
)

// TestChangesOfIsChanges: a scan over the files changed since the last
// answer (ChangesOf) says what a whole scan says, over every shape such a
// change takes; and where the last answer cannot stand for the rest
// (HEAD moved, the list cut), it is a whole scan.
func TestChangesOfIsChanges(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		before func(t *testing.T, wt string) // the state the last answer saw
		change func(t *testing.T, wt string) // then, only the scoped paths change
		scope  []string
	}{
		{"an edit reverted", func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{1: "edited"}))
		}, func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, nil))
		}, []string{"f.txt"}},
		{"a new file, deep", func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "lib", "a.go"), "package lib\n\nfunc A() int { return 2 }\n")
		}, func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "new", "deep", "n.go"), "package n\n")
		}, []string{"new/deep/n.go"}},
		{"a deletion, and an ignored file", func(t *testing.T, wt string) {}, func(t *testing.T, wt string) {
			mustRemove(t, filepath.Join(wt, "f.txt"))
			gittest.WriteFile(t, filepath.Join(wt, "debug.log"), "ignored\n")
		}, []string{"f.txt", "debug.log"}},
		{"staged, then edited again", func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{3: "staged"}))
			gittest.Git(t, wt, "add", "f.txt")
		}, func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{3: "staged", 4: "then"}))
		}, []string{"f.txt"}},
		{"committed on the branch, then edited again", func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{2: "committed"}))
			gittest.Git(t, wt, "commit", "-q", "-am", "on the branch")
			gittest.WriteFile(t, filepath.Join(wt, "lib", "a.go"), "package lib\n\nfunc A() int { return 3 }\n")
		}, func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{2: "committed", 9: "again"}))
		}, []string{"f.txt"}},
		{"a file turned into a directory", func(t *testing.T, wt string) {}, func(t *testing.T, wt string) {
			mustRemove(t, filepath.Join(wt, "f.txt"))
			gittest.WriteFile(t, filepath.Join(wt, "f.txt", "inner.txt"), "now a directory\n")
		}, []string{"f.txt"}},
		{"a name that is a pathspec's magic", func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "lib", "a.go"), "package lib\n\nfunc A() int { return 4 }\n")
		}, func(t *testing.T, wt string) {
			gittest.WriteFile(t, filepath.Join(wt, "*.go"), "a star\n")
		}, []string{"*.go"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newRunner(t, gitscan.RunnerConfig{})
			r := newRepo(t)
			wt := r.worktree("a")
			tc.before(t, wt)
			// A steady answer, as the scanner has one: the second scan of
			// the worktree, its base and branch commits known.
			var prev gitscan.Changes
			for range 2 {
				var err error
				if prev, err = g.Changes(ctx, wt, gitscan.ChangesOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			tc.change(t, wt)
			n := g.Processes()
			got, err := g.ChangesOf(ctx, prev, tc.scope, gitscan.ChangesOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if p := g.Processes() - n; p != 2 {
				t.Errorf("a scoped scan ran %d git processes, want 2 (rev-parse, status over the scope)", p)
			}
			want, err := g.Changes(ctx, wt, gitscan.ChangesOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sameChanges(t, got, want)
		})
	}
}

// TestChangesOfReadsTheScope: a change outside the scope is left for a
// whole scan; HEAD moved since the last answer, or that answer cut, the
// scan is a whole one.
func TestChangesOfReadsTheScope(t *testing.T) {
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{})
	r := newRepo(t)
	wt := r.worktree("a")
	prev, err := g.Changes(ctx, wt, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, map[int]string{1: "in scope"}))
	gittest.WriteFile(t, filepath.Join(wt, "elsewhere.txt"), "not reported\n")
	got, err := g.ChangesOf(ctx, prev, []string{"f.txt"}, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Files, []string{"f.txt"}) {
		t.Errorf("scoped scan lists %v, want [f.txt] alone", got.Files)
	}

	for _, tc := range []struct {
		name string
		prev func() gitscan.Changes
	}{
		{"HEAD moved", func() gitscan.Changes {
			gittest.Git(t, wt, "add", "elsewhere.txt")
			gittest.Git(t, wt, "commit", "-q", "-m", "HEAD moves")
			return got
		}},
		{"the last answer cut", func() gitscan.Changes {
			c, err := g.Changes(ctx, wt, gitscan.ChangesOptions{MaxFiles: 1})
			if err != nil {
				t.Fatal(err)
			}
			gittest.WriteFile(t, filepath.Join(wt, "lib", "a.go"), "package lib\n\nfunc A() int { return 9 }\n")
			return c
		}},
	} {
		p := tc.prev()
		got, err := g.ChangesOf(ctx, p, []string{"f.txt"}, gitscan.ChangesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := g.Changes(ctx, wt, gitscan.ChangesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(tc.name, func(t *testing.T) { sameChanges(t, got, want) })
	}
}

func sameChanges(t *testing.T, got, want gitscan.Changes) {
	t.Helper()
	if !slices.Equal(got.Files, want.Files) || !slices.Equal(got.States, want.States) || got.Total != want.Total ||
		got.Head != want.Head || got.MergeBase != want.MergeBase || got.Branch != want.Branch || got.Root != want.Root || got.Cut != want.Cut {
		t.Errorf("scoped scan\n%+v\nwhole scan\n%+v", got, want)
	}
}
