package gitscan_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/presence/overlap"
	pt "github.com/hall-dev/hall/internal/presence/presencetest"
)

// predict is what the scanner does for a pair, step by step: each side's
// changes, and where they overlap by path, both snapshots merged. It
// returns the overlap as the derivation sees it.
func predict(t *testing.T, g *gitscan.Runner, r *repo, a, b string, opts [2][]pt.Option) (overlap.Found, bool) {
	sc := newScratch(t)
	t.Helper()
	ctx := context.Background()
	before := r.fingerprint(a, b)
	ca, err := g.Changes(ctx, a, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatalf("Changes(a): %v", err)
	}
	cb, err := g.Changes(ctx, b, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatalf("Changes(b): %v", err)
	}
	merges := overlap.MergeMap{}
	if gitscan.FilesOverlap(ca.Files, cb.Files) {
		sa, err := g.Snapshot(ctx, a, sc)
		if err != nil {
			t.Fatalf("Snapshot(a): %v", err)
		}
		sb, err := g.Snapshot(ctx, b, sc)
		if err != nil {
			t.Fatalf("Snapshot(b): %v", err)
		}
		if sa.Head != ca.Head || sb.Head != cb.Head {
			t.Fatalf("snapshot HEADs %s, %s; changes' %s, %s", sa.Head, sb.Head, ca.Head, cb.Head)
		}
		m, err := g.PredictMerge(ctx, sc, sa, sb)
		if err != nil {
			t.Fatalf("PredictMerge: %v", err)
		}
		merges[overlap.MergeKey(a, b)] = overlap.Merge{Conflict: m.Conflict, Files: m.Conflicts, Total: m.ConflictsTotal}
	}
	if after := r.fingerprint(a, b); after != before {
		t.Fatalf("the worktrees, an index, a ref or the stash changed under the scan")
	}
	pa := party("agent-a", r.main, a, gitscan.GitOf(gitscan.Result{Changes: ca}, true), opts[0]...)
	pb := party("agent-b", r.main, b, gitscan.GitOf(gitscan.Result{Changes: cb}, true), opts[1]...)
	return overlap.Between(pa, pb, merges, 0)
}

func party(agent, brain, wt string, g overlap.Git, opts ...pt.Option) overlap.Party {
	rec := pt.Rec(agent, brain, append([]pt.Option{pt.Worktree(wt)}, opts...)...)
	return overlap.PartyOf(&rec, g)
}

