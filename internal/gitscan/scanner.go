package gitscan

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/presence"
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
type Scanner struct {
	cfg     ScannerConfig
	cache   *MergeCache
	scratch *Scratch
	ownDir  string         // the scratch's directory when the scanner made it; "" otherwise
	ownLock *dirstore.Lock // held on ownDir while the scanner lives (SweepTemp)

	mu      sync.Mutex
	ctx     context.Context // set by Run; nil before and after
	wg      sync.WaitGroup
	trees   map[string]*tracked
	preds   map[[2]string]Prediction
	waiting []string // asked before Run started
	queue   []queued // scans asked, waiting for one of MaxScans: urgent first
	active  int      // scans running

	scans, scanFail, skipped, timeouts atomic.Int64
	scoped                             atomic.Int64 // scans over touched files only
	snaps, snapFail                    atomic.Int64
	merges, mergeFail, mergeHits       atomic.Int64
	scanNanos, mergeNanos              atomic.Int64
}

// queued is a scan waiting in the queue.
type queued struct {
	wt     string
	t      *tracked
	urgent bool
}

// tracked is the scanner's state for one worktree.
type tracked struct {
	queued  bool // a scan waits in the queue
	running bool // a scan is under way
	pending bool // a scan was asked while one ran
	urgent  bool // … and it meets a peer's change (Mutated): no interval
	now     bool // … and a shell ran (ShellRan): no interval, in the queue's order
	// deferred: a mutation since the last scan started was left to the
	// slow rescan (Mutated: it changed only files git lists already).
	deferred bool
	waiting  bool            // a scan was asked while the scanner was not running
	timer    clockwork.Timer // a scan scheduled at the interval's end
	timerN   uint64          // counts timers, so a stopped one that fires anyway is known
	last     time.Time       // when the last scan started
	// lastWhole is when the last scan of the whole worktree started: the
	// slow rescan's clock. A scan scoped to touched files sees nothing
	// else, so it does not reset it (an agent editing every few seconds
	// would otherwise keep a person's edits beside it unseen).
	lastWhole time.Time
	// touched are the files (repository-relative) the worktree's
	// presences reported changing since its last scan started, at most
	// maxTouchedKept: what git will list at the next scan.
	touched map[string]struct{}
	// full: a change not named by a file was asked about since the last
	// scan started (a shell's run, the slow rescan, touched files past
	// the bounds): the next scan reads the whole worktree, not only the
	// touched files (Runner.ChangesOf).
	full    bool
	res     Result
	seq     uint64 // counts results
	snap    Snapshot
	snapSeq uint64 // the result seq the snapshot was taken at; 0: none
	snapGen int    // the scratch generation its objects are in
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
	s := &Scanner{cfg: cfg, cache: cache, scratch: cfg.Scratch, trees: map[string]*tracked{}, preds: map[[2]string]Prediction{}}
	if s.scratch == nil {
		// Made now, removed when Run returns. A temporary directory that
		// cannot be made leaves one that fails each snapshot: the scanner
		// then predicts no merge, and never writes into a repository.
		// What a Hall killed without warning left goes first (SweepTemp);
		// this scratch is held by its lock while the scanner lives.
		SweepTemp(os.TempDir(), time.Now())
		dir, err := os.MkdirTemp("", scratchPrefix+"*")
		if err == nil {
			s.ownLock, _, err = dirstore.TryLock(dir, fmt.Sprintf("pid %d", os.Getpid()))
		}
		if err == nil {
			s.scratch, err = NewScratch(dir, 0)
		}
		if err != nil {
			s.scratch = &Scratch{root: filepath.Join(os.DevNull, "hall-scratch")}
		}
		s.ownDir = dir
	}
	return s
}

