package overlap_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/overlap"
	pt "github.com/hall-dev/hall/internal/presence/presencetest"
)

const (
	brain = "/home/ana/shop"
	wt1   = "/home/ana/shop-wt1"
	wt2   = "/home/ana/shop-wt2"
)

// party builds a side: a record in a worktree, with git's answer.
func party(agent, wt string, g overlap.Git, opts ...pt.Option) overlap.Party {
	r := pt.Rec(agent, brain, append([]pt.Option{pt.Worktree(wt)}, opts...)...)
	return overlap.PartyOf(&r, g)
}

func gitSaw(files ...string) overlap.Git {
	return overlap.Git{Available: true, Branch: "b", Files: files, Total: len(files)}
}

var noGit = overlap.Git{Reason: "git_missing"}

func TestBetween(t *testing.T) {
	src := func(s ...overlap.Source) []overlap.Source { return s }
	d, o, g := overlap.SourceDeclared, overlap.SourceObserved, overlap.SourceGit
	conflict := overlap.MergeMap{overlap.MergeKey(wt1, wt2): {Conflict: true, Files: []string{"src/a.go"}, Total: 1}}
	clean := overlap.MergeMap{overlap.MergeKey(wt1, wt2): {}}
	tests := []struct {
		name      string
		a, b      overlap.Party
		merges    overlap.Merges
		wantOK    bool
		wantFiles []overlap.File // side a's evidence in A
		verdict   overlap.Verdict
		merge     overlap.MergeState
		conflicts []string
	}{
		{name: "one file changed on both sides, by git", a: party("a", wt1, gitSaw("src/a.go")), b: party("b", wt2, gitSaw("src/a.go", "x")),
			wantOK: true, wantFiles: []overlap.File{{Path: "src/a.go", A: src(g), B: src(g)}}, verdict: overlap.VerdictOverlap, merge: overlap.MergeUnknown},
		{name: "git predicts a clean merge", a: party("a", wt1, gitSaw("src/a.go")), b: party("b", wt2, gitSaw("src/a.go")), merges: clean,
			wantOK: true, wantFiles: []overlap.File{{Path: "src/a.go", A: src(g), B: src(g)}}, verdict: overlap.VerdictOverlap, merge: overlap.MergeClean},
		{name: "git predicts a conflict", a: party("a", wt1, gitSaw("src/a.go")), b: party("b", wt2, gitSaw("src/a.go")), merges: conflict,
			wantOK: true, wantFiles: []overlap.File{{Path: "src/a.go", A: src(g), B: src(g)}}, verdict: overlap.VerdictConflict, merge: overlap.MergeConflict, conflicts: []string{"src/a.go"}},
		{name: "observed and git both label a file", a: party("a", wt1, gitSaw("src/a.go"), pt.Touched(wt1+"/src/a.go")), b: party("b", wt2, gitSaw("src/a.go")),
			wantOK: true, wantFiles: []overlap.File{{Path: "src/a.go", A: src(o, g), B: src(g)}}, verdict: overlap.VerdictOverlap, merge: overlap.MergeUnknown},
		{name: "git missing on one side: observed files only, merge unknown", a: party("a", wt1, noGit, pt.Touched(wt1+"/src/a.go")), b: party("b", wt2, gitSaw("src/a.go")), merges: conflict,
			wantOK: true, wantFiles: []overlap.File{{Path: "src/a.go", A: src(o), B: src(g)}}, verdict: overlap.VerdictOverlap, merge: overlap.MergeUnknown},
		{name: "a declared directory against a file under it", a: party("a", wt1, gitSaw(), pt.WS("src")), b: party("b", wt2, gitSaw("src/a.go", "srcx/b.go")),
			wantOK: true, wantFiles: []overlap.File{{Path: "src/a.go", A: src(d), B: src(g)}}, verdict: overlap.VerdictOverlap, merge: overlap.MergeUnknown},
		{name: "a declared absolute directory against an observed file", a: party("a", wt1, noGit, pt.WS(wt1+"/src/")), b: party("b", wt2, noGit, pt.Touched(wt2+"/src/a.go")),
			wantOK: true, wantFiles: []overlap.File{{Path: "src/a.go", A: src(d), B: src(o)}}, verdict: overlap.VerdictOverlap, merge: overlap.MergeUnknown},
		{name: "a file against a directory git lists under its name", a: party("a", wt1, gitSaw("lib")), b: party("b", wt2, gitSaw("lib/x.go")),
			wantOK: true, wantFiles: []overlap.File{{Path: "lib/x.go", A: src(g), B: src(g)}}, verdict: overlap.VerdictOverlap, merge: overlap.MergeUnknown},
		{name: "two declarations alone are no overlap", a: party("a", wt1, gitSaw(), pt.WS("src")), b: party("b", wt2, gitSaw(), pt.WS("src/a.go"))},
		{name: "one side reverted: git lists nothing, the observed file no longer counts", a: party("a", wt1, gitSaw(), pt.Touched(wt1+"/src/a.go")), b: party("b", wt2, gitSaw("src/a.go"))},
		{name: "git's list cut short: observed files count too", a: party("a", wt1, overlap.Git{Available: true, Files: []string{"z"}, Total: 9}, pt.Touched(wt1+"/src/a.go")), b: party("b", wt2, gitSaw("src/a.go")),
			wantOK: true, wantFiles: []overlap.File{{Path: "src/a.go", A: src(o), B: src(g)}}, verdict: overlap.VerdictOverlap, merge: overlap.MergeUnknown},
		{name: "an observed file outside the worktree is dropped", a: party("a", wt1, noGit, pt.Touched("/etc/src/a.go", wt2+"/src/a.go")), b: party("b", wt2, gitSaw("src/a.go"))},
		{name: "different files", a: party("a", wt1, gitSaw("src/a.go")), b: party("b", wt2, gitSaw("src/b.go"))},
		{name: "segment-aware: src/auth is not src/authz", a: party("a", wt1, gitSaw(), pt.WS("src/auth")), b: party("b", wt2, gitSaw("src/authz/x.go"))},
		{name: "one worktree is a collision's, never an overlap", a: party("a", wt1, gitSaw("src/a.go")), b: party("b", wt1, gitSaw("src/a.go"))},
		{name: "a subagent and its session never overlap", a: party("a", wt1, gitSaw("src/a.go")), b: party("b", wt2, gitSaw("src/a.go"), pt.Parent(presence.ID("a", brain)))},
		{name: "not mutating", a: party("a", wt1, gitSaw("src/a.go")), b: party("b", wt2, gitSaw("src/a.go"), pt.NoMutation())},
		{name: "no worktree", a: party("a", wt1, gitSaw("src/a.go")), b: party("b", "", gitSaw("src/a.go"))},
		{name: "two brains", a: party("a", wt1, gitSaw("src/a.go")), b: func() overlap.Party {
			p := party("b", wt2, gitSaw("src/a.go"))
			p.Brain = "/elsewhere"
			return p
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, swap := range []bool{false, true} {
				a, b := tt.a, tt.b
				if swap {
					a, b = b, a
				}
				f, ok := overlap.Between(a, b, tt.merges, 0)
				if ok != tt.wantOK {
					t.Fatalf("swap %v: ok = %v, want %v (%+v)", swap, ok, tt.wantOK, f)
				}
				if !ok {
					continue
				}
				parties := []overlap.Party{a, b}
				if parties[f.A].ID > parties[f.B].ID {
					t.Errorf("swap %v: side A %s has the larger id", swap, parties[f.A].ID)
				}
				want := tt.wantFiles
				if parties[f.A].ID != tt.a.ID { // A is tt.b: its evidence is B's
					want = nil
					for _, w := range tt.wantFiles {
						want = append(want, overlap.File{Path: w.Path, A: w.B, B: w.A})
					}
				}
				if !reflect.DeepEqual(f.Files, want) || f.FilesTotal != len(want) {
					t.Errorf("swap %v: files = %+v (total %d), want %+v", swap, f.Files, f.FilesTotal, want)
				}
				if f.Verdict != tt.verdict || f.Merge != tt.merge {
					t.Errorf("swap %v: verdict %s, merge %s; want %s, %s", swap, f.Verdict, f.Merge, tt.verdict, tt.merge)
				}
				if !reflect.DeepEqual(f.Conflicts, tt.conflicts) {
					t.Errorf("swap %v: conflicts = %v, want %v", swap, f.Conflicts, tt.conflicts)
				}
			}
		})
	}
}

