package gitscan

import (
	"context"
	"slices"
	"sync/atomic"
	"time"
)

// The scanner's scanning: what runs git for a side and builds what the
// Scanner keeps (its Result, its snapshot, a pair's merge), and the scan
// of one side from start to end. When a side is scanned is schedule.go's.

// reader runs git for one side and builds its answers, counting each
// step. It holds no side's state and takes no lock: Scanner.scan calls it
// between the lock's holds.
type reader struct {
	runner      *Runner // nil: git is not usable here (unavailable says why)
	unavailable error
	opts        ChangesOptions
	omit        func(rel string) bool
	cache       *MergeCache
	scratch     *Scratch
	kept        func(ctx context.Context, snap Snapshot, env []string)
	n           counters
}

// counters are the reader's counts since the scanner was made (Stats).
type counters struct {
	scans, scanFail, skipped, timeouts atomic.Int64
	scoped                             atomic.Int64 // scans over touched files only
	snaps, snapFail                    atomic.Int64
	merges, mergeFail, mergeHits       atomic.Int64
	scanNanos, mergeNanos              atomic.Int64
}

// changes asks git for the side's changes (key names it), all of them or
// over prev for a scope of touched files, and counts it.
func (r *reader) changes(ctx context.Context, key string, sd side, prev Changes, scope []string) Result {
	res := Result{Changes: Changes{Worktree: key}, ScannedAt: time.Now()}
	if r.runner == nil {
		res.Err = r.unavailable
		if res.Err == nil {
			res.Err = &Error{Code: GitMissing, Op: "no git runner"}
		}
		r.n.skipped.Add(1)
		return res
	}
	start := time.Now()
	if len(scope) > 0 {
		r.n.scoped.Add(1)
	}
	ch, err := sd.changes(ctx, r.runner, prev, scope, r.opts)
	r.n.scanNanos.Add(int64(time.Since(start)))
	switch CodeOf(err) {
	case "":
		r.n.scans.Add(1)
		res.Changes = Omitted(ch, r.omit)
	case NotOnMachine, NotOwned:
		r.n.skipped.Add(1)
		res.Err = err
	case Timeout:
		r.n.scans.Add(1)
		r.n.scanFail.Add(1)
		r.n.timeouts.Add(1)
		res.Err = err
	default:
		r.n.scans.Add(1)
		r.n.scanFail.Add(1)
		res.Err = err
	}
	return res
}

// snapshot commits the side's content as res lists it into the scratch,
// never the repository's objects, and returns the scratch generation its
// objects are in; false when git failed. The caller counts it to the
// scratch (took) once done with its objects.
func (r *reader) snapshot(ctx context.Context, sd side, res Result) (Snapshot, int, bool) {
	gen := 0
	env := func(gitDir string) ([]string, error) {
		e, g, err := r.scratch.env(gitDir)
		gen = g
		return e, err
	}
	snap, err := sd.snapshot(ctx, r.runner, res, env)
	r.n.snaps.Add(1)
	if err != nil {
		r.n.snapFail.Add(1)
		if CodeOf(err) == Timeout {
			r.n.timeouts.Add(1)
		}
		return Snapshot{}, 0, false
	}
	return snap, gen, true
}

// keep hands a snapshot taken for a prediction to Kept, with the
// environment that reads its objects.
func (r *reader) keep(ctx context.Context, snap Snapshot) {
	if r.kept == nil {
		return
	}
	if env, err := r.scratch.Env(snap.GitDir); err == nil {
		r.kept(ctx, snap, env)
	}
}

// merge predicts the merge of two snapshots, from the cache when they
// were merged before; false when git failed or refused (unrelated
// histories, asked once).
func (r *reader) merge(ctx context.Context, sa, sb Snapshot) (Merge, bool) {
	m, hit, err := r.cache.Predict(sa.Commit, sb.Commit, func() (Merge, error) {
		start := time.Now()
		m, err := r.runner.PredictMerge(ctx, r.scratch, sa, sb)
		r.n.mergeNanos.Add(int64(time.Since(start)))
		r.n.merges.Add(1)
		if err != nil {
			r.n.mergeFail.Add(1)
			if CodeOf(err) == Timeout {
				r.n.timeouts.Add(1)
			}
		}
		return m, err
	})
	if hit {
		r.n.mergeHits.Add(1)
	}
	return m, err == nil
}