// Run scans until ctx ends, then waits for the scans under way (each
// bounded by its timeout) and returns.
func (s *Scanner) Run(ctx context.Context) error {
	s.mu.Lock()
	s.ctx = ctx
	waiting := s.waiting
	s.waiting = nil
	for _, wt := range waiting {
		if t := s.trees[wt]; t != nil {
			t.waiting = false
			s.scheduleLocked(wt, false)
		}
	}
	s.mu.Unlock()
	every, perTick := slowPace(s.cfg.Slow, s.cfg.SlowRate)
	tick := s.cfg.Clock.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			s.ctx = nil
			for _, t := range s.trees {
				if t.timer != nil {
					t.timer.Stop()
					t.timer = nil
				}
				t.queued = false
			}
			s.queue = nil
			s.mu.Unlock()
			s.wg.Wait()
			if s.ownDir != "" {
				_ = os.RemoveAll(s.ownDir)
				_ = s.ownLock.Close()
			}
			return nil
		case now := <-tick.Chan():
			s.mu.Lock()
			for _, wt := range slowDue(s.trees, now, s.cfg.Slow, perTick) {
				s.trees[wt].full = true
				s.scheduleLocked(wt, false)
			}
			s.mu.Unlock()
		}
	}
}

// slowSlices is how many ticks the slow rescan is spread over. Rescanning
// every worktree at once queued 50 scans ahead of a new overlap's
// (urgent ones jump the queue, not the scans already running) and took
// the cores from the hook answers in one burst every period.
const slowSlices = 10

// slowPace is the slow rescan's tick (a slowSlices-th of its period) and
// the most rescans a tick may start at the rate (at least one).
func slowPace(slow time.Duration, rate float64) (every time.Duration, perTick int) {
	every = max(slow/slowSlices, time.Millisecond)
	return every, max(1, int(rate*every.Seconds()))
}

