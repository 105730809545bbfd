package remotewatch

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/hall-dev/hall/internal/gitscan"
)

// Defaults: see Config.
const (
	DefaultInterval    = 60 * time.Second
	DefaultActiveFor   = 14 * 24 * time.Hour
	DefaultMaxBranches = 200
	// DefaultTimeout bounds each git the watch runs: a fetch of a large
	// remote's new tips takes longer than a scan's git.
	DefaultTimeout = 2 * time.Minute
	// MaxBackoff is the longest a failing remote waits between two looks.
	MaxBackoff = 30 * time.Minute
	// MaxBranchFiles is the most files of a branch's changes kept to
	// compare; past it the branch's list is cut (and counted).
	MaxBranchFiles = 5000
	// MaxOverlapFiles is the most overlapping files a Pushed lists.
	MaxOverlapFiles = 20
	// defaultEvery is how often the default branch's name is asked again.
	defaultEvery = time.Hour
)

// Results reads the scanner's latest answer for a worktree
// (*gitscan.Scanner).
type Results interface {
	Result(worktree string) (gitscan.Result, bool)
}

// Config is a Watcher's.
type Config struct {
	// Runner runs git: one of the watch's own (a fetch must not hold the
	// scanner's processes), its timeout DefaultTimeout or more.
	Runner *gitscan.Runner
	// Root is the directory the stores are kept in (the Hall's own,
	// made 0700).
	Root string
	// Results is the scanner: each worktree's changes.
	Results Results
	// Interval between two looks at a remote (default DefaultInterval).
	Interval time.Duration
	// ActiveFor: a branch whose tip was committed longer ago is not
	// active (default DefaultActiveFor).
	ActiveFor time.Duration
	// MaxBranches: the most active branches kept per remote, newest
	// first; the rest are counted (default DefaultMaxBranches).
	MaxBranches int
	// Notify is called when what Pushed or Remotes answer changed.
	Notify func()
	Clock  clockwork.Clock
	// Board, when set, shares the watch with the Halls on the same NATS
	// store: one of them looks at each remote and the others read its
	// answer (share.go). Nil, or the board unreachable: this Hall looks
	// itself.
	Board Board
	// Host is this Hall's host name (--host-name): it names the lease's
	// holder, and keys a local path's watch apart from another host's.
	Host string
	// Logger says what the watch could not keep (default: discarded).
	Logger *slog.Logger
}

// Branch is one active branch of a remote.
type Branch struct {
	Name        string // short: "feat", not refs/heads/feat
	Commit      string // its tip
	Author      string // the tip's author's name, as git has it
	CommittedMs int64  // the tip's committer date
	// SeenMs is when a Hall (this one, or the one sharing its watch)
	// first saw this tip on the remote: not when it was pushed, which no
	// one but the remote knows.
	SeenMs int64
	// Files are what it changed against its merge base with the default
	// branch, sorted, at most MaxBranchFiles; FilesTotal counts them.
	Files      []string
	FilesTotal int
}

// Remote is one watched remote as the surfaces read it.
type Remote struct {
	Identity   string // gitscan.RemoteIdentity
	Default    string // the default branch's name ("" before the first look)
	DefaultTip string
	// Branches are the active ones, newest first, at most MaxBranches;
	// Omitted counts the active ones past the bound.
	Branches []Branch
	Omitted  int
	// LastGood is when a look last succeeded (zero: never); Err is the
	// last look's failure, "" when it succeeded, and FailingSince when
	// the failures began.
	LastGood     time.Time
	Err          string
	FailingSince time.Time
	Worktrees    int // the live worktrees fetching from it
	// SharedBy is the host name of the Hall whose look the last answer
	// is ("" this Hall's own; see Config.Board); LastGood is then the
	// time of that Hall's look.
	SharedBy string
}

// watch is one remote's state.
type watch struct {
	identity  string
	store     *store
	heads     map[string]string // the store's branches as last fetched
	def       string
	defAsked  time.Time
	branches  []Branch
	defTip    Branch // the default branch's tip, its Files left empty
	omitted   int
	changed   map[[2]string]changedFiles // (default tip, tip) → files
	next      time.Time
	fails     int
	lastGood  time.Time
	err       string
	failSince time.Time
	opened    bool
	seen      map[string]int64 // tip → when first seen (ms), for the tips in heads
	share     shareState
}

