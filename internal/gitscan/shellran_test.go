package gitscan_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hookinstall"
)

// TestScannerShellRanScansAtOnce (issue 33, row 6): a shell command that
// discarded a file (`git checkout .`) is seen by the next scan, started
// at once by ShellRan, not at the end of the interval since the last
// scan: the scanner's clock (the test's) never moves, the interval is an
// hour. A mutation naming no file (Mutated) inside that interval waits
// for its end: its scan is a timer on that clock.
func TestScannerShellRanScansAtOnce(t *testing.T) {
	r := newRepo(t)
	a := r.worktree("a")
	clock := clockwork.NewFakeClock()
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: time.Hour, Clock: clock})
	gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{3: "a's line three"}))
	s.Mutated(a, filepath.Join(a, "f.txt"))
	lists := func(want bool) func() bool {
		return func() bool {
			res, ok := s.Result(a)
			return ok && slices.Contains(res.Changes.Files, "f.txt") == want
		}
	}
	eventually.True(t, within, "f.txt listed modified", lists(true))

	gittest.Git(t, a, "checkout", ".")
	s.Mutated(a) // inside the interval: a scan at its end, an hour away
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	if err := clock.BlockUntilContext(ctx, 2); err != nil { // the slow rescan's ticker and the interval's timer
		t.Fatalf("no scan scheduled at the interval's end: %v", err)
	}
	if st := s.Stats(); st.Scans != 1 {
		t.Fatalf("scans = %d inside the interval, want 1", st.Scans)
	}
	s.ShellRan(a)
	eventually.True(t, within, "the discarded f.txt no longer listed", lists(false))
	if st := s.Stats(); st.Scans != 2 || st.ScopedScans != 0 {
		t.Errorf("scans = %d (scoped %d), want 2, both of the whole worktree", st.Scans, st.ScopedScans)
	}
}

// TestScannerOmits: the files Omit names (here the installer's,
// hookinstall.Installed) are in no result, untracked or modified, whole
// or scoped to the touched files, and Total counts them out; the rest is
// listed with its state.
func TestScannerOmits(t *testing.T) {
	r := newRepo(t)
	a := r.worktree("a")
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: 10 * time.Millisecond, Omit: hookinstall.Installed})
	for _, f := range []string{".codex/hooks.json", ".gemini/settings.json", ".codex/hooks.json.hall-backup-20251130T080000Z", "work.go"} {
		gittest.WriteFile(t, filepath.Join(a, f), "{}\n")
	}
	s.ShellRan(a)
	eventually.True(t, within, "work.go listed", func() bool {
		res, _ := s.Result(a)
		return slices.Contains(res.Changes.Files, "work.go")
	})
	check := func(when string) {
		t.Helper()
		res, _ := s.Result(a)
		c := res.Changes
		if !slices.Equal(c.Files, []string{"work.go"}) || c.Total != 1 || !c.Complete() {
			t.Errorf("%s: files %v (total %d, complete %v), want work.go alone", when, c.Files, c.Total, c.Complete())
		}
		if st, ok := c.StateOf("work.go"); !ok || st != gitscan.Untracked {
			t.Errorf("%s: work.go %v (%v), want untracked", when, st, ok)
		}
	}
	check("a whole scan")
	gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{1: "changed"}))
	gittest.WriteFile(t, filepath.Join(a, ".codex", "hooks.json"), "{\"hooks\":{}}\n")
	s.Mutated(a, filepath.Join(a, "f.txt"), filepath.Join(a, ".codex", "hooks.json"))
	eventually.True(t, within, "f.txt listed by a scan of the touched files", func() bool {
		res, _ := s.Result(a)
		return slices.Contains(res.Changes.Files, "f.txt")
	})
	res, _ := s.Result(a)
	if c := res.Changes; !slices.Equal(c.Files, []string{"f.txt", "work.go"}) || c.Total != 2 || s.Stats().ScopedScans != 1 {
		t.Errorf("a scoped scan: files %v (total %d, scoped scans %d), want f.txt and work.go by one scoped scan", c.Files, c.Total, s.Stats().ScopedScans)
	}
}

