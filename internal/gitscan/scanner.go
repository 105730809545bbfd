package gitscan

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/hall-dev/hall/internal/filelock"
)

// Scanner defaults: see ScannerConfig.
const (
	DefaultInterval    = 2 * time.Second
	DefaultSlow        = 30 * time.Second
	DefaultSlowRate    = 1.0 // slow rescans started a second, at most
	DefaultMaxTracked  = 256
	DefaultScanTimeout = 30 * time.Second
)

// ScannerConfig sets up a Scanner.
type ScannerConfig struct {
	// Runner runs git. nil means git is not usable here: every result
	// then carries Unavailable, and callers fall back to observed files.
	Runner      *Runner
	Unavailable error // why Runner is nil (NewRunner's error)
	// Interval is the least time between two scans of one worktree
	// (default DefaultInterval): a mutation inside it schedules one scan
	// at its end.
	Interval time.Duration
	// Slow rescans every tracked worktree this often (default
	// DefaultSlow), for changes no presence reported (a person's editor):
	// spread over the period, a share at each of slowSlices ticks, not
	// all at once.
	Slow time.Duration
	// SlowRate bounds the slow rescans started a second (default
	// DefaultSlowRate; whole scans a tick, at least one): the safety
	// net's git work stays bounded however many worktrees are tracked,
	// and past SlowRate×Slow of them (30 at the defaults) each waits
	// longer than Slow for its turn.
	SlowRate float64
	// ScanTimeout bounds one whole scan of a worktree, its merges
	// included (default DefaultScanTimeout); each git process has the
	// runner's own timeout besides.
	ScanTimeout time.Duration
	// MaxTracked bounds the worktrees scanned (default DefaultMaxTracked);
	// past it a new worktree is skipped and counted.
	MaxTracked int
	// MaxScans bounds the scans running at once (default the runner's
	// processes at once, DefaultMaxProcs() without a runner: a scan's
	// git processes run one after another); the others wait in a queue,
	// a scan that meets another worktree's change first. Started all at
	// once, 50 worktrees' scans each queued every one of their git
	// processes behind the others', and the slow rescan's burst held an
	// overlap's scan for seconds.
	MaxScans int
	// Changes tunes each scan's Changes (the base branch override, the
	// files listed).
	Changes ChangesOptions
	// Omit, when set, names the repository-relative paths left out of
	// every result (Omitted): files that are nobody's work, such as the
	// hook configuration the Hall's installer writes into each worktree
	// (hookinstall.Installed). Left out, they are in no overlap, no merge
	// prediction and no shell guard's scene.
	Omit func(rel string) bool
	// Notify, when set, is called (on the scanner's goroutine, no lock
	// held) with a worktree whose result or merge predictions changed.
	Notify func(worktree string)
	// Cache keeps merge predictions; nil makes one of the default size.
	Cache *MergeCache
	// Scratch is where snapshots and merge predictions write their
	// objects, never the repository; nil: one in a temporary directory
	// of the scanner's own, removed when Run returns.
	Scratch *Scratch
	// Kept, when set, is called (on the scanning goroutine, no lock held)
	// with each snapshot taken for a merge prediction and the
	// environment that reads its objects: the Hall keeps them as
	// recovery points (recovery.Store.Adopt).
	Kept func(ctx context.Context, snap Snapshot, env []string)
	// Clock times the interval between two scans of a worktree (its
	// timers) and the slow rescan (its ticks, and when each worktree was
	// last scanned whole); the real clock when nil. Tests drive a fake
	// one. Git's own timeouts (ScanTimeout, the runner's) stay on the
	// real clock: they bound processes.
	Clock clockwork.Clock
}

// Result is the scanner's latest answer for one worktree.
type Result struct {
	Changes Changes
	// Err is why git gave no answer (CodeOf says which fallback: git
	// missing or too old, the worktree not on this machine, a timeout).
	// With Err set, Changes holds only Worktree.
	Err       error
	ScannedAt time.Time
}

// Prediction is the merge predicted for two worktrees whose changes
// overlap by path, and which snapshots it merged.
type Prediction struct {
	Merge
	A, B        string // the worktrees, A < B
	CommitA     string // A's snapshot commit
	CommitB     string
	PredictedAt time.Time
}

// Stats are the scanner's counters since it was made, for /metrics.
type Stats struct {
	Tracked          int   // worktrees tracked now
	Scans            int64 // scans of a worktree run
	ScopedScans      int64 // of those, asked over the touched files only (Runner.ChangesOf, which may read the whole worktree all the same)
	ScanFailures     int64 // scans git could not answer (other than skipped)
	ScansSkipped     int64 // scans not run: no usable git, the worktree not here, or over MaxTracked
	ScanTime         time.Duration
	Timeouts         int64 // scans or merge checks that ran out of time
	Snapshots        int64 // working-tree snapshots taken
	SnapshotFailures int64
	MergeChecks      int64 // merges predicted by git merge-tree
	MergeFailures    int64
	MergeCacheHits   int64 // merges answered from the cache
	MergeTime        time.Duration
	Processes        int64 // git processes started, scans, snapshots and merges together
}