func TestKeyIsStable(t *testing.T) {
	a, b := presence.ID("a", brain), presence.ID("b", brain)
	if overlap.Key(a, b) != overlap.Key(b, a) {
		t.Fatalf("Key depends on the order: %s, %s", overlap.Key(a, b), overlap.Key(b, a))
	}
	if got, want := overlap.Key(a, b), min(a, b)+"~"+max(a, b); got != want {
		t.Fatalf("Key = %s, want %s", got, want)
	}
}

func TestWithinBounds(t *testing.T) {
	var ps []overlap.Party
	files := make([]string, 30)
	for i := range files {
		files[i] = fmt.Sprintf("f%02d", i)
	}
	for i := range 5 {
		ps = append(ps, party(fmt.Sprintf("agent-%d", i), fmt.Sprintf("/wt/%d", i), gitSaw(files...)))
	}
	got, tally := overlap.Within(brain, ps, nil, overlap.Bound{MaxPairs: 3, MaxFiles: 4})
	if tally.Pairs != 10 {
		t.Errorf("pairs = %d, want 10 (5 worktrees, every pair)", tally.Pairs)
	}
	if len(got) != 3 {
		t.Fatalf("listed %d, want the bound 3", len(got))
	}
	for i, f := range got {
		if len(f.Files) != 4 || f.FilesTotal != 30 {
			t.Errorf("overlap %d lists %d files of %d, want 4 of 30", i, len(f.Files), f.FilesTotal)
		}
		if i > 0 && overlap.Key(ps[got[i-1].A].ID, ps[got[i-1].B].ID) >= overlap.Key(ps[f.A].ID, ps[f.B].ID) {
			t.Errorf("overlap %d out of key order", i)
		}
	}
}