// slowDue picks the worktrees the slow rescan takes at one of its ticks:
// those whose last whole scan started at least slow ago (or not yet),
// the longest waiting first, at most a slowSlices-th of the tracked
// (rounded up) and at most limit. Due ones left over are first at the
// next tick, so each is rescanned within about slow and a tick of its
// last whole scan while the limit allows (and in turn, the longest
// waiting first, past it), and once spread the rescans stay spread: a
// worktree's turn follows its own last whole scan.
func slowDue(trees map[string]*tracked, now time.Time, slow time.Duration, limit int) []string {
	share := min((len(trees)+slowSlices-1)/slowSlices, limit)
	var due []string
	for wt, t := range trees {
		if now.Sub(t.lastWhole) >= slow {
			due = append(due, wt)
		}
	}
	slices.SortFunc(due, func(a, b string) int {
		if c := trees[a].lastWhole.Compare(trees[b].lastWhole); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return due[:min(len(due), share)]
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
		s.scheduleLocked(wt, true)
		for _, p := range stale {
			s.scheduleLocked(p, true)
		}
	case s.listedLocked(wt, touched):
		s.trees[wt].deferred = true
	default:
		s.scheduleLocked(wt, false)
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
	t := s.trees[wt]
	t.full = true
	s.scanNowLocked(wt, t)
}

// scanNowLocked starts a scan of wt without waiting for its interval:
// queued now, in the queue's order, or after the scan under way.
func (s *Scanner) scanNowLocked(wt string, t *tracked) {
	switch {
	case s.ctx == nil:
		s.scheduleLocked(wt, false) // it waits for Run, which scans at once
	case t.running:
		t.pending, t.now = true, true
	case t.queued:
		// The scan waiting will see the command's work.
	default:
		if t.timer != nil {
			t.timer.Stop()
			t.timer = nil
		}
		s.enqueueLocked(wt, t, false)
	}
}

// listedLocked reports whether wt's last scan listed every touched file
// (none given: false), none of them changed in a worktree wt's merge is
// predicted with: the mutation can change neither git's list nor a
// prediction's verdict (two sides conflict only on a path both changed,
// or a file against a directory of it), so no scan is needed for it.
func (s *Scanner) listedLocked(wt string, touched []string) bool {
	t := s.trees[wt]
	c := t.res.Changes
	if t.seq == 0 || t.res.Err != nil || c.Cut || len(touched) == 0 || len(touched) > maxTouchedChecked {
		return false
	}
	rels := make([]string, 0, len(touched))
	for _, abs := range touched {
		rel := relIn(c.Root, wt, abs)
		if _, listed := slices.BinarySearch(c.Files, rel); rel == "" || !listed {
			return false
		}
		rels = append(rels, rel)
	}
	for k := range s.preds {
		if k[0] != wt && k[1] != wt {
			continue
		}
		other := s.trees[k[0]]
		if k[0] == wt {
			other = s.trees[k[1]]
		}
		if other == nil || other.res.Changes.Cut {
			return false
		}
		for _, rel := range rels {
			if _, reported := other.touched[rel]; reported || meetsSorted(rel, other.res.Changes.Files) {
				return false // the pair's merge may change: renew it
			}
		}
	}
	return true
}

// relIn is abs relative to the root git gave for the worktree wt, else
// to wt itself (no root known, or abs under wt's own path only);
// "/"-separated, "" outside both (presence.RelPath).
func relIn(root, wt, abs string) string {
	if rel := presence.RelPath(root, abs); rel != "" {
		return rel
	}
	return presence.RelPath(wt, abs)
}

// meetsSorted reports whether a repository-relative path meets a sorted
// list of them: the path itself, a directory of it listed as a file, or
// files under it (FilesOverlap's rule, a path at a time). A few binary
// searches, however long the list.
func meetsSorted(rel string, files []string) bool {
	for q := rel; q != "." && q != "/" && q != ""; q = path.Dir(q) {
		if _, ok := slices.BinarySearch(files, q); ok {
			return true
		}
	}
	i, _ := slices.BinarySearch(files, rel+"/")
	return i < len(files) && strings.HasPrefix(files[i], rel+"/")
}

// Bounds on the work Mutated does under the lock, whatever it is given.
const (
	maxTouchedChecked = 16  // touched files one call looks at
	maxTouchedKept    = 256 // touched files a worktree remembers between scans
)

// meetLocked notes wt's touched files and reports whether one meets
// another worktree's change (see Mutated): a file wt's last scan did not
// list that another worktree of the repository changed, as git last
// listed or as its presences reported since. stale are those other
// worktrees whose git answer does not list it yet, or whose mutations
// since were left to the slow rescan, to scan now too.
// Nothing before wt's first scan, which is due at once anyway.
func (s *Scanner) meetLocked(wt string, touched []string) (meets bool, stale []string) {
	t := s.trees[wt]
	if t.seq == 0 || t.res.Err != nil || len(touched) == 0 {
		return false, nil
	}
	mine := t.res.Changes
	for _, abs := range touched[:min(len(touched), maxTouchedChecked)] {
		rel := relIn(mine.Root, wt, abs)
		if rel == "" {
			continue
		}
		if t.touched == nil {
			t.touched = map[string]struct{}{}
		}
		if len(t.touched) < maxTouchedKept {
			t.touched[rel] = struct{}{}
		}
		if _, listed := slices.BinarySearch(mine.Files, rel); listed {
			continue // not new here: the interval's scan will do
		}
		for other, o := range s.trees {
			oc := o.res.Changes
			if other == wt || o.seq == 0 || o.res.Err != nil || oc.CommonDir != mine.CommonDir || oc.Root == mine.Root {
				continue
			}
			_, listed := slices.BinarySearch(oc.Files, rel)
			_, reported := o.touched[rel]
			meets = meets || listed || reported
			if ((reported && !listed) || (listed && o.deferred)) && !slices.Contains(stale, other) {
				stale = append(stale, other)
			}
		}
	}
	return meets, stale
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
			if t.timer != nil {
				t.timer.Stop()
			}
			if t.queued {
				s.queue = slices.DeleteFunc(s.queue, func(q queued) bool { return q.t == t })
			}
			delete(s.trees, wt)
			s.dropPredsLocked(wt, nil)
		}
	}
	for wt := range keep {
		if _, ok := s.trees[wt]; !ok && s.trackLocked(wt) {
			s.scheduleLocked(wt, false)
		}
	}
}

// trackLocked adds a worktree, unless it would pass MaxTracked.
func (s *Scanner) trackLocked(wt string) bool {
	if _, ok := s.trees[wt]; ok {
		return true
	}
	if len(s.trees) >= s.cfg.MaxTracked {
		s.skipped.Add(1)
		return false
	}
	s.trees[wt] = &tracked{}
	return true
}