func TestOmitted(t *testing.T) {
	c := gitscan.Changes{
		Files:  []string{".codex/hooks.json", "a.go", "b.go"},
		States: []gitscan.FileState{gitscan.Untracked, gitscan.Modified, gitscan.Staged},
		Total:  3,
	}
	omitCodex := func(rel string) bool { return rel == ".codex/hooks.json" }
	for _, tc := range []struct {
		name   string
		in     gitscan.Changes
		omit   func(string) bool
		files  []string
		states []gitscan.FileState
		total  int
	}{
		{"no rule", c, nil, c.Files, c.States, 3},
		{"nothing to omit", gitscan.Changes{Files: []string{"a.go"}, States: []gitscan.FileState{gitscan.Modified}, Total: 1}, omitCodex, []string{"a.go"}, []gitscan.FileState{gitscan.Modified}, 1},
		{"one omitted", c, omitCodex, []string{"a.go", "b.go"}, []gitscan.FileState{gitscan.Modified, gitscan.Staged}, 2},
		{"past the list: Total keeps them", gitscan.Changes{Files: c.Files, States: c.States, Total: 9}, omitCodex, []string{"a.go", "b.go"}, []gitscan.FileState{gitscan.Modified, gitscan.Staged}, 8},
		{"all omitted", c, func(string) bool { return true }, []string{}, []gitscan.FileState{}, 0},
	} {
		got := gitscan.Omitted(tc.in, tc.omit)
		if !slices.Equal(got.Files, tc.files) || !slices.Equal(got.States, tc.states) || got.Total != tc.total {
			t.Errorf("%s: files %v states %v total %d, want %v %v %d", tc.name, got.Files, got.States, got.Total, tc.files, tc.states, tc.total)
		}
	}
	if c.Files[0] != ".codex/hooks.json" || c.Total != 3 {
		t.Errorf("Omitted changed its input: %+v", c)
	}
}

// TestScannerShellRanDuringAScan: a shell's run reported while a scan of
// its worktree is under way (that scan may have read the worktree before
// the command ended) is followed by one more scan as soon as it ends, not
// at the end of the interval: the clock never moves, the interval is an
// hour. The git standing in holds the scan under way until the test lets
// it go.
func TestScannerShellRanDuringAScan(t *testing.T) {
	r := newRepo(t)
	a := r.worktree("a")
	marks := t.TempDir()
	hold, held, release := filepath.Join(marks, "hold"), filepath.Join(marks, "held"), filepath.Join(marks, "release")
	git := fakeGit(t, `if [ -e `+hold+` ] && [ ! -e `+release+` ]; then : > `+held+`; while [ ! -e `+release+` ]; do sleep 0.01; done; fi`)
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{Path: git}), Interval: time.Hour, Clock: clockwork.NewFakeClock()})
	s.ShellRan(a)
	eventually.True(t, within, "a scanned", func() bool { _, ok := s.Result(a); return ok })

	gittest.WriteFile(t, hold, "")
	s.ShellRan(a) // inside the interval: at once all the same
	eventually.True(t, within, "the second scan's git under way", func() bool { _, err := os.Stat(held); return err == nil })
	gittest.WriteFile(t, filepath.Join(a, "late.go"), "package late\n")
	s.ShellRan(a) // while it runs: one more after it
	s.ShellRan(a) // … and only one
	gittest.WriteFile(t, release, "")
	eventually.True(t, within, "the third scan", func() bool { return s.Stats().Scans == 3 })
	res, _ := s.Result(a)
	if !slices.Contains(res.Changes.Files, "late.go") {
		t.Errorf("files %v after the scan that followed, want late.go", res.Changes.Files)
	}
}
