package presence

import (
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/presence/collision"
)

// CanonicalPath returns p absolute, cleaned and, when it exists on this
// machine, with symlinks resolved. A relative path is an EINVALID error: the
// Hall never guesses which directory a caller meant.
func CanonicalPath(p string) (string, error) {
	if p == "" {
		return "", Errorf(EINVALID, "path is empty")
	}
	if !filepath.IsAbs(p) {
		return "", Errorf(EINVALID, "path %q is not absolute", p)
	}
	clean := filepath.Clean(p)
	if resolved, err := filepath.EvalSymlinks(clean); err == nil {
		return resolved, nil
	}
	// A brain on another host, or one not created yet: the cleaned path is
	// the best canonical form there is.
	return clean, nil
}

// RelPath is abs relative to root, "/"-separated, as a repository names
// its files: "." for root itself, "" when abs is not absolute or lies
// outside root. Every surface that turns a presence's absolute paths
// into a worktree's names them by it. The common case, a clean path
// below a clean root, is its rest as it is: a snapshot's overlaps and a
// shell command's scene make every touched path of a brain relative, and
// filepath.Rel cleans and copies both paths each time.
func RelPath(root, abs string) string {
	if root == "" || !filepath.IsAbs(abs) {
		return ""
	}
	if rest, ok := strings.CutPrefix(abs, root); ok && len(rest) > 1 && rest[0] == '/' && len(root) > 1 && root[0] == '/' &&
		cleanSegments(root[1:]) && cleanSegments(rest[1:]) {
		return rest[1:]
	}
	rel, err := filepath.Rel(root, filepath.Clean(abs))
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// RelFile is RelPath of a path below root: the name of a file or folder
// in it, false for root itself and for a path outside it.
func RelFile(root, abs string) (string, bool) {
	if rel := RelPath(root, abs); rel != "" && rel != "." {
		return rel, true
	}
	return "", false
}

// cleanSegments reports whether s is slash-separated segments that
// filepath.Clean leaves as they are: none empty, ".", or "..". One pass,
// nothing copied.
func cleanSegments(s string) bool {
	for s != "" {
		seg, rest, more := strings.Cut(s, "/")
		if seg == "" || seg == "." || seg == ".." || (more && rest == "") {
			return false
		}
		s = rest
	}
	return true
}

// Where is the place a presence works, the one rule every surface names
// it by: its worktree, else its caller_root (each only when a path, not
// a declared display string), else its brain. Relative
// working-set entries resolve against it too.
func Where(worktree, callerRoot, brain string) string {
	switch {
	case filepath.IsAbs(worktree): // not a declared display string such as "feat/x"
		return worktree
	case filepath.IsAbs(callerRoot):
		return callerRoot
	default:
		return brain
	}
}

// Where is the place the presence works (see the function Where).
func (r Record) Where() string { return Where(r.Worktree, r.CallerRoot, r.Brain) }

// WorktreePath is the record's worktree when it is a path, "" when it is
// unset or a declared display string (m1nd writes one such as "feat/x"):
// what git, the guard and the overlap finder may be given.
func (r *Record) WorktreePath() string {
	if filepath.IsAbs(r.Worktree) {
		return r.Worktree
	}
	return ""
}

// ResolvedWorkingSet returns the record's working set as absolute, cleaned
// paths, empty entries dropped: relative entries resolve against the
// worktree, else the caller_root, else the brain.
func (r Record) ResolvedWorkingSet() []string {
	return collision.ResolveWorkingSet(r.Where(), r.WorkingSet)
}

// PathsOverlap reports whether two absolute paths overlap segment by
// segment once cleaned: equal, or one an ancestor of the other. "src/auth"
// overlaps "src/auth/login.go" but not "src/authz". When they overlap,
// deeper is the more specific of the two: the place both hands touch.
func PathsOverlap(a, b string) (deeper string, ok bool) { return collision.PathsOverlap(a, b) }

// pathCache memoizes CanonicalPath for a while: every beat names its
// brain, caller_root and worktree again, and resolving symlinks costs a
// system call per path segment. An entry is trusted for pathCacheTTL, so a
// symlink changed on disk is followed within seconds; the cache is emptied
// when it reaches pathCacheMax entries, so memory stays bounded.
type pathCache struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]cachedPath
}

type cachedPath struct {
	canonical string
	at        time.Time
}

const (
	pathCacheTTL = 10 * time.Second
	pathCacheMax = 4096
)

// canonical is CanonicalPath, from the cache when a recent answer is there.
// Errors are not cached: they are the caller's mistake, answered at once.
func (c *pathCache) canonical(p string) (string, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.m[p]
	c.mu.Unlock()
	if ok && now.Sub(e.at) >= 0 && now.Sub(e.at) < pathCacheTTL {
		return e.canonical, nil
	}
	canon, err := CanonicalPath(p)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= pathCacheMax {
		c.m = map[string]cachedPath{}
	}
	c.m[p] = cachedPath{canonical: canon, at: now}
	c.mu.Unlock()
	return canon, nil
}
