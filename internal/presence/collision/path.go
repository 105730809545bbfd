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

// comparePaths orders cleaned paths as the sweep's keys do: byte by byte,
// with the separator lowest, so that a path's descendants follow it
// contiguously ("/a", "/a/b", "/a/c", "/a-b").
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ca, cb := a[i], b[i]
		switch {
		case ca == cb:
			continue
		case ca == filepath.Separator:
			return -1
		case cb == filepath.Separator:
			return 1
		case ca < cb:
			return -1
		default:
			return 1
		}
	}
	return len(a) - len(b)
}

// overlapSorted appends to dst the deeper path of every overlapping pair
// of a and b: cleaned absolute paths, each sorted by comparePaths. It is
// one merge of the two, keeping a stack per side of the paths still open
// (the ancestors of the one at hand): a path overlaps the other side
// exactly when that side has an open ancestor or an equal path, and it is
// then the deeper one of each such pair. The cost is linear in the two
// sizes (each path pushed and popped once, one comparison each), not
// their product; a path is appended once per side it meets (an equal
// path twice: the caller sorts and compacts). stacks is scratch space,
// returned for reuse.
func overlapSorted(dst, a, b []string, stacks [2][]string) ([]string, [2][]string) {
	open := [2][]string{stacks[0][:0], stacks[1][:0]}
	covers := func(anc, p string) bool { return anc == p || isAncestor(anc, p) }
	for i, j := 0, 0; i < len(a) || j < len(b); {
		var p string
		side := 0
		if j >= len(b) || (i < len(a) && comparePaths(a[i], b[j]) <= 0) {
			p, i = a[i], i+1
		} else {
			p, j, side = b[j], j+1, 1
		}
		for s := range open {
			for len(open[s]) > 0 && !covers(open[s][len(open[s])-1], p) {
				open[s] = open[s][:len(open[s])-1]
			}
		}
		if len(open[1-side]) > 0 {
			dst = append(dst, p)
		}
		open[side] = append(open[side], p)
	}
	return dst, open
}