// scan asks git for the side's changes, then predicts the merges of the
// pairs they overlap, and asks for the scan asked for meanwhile, if any.
// ctx is Run's: the scans started when this one ends run on it.
// reported: presences reported touched files since the last scan; the
// roster counted them as observed until git scanned after them (GitOf's
// time), so it is nudged even when git's list is the same (a file a tool
// wrote back as it was).
func (s *Scanner) scan(ctx context.Context, key string, t *tracked, prev Changes, scope []string, reported bool) {
	defer s.wg.Done()
	sctx, cancel := context.WithTimeout(ctx, s.cfg.ScanTimeout)
	defer cancel()
	res := s.read.changes(sctx, key, t.side, prev, scope)
	notify := map[string]bool{}

	s.mu.Lock()
	current := s.trees[key] == t // not forgotten meanwhile
	var peers []string
	if current {
		if reported || !sameResult(t.res, res) {
			notify[key] = true
		}
		t.res = res
		t.seq++
		peers = s.peersLocked(key, res)
		s.dropPredsLocked(key, peers)
	}
	s.mu.Unlock()

	if current && res.Err == nil {
		for _, peer := range peers {
			if s.predict(sctx, key, peer) {
				notify[key], notify[peer] = true, true
			}
		}
	}

	s.mu.Lock()
	again := s.sched.ended(t)
	s.startLocked(ctx) // the freed place goes to the queue's first
	if again != notAsked && s.trees[key] == t {
		s.sched.ask(key, t, again)
		s.startLocked(ctx)
	}
	s.mu.Unlock()
	if s.cfg.Notify != nil {
		for w := range notify {
			s.cfg.Notify(w)
		}
	}
}

// peersLocked returns the tracked sides, other than key, whose latest
// changes overlap res's by path and that the scanner compares with it.
func (s *Scanner) peersLocked(key string, res Result) []string {
	if res.Err != nil || res.Changes.Total == 0 {
		return nil
	}
	var peers []string
	for other, t := range s.trees {
		if other == key || !t.answered() || !compares(t.res.Changes, res.Changes) {
			continue
		}
		if FilesOverlap(res.Changes.Files, t.res.Changes.Files) {
			peers = append(peers, other)
		}
	}
	return peers
}

// dropPredsLocked forgets key's predictions with sides not in keep.
func (s *Scanner) dropPredsLocked(key string, keep []string) {
	for k := range s.preds {
		if k[0] != key && k[1] != key {
			continue
		}
		other := k[0]
		if other == key {
			other = k[1]
		}
		if !slices.Contains(keep, other) {
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

// merge snapshots a and b and merges the two snapshots; false when a step
// failed.
func (s *Scanner) merge(ctx context.Context, a, b string) (Merge, Snapshot, Snapshot, bool) {
	sa, okA := s.snapshot(ctx, a)
	sb, okB := s.snapshot(ctx, b)
	if !okA || !okB {
		return Merge{}, sa, sb, false
	}
	m, ok := s.read.merge(ctx, sa, sb)
	return m, sa, sb, ok
}

// snapshot returns the side's snapshot for its latest result, taking it
// from that result's list of changed files when there is none yet.
func (s *Scanner) snapshot(ctx context.Context, key string) (Snapshot, bool) {
	s.mu.Lock()
	t := s.trees[key]
	if t == nil {
		s.mu.Unlock()
		return Snapshot{}, false
	}
	if t.snapSeq == t.seq && s.read.scratch.live(t.snapGen) {
		snap := t.snap
		s.mu.Unlock()
		return snap, true
	}
	seq, res := t.seq, t.res
	s.mu.Unlock()
	// Measured (and maybe a generation dropped) once Kept has read it.
	defer s.read.scratch.took()
	snap, gen, ok := s.read.snapshot(ctx, t.side, res)
	if !ok {
		return Snapshot{}, false
	}
	s.mu.Lock()
	if s.trees[key] == t && t.seq == seq {
		t.snap, t.snapSeq, t.snapGen = snap, seq, gen
	}
	s.mu.Unlock()
	s.read.keep(ctx, snap)
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
	if x.Repository != y.Repository || x.Head != y.Head || x.Branch != y.Branch || x.MergeBase != y.MergeBase || x.Total != y.Total || len(x.Files) != len(y.Files) {
		return false
	}
	return slices.Equal(x.Files, y.Files)
}