// scheduleLocked starts a scan of wt now, or at the end of its interval
// (now when urgent), or after the scan under way: never two at once,
// never one dropped.
func (s *Scanner) scheduleLocked(wt string, urgent bool) {
	t := s.trees[wt]
	if t == nil {
		return
	}
	if s.ctx == nil {
		if !t.waiting {
			t.waiting = true
			s.waiting = append(s.waiting, wt)
		}
		return
	}
	if t.running {
		t.pending = true
		t.urgent = t.urgent || urgent
		return
	}
	if t.queued {
		if urgent {
			s.enqueueLocked(wt, t, true) // moves it ahead
		}
		return // the scan waiting will see this mutation
	}
	if t.timer != nil {
		if !urgent {
			return // one scan is already due at the interval's end
		}
		t.timer.Stop()
		t.timer = nil
	}
	if wait := s.cfg.Clock.Until(t.last.Add(s.cfg.Interval)); wait > 0 && !t.last.IsZero() && !urgent {
		t.timerN++
		n := t.timerN
		t.timer = s.cfg.Clock.AfterFunc(wait, func() { s.fire(wt, t, n) })
		return
	}
	s.enqueueLocked(wt, t, urgent)
}

// enqueueLocked queues a scan of wt, an urgent one after the urgent ones
// queued before it and ahead of the rest, and starts what the bound
// allows. Each worktree waits at most once: the queue is bounded by the
// tracked worktrees.
func (s *Scanner) enqueueLocked(wt string, t *tracked, urgent bool) {
	if t.queued {
		i := slices.IndexFunc(s.queue, func(q queued) bool { return q.t == t })
		if i < 0 || s.queue[i].urgent {
			return
		}
		s.queue = slices.Delete(s.queue, i, i+1)
	}
	t.queued = true
	at := len(s.queue)
	if urgent {
		at = slices.IndexFunc(s.queue, func(q queued) bool { return !q.urgent })
		if at < 0 {
			at = len(s.queue)
		}
	}
	s.queue = slices.Insert(s.queue, at, queued{wt: wt, t: t, urgent: urgent})
	s.startLocked()
}

// startLocked starts queued scans while fewer than MaxScans run.
func (s *Scanner) startLocked() {
	for s.ctx != nil && s.active < s.cfg.MaxScans && len(s.queue) > 0 {
		q := s.queue[0]
		s.queue = s.queue[1:]
		q.t.queued = false
		if s.trees[q.wt] != q.t {
			continue // forgotten meanwhile
		}
		t := q.t
		t.running, t.last = true, s.cfg.Clock.Now()
		// This scan lists what they changed: only those files, where
		// nothing else was asked about and the last answer stands.
		var scope []string
		if !t.full && t.seq > 0 && t.res.Err == nil {
			scope = slices.Sorted(maps.Keys(t.touched))
		}
		if scope == nil {
			t.lastWhole = t.last
		}
		t.touched, t.deferred, t.full = nil, false, false
		s.active++
		s.wg.Add(1)
		go s.scan(s.ctx, q.wt, t, t.res.Changes, scope)
	}
}

// fire runs the scan timer n scheduled at the end of an interval.
func (s *Scanner) fire(wt string, t *tracked, n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trees[wt] != t || t.timer == nil || t.timerN != n {
		return // forgotten meanwhile, or stopped for a scan run sooner
	}
	t.timer = nil
	s.scheduleLocked(wt, false)
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
	return Stats{
		Tracked: n, Scans: s.scans.Load(), ScopedScans: s.scoped.Load(), ScanFailures: s.scanFail.Load(), ScansSkipped: s.skipped.Load(),
		ScanTime: time.Duration(s.scanNanos.Load()), Timeouts: s.timeouts.Load(),
		Snapshots: s.snaps.Load(), SnapshotFailures: s.snapFail.Load(),
		MergeChecks: s.merges.Load(), MergeFailures: s.mergeFail.Load(), MergeCacheHits: s.mergeHits.Load(),
		MergeTime: time.Duration(s.mergeNanos.Load()), Processes: s.cfg.Runner.Processes(),
	}
}

