package recovery

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hall-dev/hall/internal/gitscan"
)

// The store's bounds (Limits) hold after every snapshot recorded, not
// only when Prune runs: a snapshot whose record is finished drops the
// oldest others past MaxCount, MaxBytes or MaxAge at once (enforce), and
// a snapshot that alone would be over MaxBytes is refused before its
// hook answer says "saved" (checkSize). A snapshot being finished, and
// one a snapshot being finished borrows from, is never dropped; the one
// in flight is not counted until recorded.

// enforce drops the recorded snapshots past the store's limits: older
// than MaxAge, then the oldest while more than MaxCount are kept or
// they take more than MaxBytes; never keep (the snapshot whose record
// called it, just answered for as saved; "" none). It reads the index,
// never a record.
func (s *Store) enforce(keep string) (PruneResult, error) {
	var res PruneResult
	if s.lim.NoPrune {
		return res, nil
	}
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := s.indexLocked(); err != nil {
		return res, err
	}
	now := s.now()
	var total int64
	count := 0
	for _, id := range x.ids {
		if e := x.byID[id]; !e.bad {
			total += e.bytes
			count++
		}
	}
	for _, id := range slices.Clone(x.ids) {
		e := x.byID[id]
		if e.bad || id == keep {
			continue
		}
		old := now.Sub(e.taken) > s.lim.MaxAge
		if !old && count <= s.lim.MaxCount && total <= s.lim.MaxBytes {
			break // the rest are newer
		}
		if !s.claimDrop(e) {
			continue // lent to a snapshot being finished: kept, counted
		}
		if err := os.RemoveAll(filepath.Join(s.dir, id)); err != nil {
			continue
		}
		x.forgetLocked(id)
		res.Dropped++
		res.Freed += e.bytes
		total -= e.bytes
		count--
	}
	res.Kept, res.Bytes = count, total
	return res, nil
}

// claimDrop tells whether a recorded snapshot may be removed (none being
// finished borrows from it) and, if so, makes sure none will: it is no
// longer its worktree's newest, the one the next snapshot borrows from,
// nor one of its kept scan snapshots.
// One lock for both, so that no borrow slips between the check and the
// removal.
func (s *Store) claimDrop(e indexed) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lent[e.id] > 0 {
		return false
	}
	if s.newest[e.worktree] == e.id {
		delete(s.newest, e.worktree)
	}
	if e.kind == TriggerScan { // nor the last scan snapshot Adopt compares a new one with
		s.scans[e.worktree] = slices.DeleteFunc(s.scans[e.worktree], func(k scanKept) bool { return k.id == e.id })
	}
	return true
}

// checkSize refuses a snapshot just begun (its objects written, not yet
// answered for) that would alone take more than MaxBytes in the store
// (ReasonOverMaxBytes). Its size is at most what it wrote (its loose
// objects) and what it will pack of the snapshots it borrowed from
// (lentBound); only where that bound is over MaxBytes, or unknown, does
// git measure it (rev-list --disk-usage): a hook answer that borrows from
// a small snapshot, finished or not, runs no git for it.
func (s *Store) checkSize(ctx context.Context, b begun) error {
	if s.lim.NoPrune {
		return nil
	}
	own, err := dirSize(b.tmp)
	if err != nil {
		return nil // measured at its record instead
	}
	size := own
	if own <= s.lim.MaxBytes && b.lender != "" {
		lent, known := s.lentBound(b.lender)
		if size = own + lent; !known || size > s.lim.MaxBytes {
			if size, err = s.diskUsage(ctx, b); err != nil {
				return nil // git could not say: measured at its record instead
			}
		}
	}
	if size > s.lim.MaxBytes {
		return &NotSavedError{Reason: ReasonOverMaxBytes,
			Detail: "the snapshot takes " + strconv.FormatInt(size, 10) + " bytes, over --snapshot-max-bytes " + strconv.FormatInt(s.lim.MaxBytes, 10)}
	}
	return nil
}

// maxLoanChain bounds the snapshots being finished lentBound follows, each
// borrowing from the one before.
const maxLoanChain = 8

// lentBound bounds what a snapshot borrowing from lender may pack of
// it: the lender's size once recorded; while it is being finished, what
// it wrote so far (its directory) and, in turn, its own lender's bound.
// Not known (false) past maxLoanChain or when a directory could not be
// read (finished meanwhile).
func (s *Store) lentBound(lender string) (int64, bool) {
	var bound int64
	for range maxLoanChain {
		if lender == "" {
			return bound, true
		}
		s.mu.Lock()
		f := s.pending[lender]
		s.mu.Unlock()
		if f == nil {
			x := &s.idx
			x.mu.Lock()
			e, ok := x.byID[lender]
			x.mu.Unlock()
			return bound + e.bytes, ok && !e.bad
		}
		n, err := dirSize(f.tmp)
		if err != nil {
			return 0, false
		}
		bound += n
		lender = f.lender
	}
	return 0, false
}

// diskUsage is what the snapshot b adds to its HEAD as stored on disk
// (its own objects and those it borrowed): git rev-list --disk-usage.
func (s *Store) diskUsage(ctx context.Context, b begun) (int64, error) {
	args := []string{"rev-list", "--objects", "--disk-usage", b.snap.Tree}
	if b.snap.Head != "" {
		args = append(args, "--not", b.snap.Head)
	}
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: b.snap.Worktree, Env: gitscan.ObjectsEnv(filepath.Join(b.tmp, "objects"), b.snap.GitDir), Args: args})
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(out.Stdout)), 10, 64)
}
