package gitscan_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/presence/overlap"
	pt "github.com/hall-dev/hall/internal/presence/presencetest"
)

// within bounds every wait here: a bound on a hang, never a measure of
// speed.
const within = 30 * time.Second

// startScanner runs a scanner until the test ends.
func startScanner(t *testing.T, cfg gitscan.ScannerConfig) *gitscan.Scanner {
	t.Helper()
	if cfg.Slow == 0 {
		cfg.Slow = time.Hour // only what a test asks for is scanned
	}
	s := gitscan.NewScanner(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return s
}

// conflicting makes a repository with two worktrees that changed the same
// line of f.txt.
func conflicting(t *testing.T) (r *repo, a, b string) {
	r = newRepo(t)
	a, b = r.worktree("a"), r.worktree("b")
	gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{5: "a's line five"}))
	gittest.WriteFile(t, filepath.Join(b, "f.txt"), lines(20, map[int]string{5: "b's line five"}))
	return r, a, b
}

func hasCode(s *gitscan.Scanner, wt string, code gitscan.Code) func() bool {
	return func() bool {
		res, ok := s.Result(wt)
		return ok && gitscan.CodeOf(res.Err) == code
	}
}

func TestScannerPredictsThenTheOverlapCloses(t *testing.T) {
	r, a, b := conflicting(t)
	before := r.fingerprint(a, b)
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: 10 * time.Millisecond})
	// a first, then b: one scan predicts the pair, so the merge checks
	// counted below are settled once the prediction is there.
	s.Track([]string{a})
	eventually.True(t, within, "a scanned", func() bool { _, ok := s.Result(a); return ok })
	s.Track([]string{a, b})
	eventually.True(t, within, "a conflict predicted for a and b", func() bool {
		p, ok := s.Prediction(b, a)
		return ok && p.Conflict
	})
	if r.fingerprint(a, b) != before {
		t.Fatal("the worktrees, an index, a ref or the stash changed under the scanner")
	}
	derive := func() ([]overlap.Found, []overlap.Party) {
		ra, okA := s.Result(a)
		rb, okB := s.Result(b)
		ps := []overlap.Party{
			party("agent-a", r.main, a, gitscan.GitOf(ra, okA), pt.Touched(filepath.Join(a, "f.txt"))),
			party("agent-b", r.main, b, gitscan.GitOf(rb, okB)),
		}
		got, _ := overlap.Within(r.main, ps, s, overlap.Bound{})
		return got, ps
	}
	got, _ := derive()
	if len(got) != 1 || got[0].Verdict != overlap.VerdictConflict || !slices.Equal(got[0].Conflicts, []string{"f.txt"}) {
		t.Fatalf("derived %+v, want one conflict on f.txt", got)
	}

	// Nothing changed: a rescan takes new snapshots, of the same trees on
	// the same HEADs, and the merge comes from the cache.
	checks := s.Stats().MergeChecks
	s.Mutated(a)
	eventually.True(t, within, "a merge answered from the cache", func() bool { return s.Stats().MergeCacheHits >= 1 })
	if st := s.Stats(); st.MergeChecks != checks {
		t.Errorf("merge checks %d after an unchanged rescan, want %d", st.MergeChecks, checks)
	}

	// a reverts: its hooks still list f.txt as touched, but git sees no
	// change, and the overlap closes.
	gittest.Git(t, a, "checkout", "--", "f.txt")
	s.Mutated(a)
	eventually.True(t, within, "the prediction dropped", func() bool {
		_, ok := s.Prediction(a, b)
		res, _ := s.Result(a)
		return !ok && res.Changes.Total == 0
	})
	if got, _ := derive(); len(got) != 0 {
		t.Fatalf("derived %+v after a reverted, want no overlap", got)
	}
	st := s.Stats()
	if st.Scans < 3 || st.Snapshots < 2 || st.MergeChecks < 1 || st.ScanFailures != 0 || st.ScanTime <= 0 || st.MergeTime <= 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestScannerDebounces(t *testing.T) {
	r := newRepo(t)
	a := r.worktree("a")
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: time.Hour})
	for range 100 {
		s.Mutated(a)
	}
	eventually.True(t, within, "a scanned", func() bool { _, ok := s.Result(a); return ok })
	// The burst inside the interval scheduled one scan at its end, an
	// hour away: one scan ran, not a hundred.
	for range 100 {
		s.Mutated(a)
	}
	if st := s.Stats(); st.Scans != 1 {
		t.Fatalf("scans = %d after 200 mutations inside one interval, want 1", st.Scans)
	}
}