// TestWithinEqualsBetween holds the indexed derivation to Between applied
// to every pair, on random rosters.
func TestWithinEqualsBetween(t *testing.T) {
	rng := rand.New(rand.NewSource(20))
	paths := []string{"a", "a/b", "a/b/c.go", "a/bc", "d/e.go", "d", "f.go"}
	pick := func() []string {
		var out []string
		for range rng.Intn(3) {
			out = append(out, paths[rng.Intn(len(paths))])
		}
		return out
	}
	merges := overlap.MergeMap{overlap.MergeKey("/wt/0", "/wt/1"): {Conflict: true, Files: []string{"a/b/c.go"}, Total: 1}}
	for round := range 200 {
		var ps []overlap.Party
		for i := range 2 + rng.Intn(6) {
			wt := fmt.Sprintf("/wt/%d", rng.Intn(4))
			var opts []pt.Option
			if ws := pick(); len(ws) > 0 {
				opts = append(opts, pt.WS(ws...))
			}
			var touched []string
			for _, p := range pick() {
				touched = append(touched, wt+"/"+p)
			}
			if len(touched) > 0 {
				opts = append(opts, pt.Touched(touched...))
			}
			if rng.Intn(5) == 0 {
				opts = append(opts, pt.Parent(presence.ID("agent-0", brain)))
			}
			g := gitSaw(pick()...)
			if rng.Intn(4) == 0 {
				g = noGit
			}
			ps = append(ps, party(fmt.Sprintf("agent-%d", i), wt, g, opts...))
		}
		got, tally := overlap.Within("", ps, merges, overlap.Bound{})
		var want []overlap.Found
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				if f, ok := overlap.Between(ps[i], ps[j], merges, 0); ok {
					if f.A == 0 {
						f.A, f.B = i, j
					} else {
						f.A, f.B = j, i
					}
					want = append(want, f)
				}
			}
		}
		if tally.Pairs != len(want) || len(got) != len(want) {
			t.Fatalf("round %d: Within found %d (tally %d), every pair by Between %d", round, len(got), tally.Pairs, len(want))
		}
		byPair := map[[2]int]overlap.Found{}
		for _, f := range want {
			byPair[[2]int{f.A, f.B}] = f
		}
		for _, f := range got {
			if w, ok := byPair[[2]int{f.A, f.B}]; !ok || !reflect.DeepEqual(f, w) {
				t.Fatalf("round %d: Within %+v, Between %+v", round, f, w)
			}
		}
	}
}

