package gitscan_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
)

// TestScannerPredictsAcrossClones: two clones of one repository on this
// machine are sides as two worktrees of one clone are (issue #43): one
// line changed both ways is a conflict, lines apart a clean merge, read
// through the scanner's scratch with both clones' objects, and not a
// byte of any clone written (objects, refs, index, config).
func TestScannerPredictsAcrossClones(t *testing.T) {
	c := gittest.Clones(t, gittest.TempDir(t))
	cart := func(dir string) string { return filepath.Join(dir, filepath.FromSlash(gittest.CartPath)) }
	gittest.WriteFile(t, cart(c.Ana), gittest.CartLines(map[int]string{10: "// ana's line ten"}))
	gittest.WriteFile(t, cart(c.Bob), gittest.CartLines(map[int]string{10: "// bob's line ten"}))
	gittest.WriteFile(t, cart(c.Carol), gittest.CartLines(map[int]string{18: "// carol's line eighteen"}))
	clones := []string{c.Ana, c.Bob, c.Carol}
	before := map[string]string{}
	for _, d := range append(clones, c.Bare) {
		before[d] = gittest.Fingerprint(t, d)
	}

	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: 10 * time.Millisecond})
	s.Track(clones)
	eventually.True(t, within, "ana and bob conflict, ana and carol merge clean", func() bool {
		ab, okAB := s.Prediction(c.Ana, c.Bob)
		ac, okAC := s.Prediction(c.Ana, c.Carol)
		return okAB && ab.Conflict && okAC && !ac.Conflict
	})
	want, _ := filepath.EvalSymlinks(c.Bare)
	for _, d := range clones {
		res, ok := s.Result(d)
		if !ok || res.Changes.Repository != "file://"+want {
			t.Errorf("%s: repository %q, want file://%s (one remote, three spellings)", d, res.Changes.Repository, want)
		}
	}
	if p, _ := s.Prediction(c.Bob, c.Ana); len(p.Conflicts) != 1 || p.Conflicts[0] != gittest.CartPath {
		t.Errorf("conflicts %v, want [%s]", p.Conflicts, gittest.CartPath)
	}
	for d, fp := range before {
		if gittest.Fingerprint(t, d) != fp {
			t.Errorf("%s changed under the scanner", d)
		}
	}
}

// TestScannerKeepsSplitClonesApart: clones a person split with
// hall.repository are never compared (no prediction), and two unrelated
// repositories joined by it are.
func TestScannerKeepsSplitClonesApart(t *testing.T) {
	c := gittest.Clones(t, gittest.TempDir(t))
	cart := func(dir string) string { return filepath.Join(dir, filepath.FromSlash(gittest.CartPath)) }
	gittest.Git(t, c.Ana, "config", gitscan.RepositoryKey, "shop-ana")
	gittest.Git(t, c.Bob, "config", gitscan.RepositoryKey, "shop-bob")
	for _, d := range []string{c.Ana, c.Bob, c.Carol} {
		gittest.WriteFile(t, cart(d), gittest.CartLines(map[int]string{10: "// line ten in " + d}))
	}
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: 10 * time.Millisecond})
	s.Track([]string{c.Ana, c.Bob, c.Carol})
	eventually.True(t, within, "all three scanned", func() bool {
		for _, d := range []string{c.Ana, c.Bob, c.Carol} {
			if _, ok := s.Result(d); !ok {
				return false
			}
		}
		return true
	})
	// Scanned whole once more each: any pair compared is predicted by now.
	st := s.Stats().Scans
	for _, d := range []string{c.Ana, c.Bob, c.Carol} {
		s.ShellRan(d)
	}
	eventually.True(t, within, "rescanned", func() bool { return s.Stats().Scans >= st+3 })
	for _, pair := range [][2]string{{c.Ana, c.Bob}, {c.Ana, c.Carol}, {c.Bob, c.Carol}} {
		if p, ok := s.Prediction(pair[0], pair[1]); ok {
			t.Errorf("%s and %s, split by hall.repository, predicted %+v", pair[0], pair[1], p)
		}
	}
}

// TestScannerAsksUnrelatedHistoriesOnce: two unrelated repositories a
// person joined with hall.repository, the same file changed in both, are
// compared, and git refuses to merge unrelated histories: no prediction.
// Asked once for a pair of states, not again at every scan of an
// unchanged pair (it was, one merge-tree a scan); a new state is asked.
func TestScannerAsksUnrelatedHistoriesOnce(t *testing.T) {
	root := gittest.TempDir(t)
	var repos []string
	for _, name := range []string{"ana", "bob"} {
		d := filepath.Join(root, name)
		gittest.Init(t, d)
		gittest.WriteFile(t, filepath.Join(d, "cart.go"), "package cart // "+name+"\n")
		gittest.CommitAll(t, d, name+"'s root")
		gittest.Git(t, d, "config", gitscan.RepositoryKey, "shop")
		gittest.WriteFile(t, filepath.Join(d, "cart.go"), "package cart // "+name+", changed\n")
		repos = append(repos, d)
	}
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: 10 * time.Millisecond})
	s.Track(repos)
	eventually.True(t, within, "the pair asked", func() bool { return s.Stats().MergeChecks >= 1 })
	for range 5 {
		st := s.Stats().Scans
		for _, d := range repos {
			s.ShellRan(d)
		}
		eventually.True(t, within, "rescanned", func() bool { return s.Stats().Scans >= st+2 })
	}
	if p, ok := s.Prediction(repos[0], repos[1]); ok {
		t.Errorf("unrelated histories predicted: %+v", p)
	}
	if got := s.Stats().MergeChecks; got != 1 {
		t.Errorf("merge-tree runs for one pair of unchanged states over 6 scans: %d, want 1", got)
	}
	gittest.WriteFile(t, filepath.Join(repos[1], "cart.go"), "package cart // bob, changed again\n")
	s.ShellRan(repos[1])
	eventually.True(t, within, "the new state asked", func() bool { return s.Stats().MergeChecks == 2 })
}