// TestScannerNeverDropsAMutation: a mutation inside the interval is
// scanned at its end, not before and not never. The scanner's clock is the
// test's: the second mutation is inside the interval however slow git is.
func TestScannerNeverDropsAMutation(t *testing.T) {
	r := newRepo(t)
	a := r.worktree("a")
	const interval = 200 * time.Millisecond
	clock := clockwork.NewFakeClock()
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: interval, Clock: clock})
	s.Mutated(a)
	eventually.True(t, within, "a scanned", func() bool { _, ok := s.Result(a); return ok })
	gittest.WriteFile(t, filepath.Join(a, "later.go"), "package later\n")
	s.Mutated(a) // inside the interval: the clock has not moved
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	if err := clock.BlockUntilContext(ctx, 2); err != nil { // the slow rescan's ticker and the interval's timer
		t.Fatalf("no scan scheduled at the interval's end: %v", err)
	}
	if st := s.Stats(); st.Scans != 1 {
		t.Fatalf("scans = %d inside the interval, want 1", st.Scans)
	}
	clock.Advance(interval)
	eventually.True(t, within, "the later change scanned", func() bool {
		res, _ := s.Result(a)
		return slices.Contains(res.Changes.Files, "later.go")
	})
	if st := s.Stats(); st.Scans != 2 {
		t.Errorf("scans = %d, want 2", st.Scans)
	}
}

// TestScannerNotifiesAfterReportedFiles: a file a presence reported
// touched counts as observed until git scans after it (GitOf's scan
// time), so the scan over it nudges the roster even when git's list is
// the same as before (the tool wrote the file back as it was): the
// roster derives again and drops the file. A scan nobody reported a file
// for, with the same list, nudges nothing.
func TestScannerNotifiesAfterReportedFiles(t *testing.T) {
	r := newRepo(t)
	a := r.worktree("a")
	notified := make(chan string, 16)
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: 10 * time.Millisecond,
		Notify: func(wt string) { notified <- wt }})
	s.Track([]string{a})
	eventually.True(t, within, "a scanned", func() bool { _, ok := s.Result(a); return ok })
	first, _ := s.Result(a)
	for len(notified) > 0 {
		<-notified
	}
	s.Mutated(a, filepath.Join(a, "lib", "a.go")) // reported, unchanged on disk
	select {
	case wt := <-notified:
		if wt != a {
			t.Errorf("notified for %q, want %q", wt, a)
		}
	case <-time.After(within):
		t.Fatal("a scan over a reported file with the same list nudged nothing")
	}
	res, _ := s.Result(a)
	if !res.ScannedAt.After(first.ScannedAt) || len(res.Changes.Files) != len(first.Changes.Files) {
		t.Errorf("second scan at %v (first %v), files %v (first %v); want a later scan, the same files", res.ScannedAt, first.ScannedAt, res.Changes.Files, first.Changes.Files)
	}
	s.Mutated(a) // a change named by no file: the same list, nothing to settle
	eventually.True(t, within, "a scanned again", func() bool { r, _ := s.Result(a); return r.ScannedAt.After(res.ScannedAt) })
	select {
	case wt := <-notified:
		t.Errorf("a scan with the same list, no file reported, nudged %q", wt)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestScannerWorktreeDeleted(t *testing.T) {
	_, a, b := conflicting(t)
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: 10 * time.Millisecond})
	s.Track([]string{a, b})
	eventually.True(t, within, "a conflict predicted", func() bool { p, ok := s.Prediction(a, b); return ok && p.Conflict })
	if err := os.RemoveAll(b); err != nil {
		t.Fatal(err)
	}
	s.Mutated(b)
	eventually.True(t, within, "b not here", hasCode(s, b, gitscan.NotOnMachine))
	if _, ok := s.Prediction(a, b); ok {
		t.Error("the prediction outlived b's worktree")
	}
	res, ok := s.Result(b)
	if g := gitscan.GitOf(res, ok); g.Available || g.Reason != string(gitscan.NotOnMachine) {
		t.Errorf("GitOf = %+v, want unavailable, %s", g, gitscan.NotOnMachine)
	}
	s.Mutated(a) // a's scan with a peer gone
	eventually.True(t, within, "a rescanned", func() bool { return s.Stats().Scans >= 3 })
	if st := s.Stats(); st.ScansSkipped < 1 {
		t.Errorf("skipped = %d, want the deleted worktree counted", st.ScansSkipped)
	}
}