// scan asks git for wt's changes, then predicts the merges of the pairs
// they overlap, and schedules the scan asked for meanwhile, if any.
func (s *Scanner) scan(ctx context.Context, wt string, t *tracked, prev Changes, scope []string) {
	defer s.wg.Done()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ScanTimeout)
	defer cancel()
	res := s.changes(ctx, wt, prev, scope)
	notify := map[string]bool{}

	s.mu.Lock()
	current := s.trees[wt] == t // not forgotten meanwhile
	var peers []string
	if current {
		if !sameResult(t.res, res) {
			notify[wt] = true
		}
		t.res = res
		t.seq++
		peers = s.peersLocked(wt, res)
		s.dropPredsLocked(wt, peers)
	}
	s.mu.Unlock()

	if current && res.Err == nil {
		for _, peer := range peers {
			if s.predict(ctx, wt, peer) {
				notify[wt], notify[peer] = true, true
			}
		}
	}

	s.mu.Lock()
	t.running = false
	s.active--
	s.startLocked()
	if t.pending && s.trees[wt] == t {
		urgent, now := t.urgent, t.now
		t.pending, t.urgent, t.now = false, false, false
		if now && !urgent {
			s.scanNowLocked(wt, t)
		} else {
			s.scheduleLocked(wt, urgent)
		}
	}
	s.mu.Unlock()
	if s.cfg.Notify != nil {
		for w := range notify {
			s.cfg.Notify(w)
		}
	}
}

// changes runs Changes on wt, or ChangesOf over prev when a scope of
// touched files is given, and counts it.
func (s *Scanner) changes(ctx context.Context, wt string, prev Changes, scope []string) Result {
	res := Result{Changes: Changes{Worktree: wt}, ScannedAt: time.Now()}
	if s.cfg.Runner == nil {
		res.Err = s.cfg.Unavailable
		if res.Err == nil {
			res.Err = &Error{Code: GitMissing, Op: "no git runner"}
		}
		s.skipped.Add(1)
		return res
	}
	start := time.Now()
	var ch Changes
	var err error
	if len(scope) > 0 {
		s.scoped.Add(1)
		ch, err = s.cfg.Runner.ChangesOf(ctx, prev, scope, s.cfg.Changes)
	} else {
		ch, err = s.cfg.Runner.Changes(ctx, wt, s.cfg.Changes)
	}
	s.scanNanos.Add(int64(time.Since(start)))
	switch CodeOf(err) {
	case "":
		s.scans.Add(1)
		res.Changes = Omitted(ch, s.cfg.Omit)
	case NotOnMachine, NotOwned:
		s.skipped.Add(1)
		res.Err = err
	case Timeout:
		s.scans.Add(1)
		s.scanFail.Add(1)
		s.timeouts.Add(1)
		res.Err = err
	default:
		s.scans.Add(1)
		s.scanFail.Add(1)
		res.Err = err
	}
	return res
}

// peersLocked returns the tracked worktrees of wt's repository, other
// than wt, whose latest changes overlap res's by path.
func (s *Scanner) peersLocked(wt string, res Result) []string {
	if res.Err != nil || res.Changes.Total == 0 {
		return nil
	}
	var peers []string
	for other, t := range s.trees {
		o := t.res.Changes
		if other == wt || t.seq == 0 || t.res.Err != nil || o.CommonDir != res.Changes.CommonDir || o.Root == res.Changes.Root {
			continue
		}
		if FilesOverlap(res.Changes.Files, o.Files) {
			peers = append(peers, other)
		}
	}
	return peers
}

// dropPredsLocked forgets wt's predictions with worktrees not in keep.
func (s *Scanner) dropPredsLocked(wt string, keep []string) {
	for k := range s.preds {
		if k[0] != wt && k[1] != wt {
			continue
		}
		other := k[0]
		if other == wt {
			other = k[1]
		}
		found := false
		for _, p := range keep {
			found = found || p == other
		}
		if !found {
			delete(s.preds, k)
		}
	}
}

// predict snapshots both sides (each at most once per result) and
// predicts their merge, from the cache when the two snapshots were merged
// before. It reports whether the pair's prediction changed. When git
// cannot predict, the pair's last prediction is dropped rather than kept
// as if it still held.
func (s *Scanner) predict(ctx context.Context, a, b string) bool {
	k := mergeKey(a, b)
	m, sa, sb, ok := s.merge(ctx, a, b)
	s.mu.Lock()
	defer s.mu.Unlock()
	old, had := s.preds[k]
	if !ok || s.trees[a] == nil || s.trees[b] == nil { // failed, or forgotten meanwhile
		delete(s.preds, k)
		return had
	}
	p := Prediction{Merge: m, A: k[0], B: k[1], CommitA: sa.Commit, CommitB: sb.Commit, PredictedAt: time.Now()}
	if k[0] != a {
		p.CommitA, p.CommitB = sb.Commit, sa.Commit
	}
	s.preds[k] = p
	return !had || old.CommitA != p.CommitA || old.CommitB != p.CommitB
}

