package presence

import (
	"path/filepath"
	"strings"
	"sync"
	"time"
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

// resolveEntry makes one working-set entry absolute: relative entries resolve
// against the record's worktree, else its caller_root, else its brain.
func (r Record) resolveEntry(entry string) string {
	if entry == "" {
		return ""
	}
	if filepath.IsAbs(entry) {
		return filepath.Clean(entry)
	}
	return filepath.Join(r.resolveBase(), entry)
}

// resolveBase is what relative working-set entries resolve against: the
// worktree, else the caller_root, else the brain.
func (r Record) resolveBase() string {
	switch {
	case r.Worktree != "":
		return r.Worktree
	case r.CallerRoot != "":
		return r.CallerRoot
	default:
		return r.Brain
	}
}

// ResolvedWorkingSet returns the record's working set as absolute, cleaned
// paths, empty entries dropped.
func (r Record) ResolvedWorkingSet() []string {
	out := make([]string, 0, len(r.WorkingSet))
	for _, e := range r.WorkingSet {
		if p := r.resolveEntry(e); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// cleanPath is filepath.Clean, skipping the work for a path already clean,
// as nearly every path a beat names is: one tight scan, where Clean copies
// through a buffer byte by byte.
func cleanPath(p string) string {
	if isClean(p) {
		return p
	}
	return filepath.Clean(p)
}

// isClean reports, cheaply and conservatively, that filepath.Clean would
// return p unchanged: no doubled separator, no "." or ".." element, no
// trailing separator. A false answer only costs the full Clean (so a name
// like ".git", refused for its dot, is merely slower).
func isClean(p string) bool {
	if filepath.Separator != '/' || p == "" {
		return false
	}
	if p == "/" {
		return true
	}
	if p[0] == '.' || p[len(p)-1] == '/' {
		return false
	}
	for i := 0; i < len(p)-1; i++ {
		if p[i] == '/' && (p[i+1] == '/' || p[i+1] == '.') {
			return false
		}
	}
	return true
}

// PathsOverlap reports whether two cleaned absolute paths overlap segment by
// segment: equal, or one an ancestor of the other. "src/auth" overlaps
// "src/auth/login.go" but not "src/authz". When they overlap, deeper is the
// more specific of the two: the place both hands touch.
func PathsOverlap(a, b string) (deeper string, ok bool) {
	return overlapCleaned(filepath.Clean(a), filepath.Clean(b))
}

// overlapCleaned is PathsOverlap for paths already cleaned, as resolved
// working sets are: the collision sweep calls it per pair of entries.
func overlapCleaned(a, b string) (deeper string, ok bool) {
	switch {
	case a == b:
		return a, true
	case isAncestor(a, b):
		return b, true
	case isAncestor(b, a):
		return a, true
	default:
		return "", false
	}
}

// isAncestor reports whether anc is a proper ancestor of p (both cleaned).
func isAncestor(anc, p string) bool {
	if anc == string(filepath.Separator) {
		return p != anc && strings.HasPrefix(p, anc)
	}
	return len(p) > len(anc) && strings.HasPrefix(p, anc) && p[len(anc)] == filepath.Separator
}

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