func TestScannerWithoutGit(t *testing.T) {
	_, unavailable := gitscan.NewRunner(context.Background(), gitscan.RunnerConfig{Path: filepath.Join(t.TempDir(), "no-git")})
	r, a, b := conflicting(t)
	s := startScanner(t, gitscan.ScannerConfig{Unavailable: unavailable})
	s.Track([]string{a, b})
	eventually.True(t, within, "a answered without git", hasCode(s, a, gitscan.GitMissing))
	eventually.True(t, within, "b answered without git", hasCode(s, b, gitscan.GitMissing))
	ra, okA := s.Result(a)
	rb, okB := s.Result(b)
	ps := []overlap.Party{
		party("agent-a", r.main, a, gitscan.GitOf(ra, okA), pt.Touched(filepath.Join(a, "f.txt"))),
		party("agent-b", r.main, b, gitscan.GitOf(rb, okB), pt.Touched(filepath.Join(b, "f.txt"))),
	}
	if ps[0].Git.Available || ps[0].Git.Reason != string(gitscan.GitMissing) {
		t.Fatalf("git = %+v, want unavailable: git_missing", ps[0].Git)
	}
	got, _ := overlap.Within(r.main, ps, s, overlap.Bound{})
	want := []overlap.File{{Path: "f.txt", A: []overlap.Source{overlap.SourceObserved}, B: []overlap.Source{overlap.SourceObserved}}}
	if len(got) != 1 || got[0].Merge != overlap.MergeUnknown || got[0].Verdict != overlap.VerdictOverlap || !slices.EqualFunc(got[0].Files, want, func(x, y overlap.File) bool {
		return x.Path == y.Path && slices.Equal(x.A, y.A) && slices.Equal(x.B, y.B)
	}) {
		t.Fatalf("derived %+v, want one overlap on observed f.txt, merge unknown", got)
	}
	if st := s.Stats(); st.ScansSkipped != 2 || st.Scans != 0 {
		t.Errorf("stats %+v, want 2 skipped, none run", st)
	}
}

func TestScannerScanTimesOut(t *testing.T) {
	slow := fakeGit(t, `case " $* " in *" status "*) exec sleep 30;; esac`)
	r := newRepo(t)
	a := r.worktree("a")
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{Path: slow, Timeout: 200 * time.Millisecond})})
	s.Mutated(a)
	eventually.True(t, within, "the scan timed out", hasCode(s, a, gitscan.Timeout))
	if st := s.Stats(); st.Timeouts != 1 || st.ScanFailures != 1 {
		t.Errorf("stats %+v, want one timeout, one failure", st)
	}
}

func TestScannerTracksABoundedSet(t *testing.T) {
	r := newRepo(t)
	wts := []string{r.worktree("a"), r.worktree("b"), r.worktree("c")}
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), MaxTracked: 2})
	s.Track(wts)
	if st := s.Stats(); st.Tracked != 2 || st.ScansSkipped != 1 {
		t.Fatalf("tracked %d, skipped %d; want 2 and 1", st.Tracked, st.ScansSkipped)
	}
	s.Track(wts[:1])
	if st := s.Stats(); st.Tracked != 1 {
		t.Fatalf("tracked %d after Track of one, want 1", st.Tracked)
	}
}

// TestScannerDropsAPredictionGitCannotRenew: when merge-tree fails, the
// pair's last prediction is dropped, not served as if it still held.
func TestScannerDropsAPredictionGitCannotRenew(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "fail-merges")
	g := newRunner(t, gitscan.RunnerConfig{Path: fakeGit(t, `if [ -e `+flag+` ]; then case " $* " in *" merge-tree "*) exit 2;; esac; fi`)})
	_, a, b := conflicting(t)
	s := startScanner(t, gitscan.ScannerConfig{Runner: g, Interval: 10 * time.Millisecond})
	s.Track([]string{a})
	eventually.True(t, within, "a scanned", func() bool { _, ok := s.Result(a); return ok })
	s.Track([]string{a, b})
	eventually.True(t, within, "a conflict predicted", func() bool { p, ok := s.Prediction(a, b); return ok && p.Conflict })
	gittest.WriteFile(t, flag, "")
	gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{5: "a's line five, again"}))
	s.Mutated(a)
	eventually.True(t, within, "the prediction dropped", func() bool { _, ok := s.Prediction(a, b); return !ok })
	if st := s.Stats(); st.MergeFailures != 1 {
		t.Errorf("merge failures = %d, want 1", st.MergeFailures)
	}
}