func TestOverlapScenarios(t *testing.T) {
	g := newRunner(t, gitscan.RunnerConfig{})
	edit := func(wt string, replace map[int]string) {
		gittest.WriteFile(t, filepath.Join(wt, "f.txt"), lines(20, replace))
	}
	tests := []struct {
		name      string
		setup     func(t *testing.T, r *repo, a, b string)
		opts      func(a, b string) [2][]pt.Option
		wantOK    bool
		verdict   overlap.Verdict
		merge     overlap.MergeState
		files     []string
		conflicts []string
	}{
		{
			name: "edits on different lines of one file",
			setup: func(t *testing.T, r *repo, a, b string) {
				edit(a, map[int]string{2: "a was here"})
				edit(b, map[int]string{18: "b was here"})
			},
			wantOK: true, verdict: overlap.VerdictOverlap, merge: overlap.MergeClean, files: []string{"f.txt"},
		},
		{
			name: "edits on the same lines",
			setup: func(t *testing.T, r *repo, a, b string) {
				edit(a, map[int]string{5: "a's line five"})
				edit(b, map[int]string{5: "b's line five"})
			},
			wantOK: true, verdict: overlap.VerdictConflict, merge: overlap.MergeConflict, files: []string{"f.txt"}, conflicts: []string{"f.txt"},
		},
		{
			name: "one side committed, the other uncommitted",
			setup: func(t *testing.T, r *repo, a, b string) {
				edit(a, map[int]string{5: "a's line five"})
				gittest.Git(t, a, "commit", "-q", "-am", "a")
				edit(b, map[int]string{5: "b's line five"})
			},
			wantOK: true, verdict: overlap.VerdictConflict, merge: overlap.MergeConflict, files: []string{"f.txt"}, conflicts: []string{"f.txt"},
		},
		{
			name: "one side staged, the other committed on different lines",
			setup: func(t *testing.T, r *repo, a, b string) {
				edit(a, map[int]string{1: "a's first"})
				gittest.Git(t, a, "add", "f.txt")
				edit(b, map[int]string{20: "b's last"})
				gittest.Git(t, b, "commit", "-q", "-am", "b")
			},
			wantOK: true, verdict: overlap.VerdictOverlap, merge: overlap.MergeClean, files: []string{"f.txt"},
		},
		{
			name: "a new untracked file on both sides",
			setup: func(t *testing.T, r *repo, a, b string) {
				gittest.WriteFile(t, filepath.Join(a, "new.go"), "package x // a\n")
				gittest.WriteFile(t, filepath.Join(b, "new.go"), "package x // b\n")
			},
			wantOK: true, verdict: overlap.VerdictConflict, merge: overlap.MergeConflict, files: []string{"new.go"}, conflicts: []string{"new.go"},
		},
		{
			name: "ignored files are no change",
			setup: func(t *testing.T, r *repo, a, b string) {
				gittest.WriteFile(t, filepath.Join(a, "debug.log"), "a\n")
				gittest.WriteFile(t, filepath.Join(b, "debug.log"), "b\n")
			},
		},
		{
			name: "a delete against an edit",
			setup: func(t *testing.T, r *repo, a, b string) {
				if err := os.Remove(filepath.Join(a, "lib", "a.go")); err != nil {
					t.Fatal(err)
				}
				gittest.WriteFile(t, filepath.Join(b, "lib", "a.go"), "package lib\n\nfunc A() int { return 2 }\n")
			},
			wantOK: true, verdict: overlap.VerdictConflict, merge: overlap.MergeConflict, files: []string{"lib/a.go"}, conflicts: []string{"lib/a.go"},
		},
		{
			name: "a rename against an edit: git follows the rename",
			setup: func(t *testing.T, r *repo, a, b string) {
				gittest.Git(t, a, "mv", "lib/a.go", "lib/renamed.go")
				gittest.Git(t, a, "commit", "-q", "-m", "rename")
				gittest.WriteFile(t, filepath.Join(b, "lib", "a.go"), "package lib\n\nfunc A() int { return 2 }\n")
			},
			wantOK: true, verdict: overlap.VerdictOverlap, merge: overlap.MergeClean, files: []string{"lib/a.go"},
		},
		{
			name: "a declared directory against a file under it",
			setup: func(t *testing.T, r *repo, a, b string) {
				gittest.WriteFile(t, filepath.Join(b, "lib", "a.go"), "package lib\n\nfunc A() int { return 2 }\n")
			},
			opts:   func(a, b string) [2][]pt.Option { return [2][]pt.Option{{pt.WS("lib")}, nil} },
			wantOK: true, verdict: overlap.VerdictOverlap, merge: overlap.MergeUnknown, files: []string{"lib/a.go"},
		},
		{
			name: "the conflict resolved: one side reverts, the overlap closes",
			setup: func(t *testing.T, r *repo, a, b string) {
				edit(a, map[int]string{5: "a's line five"})
				edit(b, map[int]string{5: "b's line five"})
				gittest.Git(t, a, "checkout", "--", "f.txt")
			},
			// a's hooks saw it change the file: observed, still in its touched list.
			opts: func(a, b string) [2][]pt.Option { return [2][]pt.Option{{pt.Touched(filepath.Join(a, "f.txt"))}, nil} },
		},
		{
			name: "different files",
			setup: func(t *testing.T, r *repo, a, b string) {
				edit(a, map[int]string{5: "a's line five"})
				gittest.WriteFile(t, filepath.Join(b, "lib", "b.go"), "package lib\n")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t)
			a, b := r.worktree("a"), r.worktree("b")
			tt.setup(t, r, a, b)
			var opts [2][]pt.Option
			if tt.opts != nil {
				opts = tt.opts(a, b)
			}
			f, ok := predict(t, g, r, a, b, opts)
			if ok != tt.wantOK {
				t.Fatalf("overlap = %v, want %v (%+v)", ok, tt.wantOK, f)
			}
			if !ok {
				return
			}
			var files []string
			for _, x := range f.Files {
				files = append(files, x.Path)
			}
			if !reflect.DeepEqual(files, tt.files) {
				t.Errorf("files = %v, want %v", files, tt.files)
			}
			if f.Verdict != tt.verdict || f.Merge != tt.merge {
				t.Errorf("verdict %s, merge %s; want %s, %s", f.Verdict, f.Merge, tt.verdict, tt.merge)
			}
			if !reflect.DeepEqual(f.Conflicts, tt.conflicts) {
				t.Errorf("conflicts = %v, want %v", f.Conflicts, tt.conflicts)
			}
		})
	}
}