// Scanner keeps git's answer for each tracked worktree fresh, off the
// Scanner keeps git's answer for each tracked worktree fresh, off the
// hot path: a beat or hook answer only calls Mutated, which never waits
// on git. A worktree is rescanned when a presence in it reports a
// mutation, at most once per Interval (a mutation inside the interval
// schedules one scan at its end, never dropped; one that meets another
// worktree's change at once; one of files git lists already at the slow
// rescan: Mutated), and every Slow; a scan predicts the merge of each
// pair of one repository's worktrees whose changed files overlap, cached
// by the two snapshots. Git processes are capped by the runner, scans by
// MaxScans (the rest queue, urgent first); one scan runs per worktree at
// a time.
//
// It is two rooms joined under one lock: the schedule (schedule.go, and
// meet.go for how soon a mutation needs git) decides when each side is
// scanned; the reader (scan.go) runs git for a side and builds its
// answers. A side is what the scanner compares: a worktree on this
// machine today (side.go).
type Scanner struct {
	cfg     ScannerConfig
	read    *reader
	ownDir  string         // the scratch's directory when the scanner made it; "" otherwise
	ownLock *filelock.Lock // held on ownDir while the scanner lives (SweepTemp)

	mu    sync.Mutex
	wg    sync.WaitGroup
	sched schedule
	trees map[string]*tracked
	preds map[[2]string]Prediction
}

// tracked is the scanner's state for one side, by its key (a worktree's
// cleaned path): when it is scanned (state), what was reported since its
// last scan started (what the next scan reads), and its latest answer.
type tracked struct {
	side  side
	state scanState

	// touched are the files (repository-relative) the side's presences
	// reported changing since its last scan started, at most
	// maxTouchedKept: what git will list at the next scan.
	touched map[string]struct{}
	// full: a change not named by a file was asked about since the last
	// scan started (a shell's run, the slow rescan, touched files past
	// the bounds): the next scan reads the whole side, not only the
	// touched files (Runner.ChangesOf).
	full bool
	// deferred: a mutation since the last scan started was left to the
	// slow rescan (Mutated: it changed only files git lists already).
	deferred bool

	res     Result
	seq     uint64 // counts results
	snap    Snapshot
	snapSeq uint64 // the result seq the snapshot was taken at; 0: none
	snapGen int    // the scratch generation its objects are in

	// across are the side's files in an overlap with a side on another
	// host (AcrossHosts), sorted: a mutation of one is never left to the
	// slow rescan, since a verdict across hosts may move with it.
	across []string
}

// answered reports whether git has answered for the side: a first scan
// ended, without failing.
func (t *tracked) answered() bool { return t.seq > 0 && t.res.Err == nil }

// scope takes what was reported since the last scan started: the touched
// files when they are all the next scan needs to read (the last answer
// standing, nothing else asked about), nil for the whole side.
func (t *tracked) scope() []string {
	var scope []string
	if !t.full && t.answered() {
		scope = slices.Sorted(maps.Keys(t.touched))
	}
	t.touched, t.deferred, t.full = nil, false, false
	return scope
}

// NewScanner returns a scanner; Run starts it.
func NewScanner(cfg ScannerConfig) *Scanner {
	cfg.Interval = orDefault(cfg.Interval, DefaultInterval)
	cfg.Slow = orDefault(cfg.Slow, DefaultSlow)
	cfg.SlowRate = orDefault(cfg.SlowRate, DefaultSlowRate)
	cfg.ScanTimeout = orDefault(cfg.ScanTimeout, DefaultScanTimeout)
	cfg.MaxTracked = orDefault(cfg.MaxTracked, DefaultMaxTracked)
	procs := DefaultMaxProcs()
	if cfg.Runner != nil {
		procs = cfg.Runner.MaxProcs()
	}
	cfg.MaxScans = orDefault(cfg.MaxScans, procs)
	if cfg.Clock == nil {
		cfg.Clock = clockwork.NewRealClock()
	}
	cache := cfg.Cache
	if cache == nil {
		cache = NewMergeCache(0)
	}
	scratch := cfg.Scratch
	ownDir := ""
	var ownLock *filelock.Lock
	if scratch == nil {
		// Made now, removed when Run returns. A temporary directory that
		// cannot be made leaves one that fails each snapshot: the scanner
		// then predicts no merge, and never writes into a repository.
		// What a Hall killed without warning left goes first (SweepTemp);
		// this scratch is held by its lock while the scanner lives.
		SweepTemp(os.TempDir(), time.Now())
		dir, err := os.MkdirTemp("", scratchPrefix+"*")
		if err == nil {
			ownLock, _, err = filelock.TryLock(dir, fmt.Sprintf("pid %d", os.Getpid()))
		}
		if err == nil {
			scratch, err = NewScratch(dir, 0)
		}
		if err != nil {
			scratch = &Scratch{root: filepath.Join(os.DevNull, "hall-scratch")}
		}
		ownDir = dir
	}
	s := &Scanner{
		cfg:     cfg,
		ownDir:  ownDir,
		ownLock: ownLock,
		read:    &reader{runner: cfg.Runner, unavailable: cfg.Unavailable, opts: cfg.Changes, omit: cfg.Omit, cache: cache, scratch: scratch, kept: cfg.Kept},
		trees:   map[string]*tracked{},
		preds:   map[[2]string]Prediction{},
	}
	s.sched = newSchedule(cfg.Clock, cfg.Interval, cfg.MaxScans, s.fire)
	return s
}

