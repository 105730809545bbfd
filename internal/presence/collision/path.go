package collision

import (
	"path/filepath"
	"strings"
)

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
