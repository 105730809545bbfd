package remotewatch

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
)

// A side on another host names its HEAD; this Hall's objects may lack it
// (pushed there, never fetched here). Commits finds it in the watch store
// of the remote a worktree here fetches from (the same store the watch
// keeps, by the remote's identity), else fetches that one commit into
// that store: commits and trees, no blob, no ref, no FETCH_HEAD, through
// RunRemote (the person's credentials, never prompting, the runner's
// timeout). A server that refuses a commit by id (no
// uploadpack.allow*SHA1InWant) gets a fetch of its branches instead, as
// the watch's own. The person's repository is only read (resolve).

// DefaultCommitRetry is how long Commits waits before fetching a commit it
// fetched once and did not get (not pushed yet).
const DefaultCommitRetry = time.Minute

// maxCommitsAsked bounds the (remote, commit) pairs Commits remembers.
const maxCommitsAsked = 1024

// Commits finds or fetches commits into the watch stores. Safe for
// concurrent use.
type Commits struct {
	run   *gitscan.Runner
	root  string
	retry time.Duration

	mu    sync.Mutex
	asked map[[2]string]time.Time // (remote identity, commit) → last fetch
}

// NewCommits finds commits in the stores under root (a Watcher's
// Config.Root), fetching with run, a commit not got fetched again after
// retry (DefaultCommitRetry when 0).
func NewCommits(run *gitscan.Runner, root string, retry time.Duration) *Commits {
	if retry <= 0 {
		retry = DefaultCommitRetry
	}
	return &Commits{run: run, root: root, retry: retry, asked: map[[2]string]time.Time{}}
}

// Find answers the store of the remote worktree fetches from when it
// holds commit id (fetched now if it did not and the pair was not
// fetched within the retry); false when the worktree has no remote or
// the remote does not have the commit either.
func (c *Commits) Find(ctx context.Context, worktree, id string) (gitscan.RemoteStore, bool, error) {
	if !gitscan.IsObjectID(id) {
		return gitscan.RemoteStore{}, false, fmt.Errorf("the watch store: %q is not an object id", id)
	}
	o, err := resolve(ctx, c.run, filepath.Clean(worktree))
	if err != nil || o.Identity == "" {
		return gitscan.RemoteStore{}, false, err
	}
	st := &store{dir: storeDir(c.root, o.Identity), url: fetchURL(o), run: c.run}
	if err := st.open(ctx); err != nil {
		return gitscan.RemoteStore{}, false, err
	}
	st.auth = c.run.RemoteAuth(ctx, st.dir, o.Helpers)
	found := gitscan.RemoteStore{Dir: st.dir, Auth: st.auth}
	if has, err := st.has(ctx, id); has || err != nil {
		return found, has, err
	}
	key := [2]string{o.Identity, id}
	c.mu.Lock()
	last, ok := c.asked[key]
	due := !ok || time.Since(last) >= c.retry
	if due {
		if len(c.asked) >= maxCommitsAsked {
			clear(c.asked)
		}
		c.asked[key] = time.Now()
	}
	c.mu.Unlock()
	if !due {
		return found, false, nil
	}
	if err := st.fetchCommit(ctx, id); err != nil {
		if err := st.fetch(ctx); err != nil {
			return found, false, err
		}
	}
	has, err := st.has(ctx, id)
	return found, has, err
}

// has reports whether the store holds the commit, never fetching it: git
// rev-list --missing=print turns a partial clone's lazy fetch off, and
// exits 128 on an object it does not have.
func (s *store) has(ctx context.Context, id string) (bool, error) {
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: s.dir, Args: []string{"rev-list", "--missing=print", "--no-walk", id}, OK: []int{128}})
	if err != nil {
		return false, err
	}
	return out.Exit == 0, nil
}

// fetchCommit brings one commit and its trees into the store, by id: no
// ref, no FETCH_HEAD, no tag.
func (s *store) fetchCommit(ctx context.Context, id string) error {
	_, err := s.run.RunRemote(ctx, gitscan.Cmd{Dir: s.dir, Args: []string{
		"fetch", "-q", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules",
		"--filter=blob:none", "origin", id}}, s.auth)
	return err
}
