package gitscan

import (
	"path"
	"slices"
	"strings"

	"github.com/hall-dev/hall/internal/presence"
)

// The kick on a mutation: how soon the files a side's presences reported
// need git (Mutated). A file that meets another side's change is asked
// for ahead of the queue, a file git lists already (a verdict it cannot
// change) is left to the slow rescan, the rest waits for the interval.
// These read the sides' latest answers and decide; schedule.go acts.

// listedLocked reports whether wt's last scan listed every touched file
// (none given: false), none of them changed in a worktree wt's merge is
// predicted with: the mutation can change neither git's list nor a
// prediction's verdict (two sides conflict only on a path both changed,
// or a file against a directory of it), so no scan is needed for it.
func (s *Scanner) listedLocked(wt string, touched []string) bool {
	t := s.trees[wt]
	c := t.res.Changes
	if !t.answered() || c.Cut || len(touched) == 0 || len(touched) > maxTouchedChecked {
		return false
	}
	rels := make([]string, 0, len(touched))
	for _, abs := range touched {
		rel := relIn(c.Root, wt, abs)
		if _, listed := slices.BinarySearch(c.Files, rel); rel == "" || !listed {
			return false
		}
		if meetsSorted(rel, t.across) {
			return false // another host's change meets it: its verdict may move
		}
		rels = append(rels, rel)
	}
	for k := range s.preds {
		if k[0] != wt && k[1] != wt {
			continue
		}
		other := s.trees[k[0]]
		if k[0] == wt {
			other = s.trees[k[1]]
		}
		if other == nil || other.res.Changes.Cut {
			return false
		}
		for _, rel := range rels {
			if _, reported := other.touched[rel]; reported || meetsSorted(rel, other.res.Changes.Files) {
				return false // the pair's merge may change: renew it
			}
		}
	}
	return true
}

// relIn is abs relative to the root git gave for the worktree wt, else
// to wt itself (no root known, or abs under wt's own path only);
// "/"-separated, "" outside both (presence.RelPath).
func relIn(root, wt, abs string) string {
	if rel := presence.RelPath(root, abs); rel != "" {
		return rel
	}
	return presence.RelPath(wt, abs)
}

// meetsSorted reports whether a repository-relative path meets a sorted
// list of them: the path itself, a directory of it listed as a file, or
// files under it (FilesOverlap's rule, a path at a time). A few binary
// searches, however long the list.
func meetsSorted(rel string, files []string) bool {
	for q := rel; q != "." && q != "/" && q != ""; q = path.Dir(q) {
		if _, ok := slices.BinarySearch(files, q); ok {
			return true
		}
	}
	i, _ := slices.BinarySearch(files, rel+"/")
	return i < len(files) && strings.HasPrefix(files[i], rel+"/")
}

// Bounds on the work Mutated does under the lock, whatever it is given.
const (
	maxTouchedChecked = 16  // touched files one call looks at
	maxTouchedKept    = 256 // touched files a worktree remembers between scans
)

// meetLocked notes wt's touched files and reports whether one meets
// another worktree's change (see Mutated): a file wt's last scan did not
// list that another worktree of the repository changed, as git last
// listed or as its presences reported since. stale are those other
// worktrees whose git answer does not list it yet, or whose mutations
// since were left to the slow rescan, to scan now too.
// Nothing before wt's first scan, which is due at once anyway.
func (s *Scanner) meetLocked(wt string, touched []string) (meets bool, stale []string) {
	t := s.trees[wt]
	if !t.answered() || len(touched) == 0 {
		return false, nil
	}
	mine := t.res.Changes
	for _, abs := range touched[:min(len(touched), maxTouchedChecked)] {
		rel := relIn(mine.Root, wt, abs)
		if rel == "" {
			continue
		}
		if t.touched == nil {
			t.touched = map[string]struct{}{}
		}
		if len(t.touched) < maxTouchedKept {
			t.touched[rel] = struct{}{}
		}
		if _, listed := slices.BinarySearch(mine.Files, rel); listed {
			continue // not new here: the interval's scan will do
		}
		for other, o := range s.trees {
			oc := o.res.Changes
			if other == wt || !o.answered() || !compares(oc, mine) {
				continue
			}
			_, listed := slices.BinarySearch(oc.Files, rel)
			_, reported := o.touched[rel]
			meets = meets || listed || reported
			if ((reported && !listed) || (listed && o.deferred)) && !slices.Contains(stale, other) {
				stale = append(stale, other)
			}
		}
	}
	return meets, stale
}

// FilesOverlap reports whether two sorted lists of repository-relative
// paths share a path, or one holds a file where the other holds a
// directory of it ("a" against "a/b": a file replaced by a directory).
func FilesOverlap(a, b []string) bool {
	for _, p := range a {
		if meetsSorted(p, b) {
			return true
		}
	}
	return false
}
