package remotewatch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/remotewatch"
)

// isolate keeps the person's own git configuration out of the test: the
// watch reads the global file (credential helpers, ssh), so the test
// names an empty one of its own.
func isolate(t *testing.T) string {
	t.Helper()
	dir := gittest.TempDir(t)
	global := filepath.Join(dir, "gitconfig")
	if err := os.WriteFile(global, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return global
}

// world is a remote (a bare repository on disk), a teammate's clone that
// pushes to it, and the person's clone where an agent works.
type world struct {
	remote, mate, work string
}

// newWorld makes the remote with src/cart.go on main, the teammate's
// clone and the person's, both of url (the remote's path, or a URL
// naming it: "" is the plain path).
func newWorld(t *testing.T, url func(remote string) string) world {
	t.Helper()
	dir := gittest.TempDir(t)
	w := world{remote: filepath.Join(dir, "remote.git"), mate: filepath.Join(dir, "mate"), work: filepath.Join(dir, "work")}
	gittest.Git(t, "", "init", "-q", "--bare", "-b", "main", w.remote)
	// A partial clone needs a server that filters (GitHub's does).
	gittest.Git(t, w.remote, "config", "uploadpack.allowFilter", "true")
	gittest.Git(t, w.remote, "config", "uploadpack.allowAnySHA1InWant", "true")
	seed := filepath.Join(dir, "seed")
	gittest.Init(t, seed)
	gittest.WriteFile(t, filepath.Join(seed, "src/cart.go"), lines(20, ""))
	gittest.WriteFile(t, filepath.Join(seed, "README"), "shop\n")
	gittest.CommitAll(t, seed, "seed")
	gittest.Git(t, seed, "push", "-q", w.remote, "main")
	u := w.remote
	if url != nil {
		u = url(w.remote)
	}
	gittest.Git(t, "", "clone", "-q", u, w.mate)
	gittest.Git(t, "", "clone", "-q", u, w.work)
	return w
}

// lines is n numbered lines, line changed (1-based, "0" none) to say mark.
func lines(n int, mark string, changed ...int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if slices.Contains(changed, i) {
			fmt.Fprintf(&b, "line %d %s\n", i, mark)
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	return b.String()
}

// push commits content to path on a new branch of the teammate's clone
// (from main) and pushes it.
func (w world) push(t *testing.T, branch, path, content string, force bool) {
	t.Helper()
	gittest.Git(t, w.mate, "checkout", "-q", "-B", branch, "origin/main")
	gittest.WriteFile(t, filepath.Join(w.mate, path), content)
	gittest.CommitAll(t, w.mate, "work on "+branch)
	args := []string{"push", "-q", "origin", branch}
	if force {
		args = []string{"push", "-q", "-f", "origin", branch}
	}
	gittest.Git(t, w.mate, args...)
}

// scans answers a worktree's changes as the scanner would, asking git
// each time (the scanner's own reader: Runner.Changes).
type scans struct {
	run *gitscan.Runner
	mu  sync.Mutex
	at  map[string]time.Time
}

func (s *scans) Result(wt string) (gitscan.Result, bool) {
	ch, err := s.run.Changes(context.Background(), wt, gitscan.ChangesOptions{})
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[string]time.Time{}
	}
	s.at[wt] = time.Now()
	return gitscan.Result{Changes: ch, Err: err, ScannedAt: s.at[wt]}, true
}

func newWatcher(t *testing.T, cfg remotewatch.Config) (*remotewatch.Watcher, *gitscan.Runner) {
	t.Helper()
	run, err := gitscan.NewRunner(context.Background(), gitscan.RunnerConfig{Timeout: time.Minute, Nice: -1})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Runner = run
	if cfg.Root == "" {
		cfg.Root = filepath.Join(gittest.TempDir(t), "remotes")
	}
	if cfg.Results == nil {
		cfg.Results = &scans{run: run}
	}
	return remotewatch.New(cfg), run
}

// branchNames are the names of pushed overlaps.
func branchNames(ps []remotewatch.Pushed) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Branch.Name)
	}
	slices.Sort(out)
	return out
}

func find(ps []remotewatch.Pushed, branch string) (remotewatch.Pushed, bool) {
	for _, p := range ps {
		if p.Branch.Name == branch {
			return p, true
		}
	}
	return remotewatch.Pushed{}, false
}