func TestChanged(t *testing.T) {
	p := party("a", wt1, gitSaw("src/a.go", "src/b.go"), pt.Touched(wt1+"/src/a.go", wt1+"/docs/x.md", "/etc/passwd"))
	got, total := overlap.Changed(p, 0)
	want := []overlap.Change{
		{Path: "docs/x.md", Sources: []overlap.Source{overlap.SourceObserved}},
		{Path: "src/a.go", Sources: []overlap.Source{overlap.SourceObserved, overlap.SourceGit}},
		{Path: "src/b.go", Sources: []overlap.Source{overlap.SourceGit}},
	}
	if !reflect.DeepEqual(got, want) || total != 3 {
		t.Fatalf("Changed = %+v (total %d), want %+v", got, total, want)
	}
	got, total = overlap.Changed(p, 1)
	if len(got) != 1 || total != 3 {
		t.Fatalf("Changed max 1: %d listed of %d, want 1 of 3", len(got), total)
	}
	p.Git = noGit
	got, _ = overlap.Changed(p, 0)
	if len(got) != 2 || !reflect.DeepEqual(got[1].Sources, []overlap.Source{overlap.SourceObserved}) {
		t.Fatalf("Changed without git = %+v, want the observed files only", got)
	}
}

// TestRecordGit: where this Hall's git cannot see a worktree, the git
// answer its record carries is the side's git evidence: labelled git,
// marked FromRecord, never given a merge (one git must see both); a file
// the hooks saw change after that scan counts as observed though the
// list lacks it, one seen before it and not listed does not.
func TestRecordGit(t *testing.T) {
	if _, ok := overlap.RecordGit(new(pt.Rec("x", brain))); ok {
		t.Error("a record with no git answer gave one")
	}
	scan := pt.T0 + 10
	far := pt.Rec("far", brain, pt.Worktree(wt1), pt.GitChanged(scan, "src/a.go"))
	far.Touched = []presence.Touch{{Path: wt1 + "/src/new.go", AtMs: scan + 10}, {Path: wt1 + "/src/old.go", AtMs: scan - 10}}
	g, ok := overlap.RecordGit(&far)
	if !ok || !g.Available || !g.FromRecord || g.AtMs != scan || g.Total != 1 {
		t.Fatalf("RecordGit: got %+v, %v", g, ok)
	}
	a := overlap.PartyOf(&far, g)
	if a.Fresh != 1 {
		t.Errorf("Fresh: got %d, want 1 (new.go seen after the scan)", a.Fresh)
	}
	b := party("near", wt2, gitSaw("src/a.go", "src/new.go", "src/old.go"))
	conflict := overlap.MergeMap{overlap.MergeKey(wt1, wt2): {Conflict: true, Files: []string{"src/a.go"}, Total: 1}}
	f, ok := overlap.Between(a, b, conflict, 0)
	if !ok {
		t.Fatal("no overlap")
	}
	src := func(s ...overlap.Source) []overlap.Source { return s }
	want := []overlap.File{
		{Path: "src/a.go", A: src(overlap.SourceGit), B: src(overlap.SourceGit)},
		{Path: "src/new.go", A: src(overlap.SourceObserved), B: src(overlap.SourceGit)},
	}
	if f.A != 0 {
		want[0].A, want[0].B = want[0].B, want[0].A
		want[1].A, want[1].B = want[1].B, want[1].A
	}
	if !reflect.DeepEqual(f.Files, want) || f.FilesTotal != 2 {
		t.Errorf("files: got %+v, want %+v (old.go, seen before the scan and not listed, left out)", f.Files, want)
	}
	if f.Merge != overlap.MergeUnknown || f.Verdict != overlap.VerdictOverlap {
		t.Errorf("got merge %s verdict %s, want unknown overlap: no git here sees the far worktree", f.Merge, f.Verdict)
	}
}