type changedFiles struct {
	files []string
	total int
}

// Watcher watches the remotes of the tracked worktrees. Safe for
// concurrent use; Run does the work.
type Watcher struct {
	cfg    Config
	wake   chan struct{}
	holder string // this Hall as a lease's holder (share.go)

	mu         sync.Mutex
	tracked    map[string]bool      // live worktrees
	origins    map[string]*resolved // worktree → its remote
	watches    map[string]*watch    // identity → its watch
	pushed     map[string][]Pushed  // worktree → its overlaps with pushed branches
	dirty      map[string]bool      // worktrees whose changes moved since their overlaps were found
	preds      *gitscan.MergeCache
	snaps      map[string]snapKept        // worktree → its last snapshot
	defChanged map[[2]string]changedFiles // (a worktree's HEAD, the default tip) → what the default branch changed since
	scratch    *gitscan.Scratch
	stats      Stats
}

// Stats counts what the watch asked of git since it was made.
type Stats struct {
	Remotes  int   // remotes watched now
	Failing  int   // of them, those whose last look failed
	Looks    int64 // git ls-remote --heads, one a remote a look
	Fetches  int64 // fetches into a store: a tip moved
	Failures int64 // looks that failed (unreachable, refused, timed out)
	Shared   int64 // looks answered by another Hall's look (Config.Board): no ls-remote
}

// Stats returns the counters.
func (w *Watcher) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.stats
	st.Remotes = len(w.watches)
	for _, wa := range w.watches {
		if wa.err != "" {
			st.Failing++
		}
	}
	return st
}

type resolved struct {
	origin
	branch string // the scan's branch when resolved: resolved again when it moves
	err    error
}

// New makes a watcher; Run starts it.
func New(cfg Config) *Watcher {
	cfg.Interval = orDefault(cfg.Interval, DefaultInterval)
	cfg.ActiveFor = orDefault(cfg.ActiveFor, DefaultActiveFor)
	cfg.MaxBranches = orDefault(cfg.MaxBranches, DefaultMaxBranches)
	if cfg.Clock == nil {
		cfg.Clock = clockwork.NewRealClock()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Watcher{
		cfg: cfg, wake: make(chan struct{}, 1), holder: newHolder(cfg.Host),
		tracked: map[string]bool{}, origins: map[string]*resolved{}, watches: map[string]*watch{},
		pushed: map[string][]Pushed{}, dirty: map[string]bool{}, preds: gitscan.NewMergeCache(0), snaps: map[string]snapKept{}, defChanged: map[[2]string]changedFiles{},
	}
}

// Track says which worktrees are live; cheap (the work is Run's).
func (w *Watcher) Track(worktrees []string) {
	w.mu.Lock()
	changed := len(worktrees) != len(w.tracked)
	for _, wt := range worktrees {
		if !w.tracked[wt] {
			changed = true
			break
		}
	}
	if changed {
		w.tracked = make(map[string]bool, len(worktrees))
		for _, wt := range worktrees {
			w.tracked[wt] = true
			w.dirty[wt] = true
		}
	}
	w.mu.Unlock()
	if changed {
		w.poke()
	}
}

// Changed says a worktree's changes moved (the scanner's news): its
// overlaps with pushed branches are found again.
func (w *Watcher) Changed(worktree string) {
	w.mu.Lock()
	if w.tracked[worktree] {
		w.dirty[worktree] = true
	}
	w.mu.Unlock()
	w.poke()
}

func (w *Watcher) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run looks at each remote at its interval, and at the worktrees whose
// changes moved as soon as told, until ctx ends; then it releases the
// leases it holds on a shared board, for another Hall to take at once.
func (w *Watcher) Run(ctx context.Context) error {
	timer := w.cfg.Clock.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			w.release(ctx)
			return nil
		case <-timer.Chan():
		case <-w.wake:
		}
		next := w.step(ctx, false)
		timer.Reset(max(next.Sub(w.cfg.Clock.Now()), time.Second))
	}
}

// Look looks at every watched remote now, whatever its interval or
// backoff, and finds every tracked worktree's overlaps again: a test's
// or a one-shot caller's step.
func (w *Watcher) Look(ctx context.Context) {
	w.mu.Lock()
	for wt := range w.tracked {
		w.dirty[wt] = true
	}
	w.mu.Unlock()
	w.step(ctx, true)
}

