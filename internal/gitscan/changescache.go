package gitscan

import (
	"sync"
	"time"
)

// Bounds of the changes cache.
const (
	// baseTTL is how long a repository's default base is kept before git
	// is asked again: a brain's default branch (origin/HEAD, the main
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
// again and what rarely changes: a repository's default base, for
// baseTTL, asked once for all its worktrees (50 worktrees of one
// repository asked it 50 times every baseTTL, three git processes each);
// the repository each worktree was last seen in; and what a branch
// committed since the merge base, by the two commits that answer depends
// on alone (HEAD and the base's commit). A steady scan then runs two git
// processes, rev-parse and status, not five or six. It is safe for
// concurrent use.
type changesCache struct {
	mu        sync.Mutex
	now       func() time.Time
	repos     map[string]string // worktree → its repository's git directory (Changes.CommonDir)
	bases     map[string]cachedBase
	committed map[[2]string]cachedCommitted
	// ids are repository identities (identity.go) by common directory
	// and branch, each kept for identityTTL.
	ids map[[2]string]cachedBase
	// rootIDs are "root:<sha>,…" identities by the HEAD commit whose
	// history they are the roots of: a fact of the commit, kept with no
	// time limit.
	rootIDs map[string]string
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
	return &changesCache{now: time.Now, repos: map[string]string{}, bases: map[string]cachedBase{}, committed: map[[2]string]cachedCommitted{}, ids: map[[2]string]cachedBase{}, rootIDs: map[string]string{}}
}

// repoOf is the repository the worktree was last seen in ("" when never).
func (c *changesCache) repoOf(wt string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.repos[wt]
}

// seen records the repository a scan found the worktree in.
func (c *changesCache) seen(wt, repo string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.repos[wt] == repo {
		return
	}
	if len(c.repos) >= maxCachedEntries {
		clear(c.repos)
	}
	c.repos[wt] = repo
}

// base is the repository's default base as last asked, if not too old.
func (c *changesCache) base(repo string) (string, bool) {
	if repo == "" {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.bases[repo]
	if !ok || c.now().Sub(b.at) > baseTTL {
		return "", false
	}
	return b.ref, true
}

func (c *changesCache) putBase(repo, ref string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bases) >= maxCachedEntries {
		clear(c.bases)
	}
	c.bases[repo] = cachedBase{ref: ref, at: c.now()}
}

// forgetBase drops a repository's base: git no longer resolves it.
func (c *changesCache) forgetBase(repo string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.bases, repo)
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

// identity is the repository identity of a common directory and branch
// as last read, if not too old.
func (c *changesCache) identity(key [2]string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.ids[key]
	if !ok || c.now().Sub(e.at) > identityTTL {
		return "", false
	}
	return e.ref, true
}

func (c *changesCache) putIdentity(key [2]string, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ids) >= maxCachedEntries {
		clear(c.ids)
	}
	c.ids[key] = cachedBase{ref: id, at: c.now()}
}

// roots is the root-commit identity of a HEAD commit, if kept.
func (c *changesCache) roots(head string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.rootIDs[head]
	return id, ok
}

func (c *changesCache) putRoots(head, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.rootIDs) >= maxCachedEntries {
		clear(c.rootIDs)
	}
	c.rootIDs[head] = id
}
