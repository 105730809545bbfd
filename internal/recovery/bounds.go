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
// (ReasonOverMaxBytes): what it wrote (its loose objects), and, where it
// borrowed, what it will pack of its lender's, measured by git
// (rev-list --disk-usage) only when the sum of the two could be over.
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
		lent := s.lim.MaxBytes + 1 // unknown while the lender is being finished: measured
		if b.loan == nil {
			x := &s.idx
			x.mu.Lock()
			if e, ok := x.byID[b.lender]; ok && !e.bad {
				lent = e.bytes
			}
			x.mu.Unlock()
		}
		size = own + lent
		if size > s.lim.MaxBytes {
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
