package collision

import (
	"math/bits"
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
// like ".git", refused for its dot, is merely slower). It reads eight
// bytes at a time: every path a sweep resolves passes here.
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
	if len(p) < 8 {
		for i := 0; i < len(p)-1; i++ {
			if p[i] == separator && (p[i+1] == separator || p[i+1] == '.') {
				return false
			}
		}
		return true
	}
	// after is 0x80 when the byte before the word at hand is a separator.
	var after uint64
	for i := 0; ; {
		w := load64(p, i)
		sep := zeroBytes(w ^ (separator * ones))
		// A separator followed by a separator or a dot (the next byte's
		// flag shifted down onto it), within the word or across from the
		// one before.
		next := sep | zeroBytes(w^('.'*ones))
		if sep&(next>>8) != 0 || after&next != 0 {
			return false
		}
		if i += 8; i == len(p) {
			return true
		}
		after = sep >> 56
		if i+8 > len(p) {
			// The last word overlaps this one, which has checked the
			// byte before it against its first already.
			i, after = len(p)-8, 0
		}
	}
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
	// Only the shorter can be the other's ancestor, and equal paths are
	// of one length.
	switch {
	case len(a) < len(b):
		ok = isAncestor(a, b)
		deeper = b
	case len(b) < len(a):
		ok = isAncestor(b, a)
		deeper = a
	default:
		ok = a == b
		deeper = a
	}
	if !ok {
		return "", false
	}
	return deeper, true
}

// isAncestor reports whether anc is a proper ancestor of p (both cleaned).
// The byte after anc in p is looked at before the bytes they share: most
// pairs part there, without a comparison of their prefixes.
func isAncestor(anc, p string) bool {
	if anc == string(filepath.Separator) {
		return p != anc && strings.HasPrefix(p, anc)
	}
	return len(p) > len(anc) && p[len(anc)] == filepath.Separator && p[:len(anc)] == anc
}

// covers reports whether anc is p or its ancestor (both cleaned).
func covers(anc, p string) bool { return anc == p || isAncestor(anc, p) }

// comparePaths orders cleaned paths byte by byte, with the separator
// lowest, so that a path's descendants follow it contiguously ("/a",
// "/a/b", "/a/c", "/a-b"). It skips what the two share eight bytes at a
// time.
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := load64(a, i) ^ load64(b, i); x != 0 {
			i += bits.TrailingZeros64(x) / 8 // the first byte that differs
			break
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	switch ca, cb := a[i], b[i]; {
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

// separator is filepath.Separator, untyped; ones has a one in each byte.
// Words of eight bytes (load64, zeroBytes) let the paths' scans take eight
// bytes a step.
const (
	separator = filepath.Separator
	ones      = 0x0101010101010101
)

// zeroBytes returns w with 0x80 in each byte that is zero and 0 in every
// other: exactly, with no false flag past a zero byte (nothing carries
// from one byte into the next).
func zeroBytes(w uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ^((w&low7 + low7) | w | low7)
}

// load64 returns the eight bytes of s from i as a little-endian number:
// one load.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