// TestScannerScansAtOnceAChangeThatMeetsAPeer: with an hour's interval,
// a mutation reporting a file another worktree changed is scanned at
// once, and the merge predicted — whether git already lists the file in
// the other worktree, or only its hooks reported it there since its last
// scan (then the other worktree is scanned at once too).
func TestScannerScansAtOnceAChangeThatMeetsAPeer(t *testing.T) {
	for _, peerScanned := range []bool{true, false} {
		t.Run(map[bool]string{true: "git lists it there", false: "its hooks reported it there"}[peerScanned], func(t *testing.T) {
			r := newRepo(t)
			a, b := r.worktree("a"), r.worktree("b")
			if peerScanned {
				gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{5: "a's line five"}))
			}
			s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: time.Hour})
			s.Track([]string{a, b})
			eventually.True(t, within, "a and b scanned", func() bool {
				_, okA := s.Result(a)
				_, okB := s.Result(b)
				return okA && okB
			})
			if !peerScanned {
				gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{5: "a's line five"}))
				s.Mutated(a, filepath.Join(a, "f.txt")) // nobody else changed it: at the interval's end
			}
			gittest.WriteFile(t, filepath.Join(b, "f.txt"), lines(20, map[int]string{5: "b's line five"}))
			s.Mutated(b, filepath.Join(b, "f.txt"))
			eventually.True(t, within, "the conflict predicted inside the interval", func() bool {
				p, ok := s.Prediction(a, b)
				return ok && p.Conflict
			})
		})
	}
}

// TestScannerSlowRescanFindsAnUnreportedChange: a change no presence
// reported (a person's editor) is found by the slow rescan alone; also
// while an agent beside it has its edits of new files scanned every few
// tens of milliseconds (scans scoped to those files; edits of files git
// lists already wait, so it takes new ones): a scoped scan is not the
// slow rescan's. The scanner's clock is the test's, moved a slow-rescan
// tick at a time (each step an agent's edit, when one edits): a scoped
// scan counted as the slow rescan's would hold the change unseen however
// far it moves. The wait is shorter than the runner's 30 s base (real
// time), whose renewal once read the whole worktree as a side effect and
// hid that the slow rescan counted scoped scans as its own.
func TestScannerSlowRescanFindsAnUnreportedChange(t *testing.T) {
	const interval, slow = 10 * time.Millisecond, 200 * time.Millisecond
	const tick = slow / 10 // slowPace's at these settings
	for _, agentEdits := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "while an agent edits"}[agentEdits], func(t *testing.T) {
			r := newRepo(t)
			a := r.worktree("a")
			clock := clockwork.NewFakeClock()
			s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: interval, Slow: slow, Clock: clock})
			s.Track([]string{a})
			eventually.True(t, within, "a scanned", func() bool { _, ok := s.Result(a); return ok })
			edits := 0
			step := func() { // one tick of the slow rescan, and an agent's edit in it
				if agentEdits {
					f := filepath.Join(a, fmt.Sprintf("agent-%d.go", edits))
					edits++
					gittest.WriteFile(t, f, "package agent\n")
					s.Mutated(a, f)
				}
				clock.Advance(tick)
			}
			if agentEdits {
				eventually.True(t, within, "the agent's edits scanned as such", func() bool {
					step()
					return s.Stats().ScopedScans >= 2
				})
			}
			gittest.WriteFile(t, filepath.Join(a, "by-hand.go"), "package hand\n")
			eventually.True(t, within, "the unreported change scanned", func() bool {
				step()
				res, _ := s.Result(a)
				return slices.Contains(res.Changes.Files, "by-hand.go")
			})
		})
	}
}

// TestScannerScopesScansToTouchedFiles: after a first whole scan, a
// mutation naming its files scans those files only (a change elsewhere
// waits); one naming none (a shell's run) scans the whole worktree.
func TestScannerScopesScansToTouchedFiles(t *testing.T) {
	r := newRepo(t)
	a := r.worktree("a")
	s := startScanner(t, gitscan.ScannerConfig{Runner: newRunner(t, gitscan.RunnerConfig{}), Interval: 10 * time.Millisecond})
	s.Track([]string{a})
	eventually.True(t, within, "a scanned", func() bool { _, ok := s.Result(a); return ok })

	gittest.WriteFile(t, filepath.Join(a, "touched.go"), "package touched\n")
	gittest.WriteFile(t, filepath.Join(a, "unreported.go"), "package unreported\n")
	s.Mutated(a, filepath.Join(a, "touched.go"))
	eventually.True(t, within, "the touched file listed", func() bool {
		res, _ := s.Result(a)
		return slices.Contains(res.Changes.Files, "touched.go")
	})
	if res, _ := s.Result(a); slices.Contains(res.Changes.Files, "unreported.go") || s.Stats().ScopedScans != 1 {
		t.Fatalf("after a mutation naming touched.go: files %v, scoped scans %d; want touched.go alone, by one scoped scan", res.Changes.Files, s.Stats().ScopedScans)
	}

	s.Mutated(a) // a shell ran: no file named
	eventually.True(t, within, "the unreported file listed by a whole scan", func() bool {
		res, _ := s.Result(a)
		return slices.Contains(res.Changes.Files, "unreported.go")
	})
	if got := s.Stats().ScopedScans; got != 1 {
		t.Errorf("scoped scans %d after a mutation naming no file, want still 1", got)
	}
}