// Run scans until ctx ends, then waits for the scans under way (each
// bounded by its timeout) and returns. The scans run on ctx.
func (s *Scanner) Run(ctx context.Context) error {
	s.mu.Lock()
	for _, key := range s.sched.begin(s.trees) {
		s.sched.ask(key, s.trees[key], atInterval)
	}
	s.startLocked(ctx)
	s.mu.Unlock()
	every, perTick := slowPace(s.cfg.Slow, s.cfg.SlowRate)
	tick := s.cfg.Clock.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			s.sched.stop(s.trees)
			s.mu.Unlock()
			s.wg.Wait()
			if s.ownDir != "" {
				_ = os.RemoveAll(s.ownDir)
				_ = s.ownLock.Close()
			}
			return nil
		case now := <-tick.Chan():
			s.mu.Lock()
			for _, key := range slowDue(s.trees, now, s.cfg.Slow, perTick) {
				t := s.trees[key]
				t.full = true
				s.sched.ask(key, t, atInterval)
			}
			s.startLocked(ctx)
			s.mu.Unlock()
		case <-s.sched.wake:
			s.mu.Lock()
			s.startLocked(ctx)
			s.mu.Unlock()
		}
	}
}

// startLocked starts the queued scans the schedule allows now, on ctx
// (Run's), each over what was reported since its side's last scan.
func (s *Scanner) startLocked(ctx context.Context) {
	if ctx.Err() != nil {
		return // Run is ending: stop closes the schedule
	}
	for {
		key, t, ok := s.sched.next(s.trees)
		if !ok {
			return
		}
		prev := t.res.Changes
		reported := len(t.touched) > 0
		scope := t.scope()
		s.sched.began(t, scope == nil)
		s.wg.Add(1)
		go s.scan(ctx, key, t, prev, scope, reported)
	}
}

// fire runs the scan timer n scheduled at the end of an interval.
func (s *Scanner) fire(key string, t *tracked, n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trees[key] != t {
		return // forgotten meanwhile
	}
	s.sched.expired(key, t, n)
}

// Mutated says a presence in the worktree reported a mutation, and the
// files its tool changed (absolute, as its hooks saw them; none when they
// named none): the worktree is tracked from now on and scanned soon (now,
// or at the end of the interval since its last scan). It never waits on
// git.
//
// A touched file that another worktree of the repository changed too
// (git listed it there, or that worktree's presences reported it since
// its last scan) and that this worktree's last scan did not list is a
// new overlap, maybe a conflict: both worktrees are scanned now, inside
// their intervals, so it is seen within a scan's time rather than an
// interval's (issue #20 holds it to 2 s). That happens once per file
// and worktree — once git lists it, later edits of it wait for the
// interval as any — so the interval still bounds an agent editing one
// file all day.
//
// A mutation whose touched files git lists already, none of them changed
// in a worktree this one's merge is predicted with, would change nothing
// a scan shows (the same files, the same verdicts): it is left to the
// slow rescan. Most of an agent's edits are of files it changed before;
// scanning each worktree at every interval anyway kept 50 agents' git
// queued for seconds (docs/performance.md, overlaps). Should another worktree's
// change meet it meanwhile, it is scanned at once (meetLocked).
func (s *Scanner) Mutated(worktree string, touched ...string) {
	if worktree == "" {
		return
	}
	wt := filepath.Clean(worktree)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.trackLocked(wt) {
		return
	}
	meets, stale := s.meetLocked(wt, touched)
	if t := s.trees[wt]; len(touched) == 0 || len(touched) > maxTouchedChecked || len(t.touched) >= maxTouchedKept {
		t.full = true
	}
	switch {
	case meets:
		s.askLocked(wt, ahead)
		for _, p := range stale {
			s.askLocked(p, ahead)
		}
	case s.listedLocked(wt, touched):
		s.trees[wt].deferred = true
	default:
		s.askLocked(wt, atInterval)
	}
}

