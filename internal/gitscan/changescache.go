package gitscan

import (
	"sync"
	"time"
)

// Bounds of the changes cache.
const (
	// baseTTL is how long a worktree's default base is kept before git is
	// asked again: a brain's default branch (origin/HEAD, the main
	// worktree's branch) changes rarely, and a change shows within it.
	baseTTL = 30 * time.Second
	// maxCachedEntries bounds each of the cache's maps; past it the map
	// starts again.
	maxCachedEntries = 1024
	// maxCachedCommitted bounds the committed files one entry keeps: a
	// longer list is asked of git every scan.
	maxCachedCommitted = 2 * DefaultMaxFiles
)

// changesCache keeps, between scans, what a scan would ask git again and
// again and what rarely changes: a worktree's default base, for baseTTL,
// and what its branch committed since the merge base, by the two commits
// that answer depends on alone (HEAD and the base's commit). A steady
// scan then runs two git processes, rev-parse and status, not five or six.
// It is safe for concurrent use.
type changesCache struct {
	mu        sync.Mutex
	now       func() time.Time
	bases     map[string]cachedBase
	committed map[[2]string]cachedCommitted
}

type cachedBase struct {
	ref string
	at  time.Time
}

type cachedCommitted struct {
	mergeBase string
	files     []string // never changed once stored: shared by every Changes
}

func newChangesCache() *changesCache {
	return &changesCache{now: time.Now, bases: map[string]cachedBase{}, committed: map[[2]string]cachedCommitted{}}
}

// base is the worktree's default base as last asked, if not too old.
func (c *changesCache) base(wt string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.bases[wt]
	if !ok || c.now().Sub(b.at) > baseTTL {
		return "", false
	}
	return b.ref, true
}

func (c *changesCache) putBase(wt, ref string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bases) >= maxCachedEntries {
		clear(c.bases)
	}
	c.bases[wt] = cachedBase{ref: ref, at: c.now()}
}

// forgetBase drops a worktree's base: git no longer resolves it.
func (c *changesCache) forgetBase(wt string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.bases, wt)
}

// commits answers what was committed between the merge base of head and
// the base commit and head.
func (c *changesCache) commits(head, baseCommit string) (cachedCommitted, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.committed[[2]string{head, baseCommit}]
	return e, ok
}

func (c *changesCache) putCommits(head, baseCommit string, e cachedCommitted) {
	if len(e.files) > maxCachedCommitted {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.committed) >= maxCachedEntries {
		clear(c.committed)
	}
	c.committed[[2]string{head, baseCommit}] = e
}
