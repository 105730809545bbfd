package gitscan

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
)

// MaxConflicts is the most conflicting files a Merge lists.
const MaxConflicts = 100

// Merge is git's prediction of merging two snapshots.
type Merge struct {
	Conflict bool
	// Conflicts are the conflicting paths, repository-relative, sorted,
	// at most MaxConflicts; ConflictsTotal counts them all.
	Conflicts      []string
	ConflictsTotal int
}

// PredictMerge merges two snapshots of one repository the way git merge
// would, without a worktree or an index: git merge-tree --write-tree
// --name-only, against their merge base (for snapshots, where their HEADs
// part; git 2.39 has no --merge-base option, which is why a snapshot's
// parent is its HEAD). The snapshots' objects are read from the scratch
// in, where the result tree is written too: no object, index or ref of
// the repository is touched. Two snapshots of two clones of one
// repository (their GitDirs differ) are merged the same way, both
// clones' objects read (Scratch.pairEnv): the merge base is found where
// both histories are, nothing written into either clone.
func (r *Runner) PredictMerge(ctx context.Context, in *Scratch, a, b Snapshot) (Merge, error) {
	env, err := in.pairEnv(a.GitDir, b.GitDir)
	if err != nil {
		return Merge{}, &Error{Code: Failed, Op: "object directory", Err: err}
	}
	out, err := r.Run(ctx, Cmd{Dir: a.Top, Env: env, Args: mergeTreeArgs(a.Commit, b.Commit), OK: []int{1}})
	if err != nil {
		return Merge{}, refusal(err)
	}
	return readMerge(out)
}

// ErrUnrelatedHistories is git's refusal to merge two commits that share
// no history (two unrelated repositories joined by RepositoryKey, an
// orphan branch): no later run answers otherwise, so a MergeCache keeps
// it as it keeps a prediction.
var ErrUnrelatedHistories = errors.New("git refuses to merge unrelated histories")

// refusal reads a failed merge-tree: git's refusal of unrelated
// histories (its message, which the C locale of every run fixes) as
// ErrUnrelatedHistories, any other failure as it is.
func refusal(err error) error {
	if CodeOf(err) == Failed && strings.Contains(err.Error(), "refusing to merge unrelated histories") {
		return &Error{Code: Failed, Op: "git merge-tree", Err: ErrUnrelatedHistories}
	}
	return err
}

// mergeTreeArgs is the merge-tree every prediction runs.
func mergeTreeArgs(a, b string) []string {
	return []string{"merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", a, b}
}

// readMerge reads merge-tree's answer (mergeTreeArgs).
func readMerge(out Output) (Merge, error) {
	fields := splitNUL(out.Stdout, out.Cut)
	if len(fields) == 0 {
		return Merge{}, &Error{Code: Failed, Op: "git merge-tree", Err: errorf("no tree in the answer")}
	}
	m := Merge{Conflict: out.Exit == 1}
	var files []string
	for _, f := range fields[1:] { // the merged tree's id first
		if f != "" {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	m.ConflictsTotal = len(files)
	if len(files) > MaxConflicts {
		files = files[:MaxConflicts:MaxConflicts]
	}
	m.Conflicts = files
	return m, nil
}

// DefaultMergeCacheSize is the most predictions a MergeCache keeps.
const DefaultMergeCacheSize = 1024

// MergeCache keeps merge predictions by the two commits merged: a
// snapshot's commit id is a function of its tree and its HEAD alone (see
// snapshotEnv), so two sides whose working trees and HEADs have not
// changed are never merged again. It keeps git's refusal to merge
// unrelated histories too (ErrUnrelatedHistories), never another
// failure (a timeout; objects not here yet, which a fetch may bring). It
// holds at most its size, dropping the oldest. Safe for concurrent use.
type MergeCache struct {
	mu    sync.Mutex
	max   int
	byKey map[[2]string]cachedMerge
	order [][2]string // insertion order, for dropping the oldest
}

// cachedMerge is a prediction, or git's refusal of unrelated histories.
type cachedMerge struct {
	m         Merge
	unrelated bool
}

// NewMergeCache returns a cache of at most size predictions (default
// DefaultMergeCacheSize).
func NewMergeCache(size int) *MergeCache {
	size = orDefault(size, DefaultMergeCacheSize)
	return &MergeCache{max: size, byKey: make(map[[2]string]cachedMerge, size)}
}

// Predict answers the merge of the commits a and b from the cache when
// they were merged before (hit), else by predict, keeping its answer: a
// prediction, or git's refusal of unrelated histories (then err is
// ErrUnrelatedHistories, hit or not).
func (c *MergeCache) Predict(a, b string, predict func() (Merge, error)) (m Merge, hit bool, err error) {
	k := mergeKey(a, b)
	c.mu.Lock()
	e, ok := c.byKey[k]
	c.mu.Unlock()
	switch {
	case ok && e.unrelated:
		return Merge{}, true, &Error{Code: Failed, Op: "git merge-tree", Err: ErrUnrelatedHistories}
	case ok:
		return e.m, true, nil
	}
	m, err = predict()
	switch {
	case errors.Is(err, ErrUnrelatedHistories):
		c.put(k, cachedMerge{unrelated: true})
	case err == nil:
		c.put(k, cachedMerge{m: m})
	}
	return m, false, err
}

// mergeKey orders the pair: a merge's conflicts do not depend on which
// side is ours.
func mergeKey(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// put keeps an answer, dropping the oldest past the cache's size.
func (c *MergeCache) put(k [2]string, m cachedMerge) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; ok {
		c.byKey[k] = m
		return
	}
	for len(c.order) >= c.max {
		delete(c.byKey, c.order[0])
		c.order = c.order[1:]
	}
	c.byKey[k] = m
	c.order = append(c.order, k)
}

// Len is the number of predictions kept.
func (c *MergeCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey)
}