// step resolves the worktrees new to it, looks at the remotes due (all
// when now), finds the overlaps of the worktrees whose changes or
// remote moved, and answers when the next remote is due.
func (w *Watcher) step(ctx context.Context, now bool) time.Time {
	notify := w.resolveAll(ctx)
	w.mu.Lock()
	due := []*watch{}
	clock := w.cfg.Clock.Now()
	for _, wa := range w.watches {
		if now || !clock.Before(wa.next) {
			due = append(due, wa)
		}
	}
	w.mu.Unlock()
	for _, wa := range due {
		if w.look(ctx, wa) {
			notify = true
		}
	}
	w.renew(ctx, clock)
	if w.findAll(ctx) {
		notify = true
	}
	if notify && w.cfg.Notify != nil {
		w.cfg.Notify()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	next := clock.Add(w.cfg.Interval)
	for _, wa := range w.watches {
		if wa.next.Before(next) {
			next = wa.next
		}
	}
	if r := w.nextRenewal(); !r.IsZero() && r.Before(next) {
		next = r
	}
	return next
}

// resolveAll reads the origin of each tracked worktree not resolved yet
// or whose branch moved, makes a watch for each remote newly fetched
// from and drops the watches no worktree fetches from any more.
func (w *Watcher) resolveAll(ctx context.Context) bool {
	w.mu.Lock()
	var todo []string
	for wt := range w.tracked {
		r := w.origins[wt]
		if r == nil || r.branch != w.branchOf(wt) {
			todo = append(todo, wt)
		}
	}
	for wt := range w.origins {
		if !w.tracked[wt] {
			delete(w.origins, wt)
			delete(w.pushed, wt)
			delete(w.snaps, wt)
		}
	}
	w.mu.Unlock()
	for _, wt := range todo {
		branch := w.branchOf(wt)
		o, err := resolve(ctx, w.cfg.Runner, wt)
		w.mu.Lock()
		if w.tracked[wt] {
			w.origins[wt] = &resolved{origin: o, branch: branch, err: err}
			w.dirty[wt] = true
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	used := map[string]origin{}
	for _, r := range w.origins {
		if r.err == nil && r.Identity != "" {
			used[r.Identity] = r.origin
		}
	}
	changed := false
	for id, o := range used {
		if w.watches[id] == nil {
			w.watches[id] = &watch{identity: id, store: &store{dir: storeDir(w.cfg.Root, id), url: fetchURL(o), run: w.cfg.Runner}}
			changed = true
		}
		wa := w.watches[id]
		if wa.store.url != fetchURL(o) {
			wa.store.url, wa.opened = fetchURL(o), false
		}
		if !wa.opened {
			var helpers []string
			for _, r := range w.origins {
				if r.Identity == id {
					helpers = append(helpers, r.Helpers...)
				}
			}
			slices.Sort(helpers)
			wa.store.auth.Helpers = slices.Compact(helpers)
		}
	}
	for id := range w.watches {
		if _, ok := used[id]; !ok {
			delete(w.watches, id)
			changed = true
		}
	}
	return changed
}

// branchOf is the scanner's branch for a worktree ("" unknown).
func (w *Watcher) branchOf(wt string) string {
	if w.cfg.Results == nil {
		return ""
	}
	res, ok := w.cfg.Results.Result(wt)
	if !ok {
		return ""
	}
	return res.Changes.Branch
}

// look asks the remote for its branches (or reads the answer of the Hall
// sharing its watch) and, when a tip moved, fetches and reads the active
// branches again; it reports whether what the watch says changed.
func (w *Watcher) look(ctx context.Context, wa *watch) bool {
	clock := w.cfg.Clock.Now()
	st := wa.store
	fail := func(err error) bool {
		w.mu.Lock()
		wa.fails++
		w.stats.Failures++
		wa.next = clock.Add(min(w.cfg.Interval<<min(wa.fails, 10), MaxBackoff))
		was := wa.err
		wa.err = redactURLs(err.Error())
		if was == "" {
			wa.failSince = clock
		}
		msg := wa.err
		w.mu.Unlock()
		w.publish(ctx, wa, clock, msg)
		return was == ""
	}
	if !wa.opened {
		if err := st.open(ctx); err != nil {
			return fail(err)
		}
		st.auth = w.cfg.Runner.RemoteAuth(ctx, st.dir, st.auth.Helpers)
		heads, err := st.localHeads(ctx)
		if err != nil {
			return fail(err)
		}
		seen := st.loadSeen()
		w.mu.Lock()
		wa.heads, wa.opened, wa.seen = heads, true, seen
		w.mu.Unlock()
	}
	ans, r := w.shared(ctx, wa, clock)
	if r == wait {
		w.mu.Lock()
		wa.next = clock.Add(min(waitRetry, w.cfg.Interval))
		w.mu.Unlock()
		return false
	}
	shared := r == follow
	var remote map[string]string
	if shared {
		if ans.Err != "" {
			return fail(fmt.Errorf("the Hall on %s that watches this remote: %s", ans.Host, ans.Err))
		}
		if clock.Sub(wa.defAsked) >= defaultEvery {
			if err := st.prune(ctx); err != nil {
				return fail(err)
			}
		}
		w.mu.Lock()
		if wa.def != ans.Default {
			wa.def, wa.branches = ans.Default, nil
		}
		if clock.Sub(wa.defAsked) >= defaultEvery {
			wa.defAsked, wa.branches = clock, nil
		}
		w.stats.Shared++
		w.mu.Unlock()
		remote = ans.Heads
	} else {
		if wa.def == "" || clock.Sub(wa.defAsked) >= defaultEvery {
			def, err := st.defaultBranch(ctx)
			if err != nil {
				return fail(err)
			}
			if err := st.prune(ctx); err != nil {
				return fail(err)
			}
			w.mu.Lock()
			wa.defAsked = clock
			wa.def, wa.branches = def, nil // the branches' ages are read again too
			w.mu.Unlock()
		}
		w.mu.Lock()
		w.stats.Looks++
		w.mu.Unlock()
		var err error
		if remote, err = st.lsRemote(ctx); err != nil {
			return fail(err)
		}
	}
	moved := !maps.Equal(remote, wa.heads)
	if moved {
		w.mu.Lock()
		w.stats.Fetches++
		have := maps.Clone(wa.heads)
		w.mu.Unlock()
		var err error
		if shared {
			err = st.fetchTips(ctx, remote, have)
		} else {
			err = st.fetch(ctx)
		}
		if err != nil {
			return fail(err)
		}
		heads, err := st.localHeads(ctx)
		if err != nil {
			return fail(err)
		}
		w.mu.Lock()
		wa.heads = heads
		w.mu.Unlock()
	}
	if seen, ok := w.markSeen(wa, clock, ans.SeenMs); ok {
		if err := st.saveSeen(seen); err != nil {
			w.cfg.Logger.Warn("the watch store: first-seen times not kept; a restart sees its tips anew", "err", err)
		}
	}
	var branches []Branch
	var defTip Branch
	omitted := 0
	if moved || wa.branches == nil {
		var err error
		branches, omitted, err = w.active(ctx, wa, clock)
		if err != nil {
			return fail(err)
		}
		if wa.def != "" {
			t, ok, err := st.tipOf(ctx, wa.def)
			if err != nil {
				return fail(err)
			}
			if ok {
				defTip = Branch{Name: t.Name, Commit: t.Commit, Author: t.Author, CommittedMs: t.CommittedMs, SeenMs: wa.seenOf(t.Commit)}
			}
		}
		omitted += ans.Omitted // the branches the sharing Hall left out
	}
	w.mu.Lock()
	changed := wa.err != "" || wa.lastGood.IsZero()
	wa.fails, wa.err, wa.failSince, wa.lastGood = 0, "", time.Time{}, clock
	if shared {
		wa.lastGood = time.UnixMilli(ans.LookedMs)
	}
	wa.next = clock.Add(w.cfg.Interval)
	if moved || wa.branches == nil {
		if !sameBranches(wa.branches, branches) || wa.omitted != omitted || wa.defTip.Commit != defTip.Commit {
			changed = true
		}
		wa.branches, wa.omitted, wa.defTip = branches, omitted, defTip
		if wa.branches == nil {
			wa.branches = []Branch{}
		}
		for wt, r := range w.origins {
			if r.Identity == wa.identity {
				w.dirty[wt] = true
			}
		}
	}
	w.mu.Unlock()
	if !shared {
		w.publish(ctx, wa, clock, "")
	}
	return changed
}

// markSeen keeps when each tip of the store was first seen: now for a tip
// new to this Hall, or earlier when the sharing Hall saw it first
// (shared, by commit). Tips no longer there are forgotten. It answers
// the times when they changed (for the store's seenFile), else false.
func (w *Watcher) markSeen(wa *watch, now time.Time, shared map[string]int64) (map[string]int64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := make(map[string]int64, len(wa.heads))
	for _, id := range wa.heads {
		ms, ok := wa.seen[id]
		if !ok {
			ms = now.UnixMilli()
		}
		if s, ok := shared[id]; ok && s > 0 && s < ms {
			ms = s
		}
		seen[id] = ms
	}
	changed := !maps.Equal(seen, wa.seen)
	wa.seen = seen
	for i := range wa.branches {
		wa.branches[i].SeenMs = seen[wa.branches[i].Commit]
	}
	if wa.defTip.Commit != "" {
		wa.defTip.SeenMs = seen[wa.defTip.Commit]
	}
	if !changed {
		return nil, false
	}
	return maps.Clone(seen), true
}

// seenOf is when a tip was first seen (0: unknown).
func (wa *watch) seenOf(commit string) int64 { return wa.seen[commit] }

// active reads the active branches from the store: unmerged into the
// default branch, committed within ActiveFor, newest first, at most
// MaxBranches, each with the files it changed.
func (w *Watcher) active(ctx context.Context, wa *watch, now time.Time) ([]Branch, int, error) {
	tips, err := wa.store.unmerged(ctx, wa.def)
	if err != nil {
		return nil, 0, err
	}
	defTip := wa.heads[wa.def]
	since := now.Add(-w.cfg.ActiveFor).UnixMilli()
	keep := map[[2]string]changedFiles{}
	var out []Branch
	omitted := 0
	for _, t := range tips {
		if t.Name == wa.def || t.CommittedMs < since {
			continue
		}
		if len(out) >= w.cfg.MaxBranches {
			omitted++
			continue
		}
		b := Branch{Name: t.Name, Commit: t.Commit, Author: t.Author, CommittedMs: t.CommittedMs, SeenMs: wa.seenOf(t.Commit)}
		if defTip != "" {
			k := [2]string{defTip, t.Commit}
			cf, ok := wa.changed[k]
			if !ok {
				files, total, err := wa.store.changed(ctx, defTip, t.Commit, MaxBranchFiles)
				if err != nil {
					continue // no merge base with the default branch: nothing to compare
				}
				slices.Sort(files)
				cf = changedFiles{files: files, total: total}
			}
			keep[k] = cf
			b.Files, b.FilesTotal = cf.files, cf.total
		}
		out = append(out, b)
	}
	w.mu.Lock()
	wa.changed = keep
	w.mu.Unlock()
	return out, omitted, nil
}

// userinfoRE is a URL's user and password.
var userinfoRE = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]*@`)

// redactURLs drops every URL's user and password from git's words, which
// health shows.
func redactURLs(s string) string { return userinfoRE.ReplaceAllString(s, "$1") }

func sameBranches(a, b []Branch) bool {
	return slices.EqualFunc(a, b, func(x, y Branch) bool { return x.Name == y.Name && x.Commit == y.Commit })
}

// Remotes answers each watched remote's state, by identity.
func (w *Watcher) Remotes() []Remote {
	w.mu.Lock()
	defer w.mu.Unlock()
	count := map[string]int{}
	for _, r := range w.origins {
		count[r.Identity]++
	}
	out := make([]Remote, 0, len(w.watches))
	for _, wa := range w.watches {
		out = append(out, Remote{
			Identity: wa.identity, Default: wa.def, DefaultTip: wa.heads[wa.def],
			Branches: slices.Clone(wa.branches), Omitted: wa.omitted,
			LastGood: wa.lastGood, Err: wa.err, FailingSince: wa.failSince, Worktrees: count[wa.identity],
			SharedBy: wa.share.sharedBy,
		})
	}
	slices.SortFunc(out, func(a, b Remote) int { return compareStrings(a.Identity, b.Identity) })
	return out
}

// Root is the directory the stores are kept in.
func (w *Watcher) Root() string { return w.cfg.Root }

// StoreDir is where the watch keeps a remote's store (for the docs'
// reader and the tests).
func StoreDir(root, identity string) string { return storeDir(root, identity) }

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