// ShellRan says a shell command ran in the worktree (the after-tool hook
// of an agent's shell tool): it may have written, discarded (`git
// checkout .`), committed or checked out anything, named by no file. The
// worktree is tracked from now on and scanned whole at once, not at the
// end of the interval since its last scan: a guard read a moment later
// (the agent's next command) sees what the command left, not what was
// there before. A scan under way may have read the worktree before the
// command ended: one more follows it. It never waits on git, and one
// worktree never runs two scans at once, so a burst of commands costs a
// scan under way and one after it. The scan waits its turn in the queue
// behind the urgent ones (a change that meets another worktree's).
func (s *Scanner) ShellRan(worktree string) {
	if worktree == "" {
		return
	}
	wt := filepath.Clean(worktree)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.trackLocked(wt) {
		return
	}
	s.trees[wt].full = true
	s.askLocked(wt, atOnce)
}

// AcrossHosts sets, for each tracked worktree, its files in an overlap
// with a side on another host (repository-relative; nil for none): the
// scanner sees only this machine's worktrees, so it is told which of a
// worktree's files another host's change meets, and a mutation of one is
// scanned at the interval rather than left to the slow rescan (Mutated).
// At most maxTouchedKept files a worktree are kept.
func (s *Scanner) AcrossHosts(files map[string][]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for wt, t := range s.trees {
		fs := files[wt]
		if len(fs) > maxTouchedKept {
			fs = fs[:maxTouchedKept]
		}
		t.across = slices.Sorted(slices.Values(fs))
	}
}

// Track sets the worktrees to keep scanning, those of the live presences:
// a new one is scanned soon, one not named any more is forgotten, its
// predictions with it.
func (s *Scanner) Track(worktrees []string) {
	keep := make(map[string]bool, len(worktrees))
	for _, w := range worktrees {
		if w != "" {
			keep[filepath.Clean(w)] = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for wt, t := range s.trees {
		if !keep[wt] {
			s.sched.forget(t)
			delete(s.trees, wt)
			s.dropPredsLocked(wt, nil)
		}
	}
	for wt := range keep {
		if _, ok := s.trees[wt]; !ok && s.trackLocked(wt) {
			s.askLocked(wt, atInterval)
		}
	}
}

// trackLocked adds a worktree, unless it would pass MaxTracked.
func (s *Scanner) trackLocked(wt string) bool {
	if _, ok := s.trees[wt]; ok {
		return true
	}
	if len(s.trees) >= s.cfg.MaxTracked {
		s.read.n.skipped.Add(1)
		return false
	}
	s.trees[wt] = &tracked{side: worktreeSide(wt)}
	return true
}

// askLocked asks for a scan of the tracked side key at w (schedule.ask).
func (s *Scanner) askLocked(key string, w when) {
	if t := s.trees[key]; t != nil {
		s.sched.ask(key, t, w)
	}
}

// Result returns the latest answer for a tracked worktree, false before
// its first scan ends.
func (s *Scanner) Result(worktree string) (Result, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.trees[filepath.Clean(worktree)]
	if t == nil || t.seq == 0 {
		return Result{}, false
	}
	return t.res, true
}

// Prediction returns the latest merge predicted for two worktrees, false
// when none is (their changes do not overlap, a side is not tracked or not
// scanned yet, or git could not predict).
func (s *Scanner) Prediction(a, b string) (Prediction, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.preds[mergeKey(filepath.Clean(a), filepath.Clean(b))]
	return p, ok
}

// Stats returns the counters.
func (s *Scanner) Stats() Stats {
	s.mu.Lock()
	n := len(s.trees)
	s.mu.Unlock()
	c := &s.read.n
	return Stats{
		Tracked: n, Scans: c.scans.Load(), ScopedScans: c.scoped.Load(), ScanFailures: c.scanFail.Load(), ScansSkipped: c.skipped.Load(),
		ScanTime: time.Duration(c.scanNanos.Load()), Timeouts: c.timeouts.Load(),
		Snapshots: c.snaps.Load(), SnapshotFailures: c.snapFail.Load(),
		MergeChecks: c.merges.Load(), MergeFailures: c.mergeFail.Load(), MergeCacheHits: c.mergeHits.Load(),
		MergeTime: time.Duration(c.mergeNanos.Load()), Processes: s.cfg.Runner.Processes(),
	}
}