// merge snapshots a and b and merges the two snapshots, counting each
// step; false when a step failed.
func (s *Scanner) merge(ctx context.Context, a, b string) (Merge, Snapshot, Snapshot, bool) {
	sa, okA := s.snapshot(ctx, a)
	sb, okB := s.snapshot(ctx, b)
	if !okA || !okB {
		return Merge{}, sa, sb, false
	}
	if m, ok := s.cache.Get(sa.Commit, sb.Commit); ok {
		s.mergeHits.Add(1)
		return m, sa, sb, true
	}
	start := time.Now()
	m, err := s.cfg.Runner.PredictMerge(ctx, s.scratch, sa, sb)
	s.mergeNanos.Add(int64(time.Since(start)))
	s.merges.Add(1)
	if err != nil {
		s.mergeFail.Add(1)
		if CodeOf(err) == Timeout {
			s.timeouts.Add(1)
		}
		return Merge{}, sa, sb, false
	}
	s.cache.Put(sa.Commit, sb.Commit, m)
	return m, sa, sb, true
}

// snapshot returns wt's snapshot for its latest result, taking it from
// that result's list of changed files when there is none yet.
func (s *Scanner) snapshot(ctx context.Context, wt string) (Snapshot, bool) {
	s.mu.Lock()
	t := s.trees[wt]
	if t == nil {
		s.mu.Unlock()
		return Snapshot{}, false
	}
	if t.snapSeq == t.seq && s.scratch.live(t.snapGen) {
		snap := t.snap
		s.mu.Unlock()
		return snap, true
	}
	seq, res := t.seq, t.res
	s.mu.Unlock()
	var snap Snapshot
	var err error
	gen := 0
	// Into the Hall's scratch, never the repository's objects.
	env := func(gitDir string) ([]string, error) {
		e, g, err := s.scratch.env(gitDir)
		gen = g
		return e, err
	}
	defer s.scratch.took()
	if res.Err == nil && res.Changes.Worktree == wt {
		// From the scan's list: the files it names, not a walk of the tree.
		snap, err = s.cfg.Runner.snapshotListed(ctx, res.Changes, env)
	} else {
		snap, err = s.cfg.Runner.snapshot(ctx, filepath.Clean(wt), nil, env)
	}
	s.snaps.Add(1)
	if err != nil {
		s.snapFail.Add(1)
		if CodeOf(err) == Timeout {
			s.timeouts.Add(1)
		}
		return Snapshot{}, false
	}
	s.mu.Lock()
	if s.trees[wt] == t && t.seq == seq {
		t.snap, t.snapSeq, t.snapGen = snap, seq, gen
	}
	s.mu.Unlock()
	if s.cfg.Kept != nil {
		if env, err := s.scratch.Env(snap.GitDir); err == nil {
			s.cfg.Kept(ctx, snap, env)
		}
	}
	return snap, true
}

// sameResult reports whether two results say the same to the roster: the
// same files and the same failure, whenever they were read. A file's
// state (staged since, say) is left out: only the hook answers read it,
// from Result at the time, so it is no reason to nudge the roster.
func sameResult(a, b Result) bool {
	if CodeOf(a.Err) != CodeOf(b.Err) {
		return false
	}
	x, y := a.Changes, b.Changes
	if x.Head != y.Head || x.Branch != y.Branch || x.MergeBase != y.MergeBase || x.Total != y.Total || len(x.Files) != len(y.Files) {
		return false
	}
	return slices.Equal(x.Files, y.Files)
}

// FilesOverlap reports whether two sorted lists of repository-relative
// paths share a path, or one holds a file where the other holds a
// directory of it ("a" against "a/b": a file replaced by a directory).
func FilesOverlap(a, b []string) bool {
	for _, p := range a {
		if meetsSorted(p, b) {
			return true
		}
	}
	return false
}
