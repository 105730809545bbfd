package presence

import (
	"path/filepath"
	"sort"
	"strings"
)

// Clause names one reason two presences share a place.
type Clause string

// The clauses of the collision predicate's second condition.
const (
	ClauseCallerRoot Clause = "same_caller_root"
	ClauseWorktree   Clause = "same_worktree"
	ClauseWorkingSet Clause = "working_set_overlap"
)

// Collision is two mutating presences sharing a place on one brain. It is
// derived at read and never stored. A is the side with the smaller
// presence_id, so one pair always reads the same way.
type Collision struct {
	Brain   string
	A, B    Record
	Clauses []Clause // in the order caller_root, worktree, working_set
	Place   string   // the shared place a person should look at first
	Paths   []string // overlapping working-set paths, absolute, sorted
}

// Key identifies the pair: the two presence ids joined by "~".
func (c Collision) Key() string { return c.A.PresenceID + "~" + c.B.PresenceID }

// Partner returns the other side of the collision for the presence id, and
// false when id is neither side.
func (c Collision) Partner(id string) (Record, bool) {
	switch id {
	case c.A.PresenceID:
		return c.B, true
	case c.B.PresenceID:
		return c.A, true
	}
	return Record{}, false
}

// CollisionBetween applies the spec's predicate to one pair: same brain, AND
// (same non-empty caller_root OR same non-empty worktree OR overlapping
// declared working sets), AND both carry a mutation signal. Staleness is the
// caller's concern: pass live records.
func CollisionBetween(a, b Record) (Collision, bool) {
	if a.PresenceID == b.PresenceID || a.Brain != b.Brain || !a.Mutating() || !b.Mutating() {
		return Collision{}, false
	}
	if a.PresenceID > b.PresenceID {
		a, b = b, a
	}
	c := Collision{Brain: a.Brain, A: a, B: b}
	if a.CallerRoot != "" && filepath.Clean(a.CallerRoot) == filepath.Clean(b.CallerRoot) {
		c.Clauses = append(c.Clauses, ClauseCallerRoot)
	}
	if a.Worktree != "" && filepath.Clean(a.Worktree) == filepath.Clean(b.Worktree) {
		c.Clauses = append(c.Clauses, ClauseWorktree)
	}
	seen := map[string]bool{}
	for _, pa := range a.ResolvedWorkingSet() {
		for _, pb := range b.ResolvedWorkingSet() {
			if p, ok := PathsOverlap(pa, pb); ok && !seen[p] {
				seen[p] = true
				c.Paths = append(c.Paths, p)
			}
		}
	}
	if len(c.Paths) > 0 {
		sort.Strings(c.Paths)
		c.Clauses = append(c.Clauses, ClauseWorkingSet)
	}
	if len(c.Clauses) == 0 {
		return Collision{}, false
	}
	c.Place = c.place()
	return c, true
}

// place picks what to name first: the shared worktree, else the shared
// caller_root, else the first overlapping path.
func (c Collision) place() string {
	switch {
	case c.has(ClauseWorktree):
		return filepath.Clean(c.A.Worktree)
	case c.has(ClauseCallerRoot):
		return filepath.Clean(c.A.CallerRoot)
	default:
		return c.Paths[0]
	}
}

func (c Collision) has(cl Clause) bool {
	for _, x := range c.Clauses {
		if x == cl {
			return true
		}
	}
	return false
}

// CollisionsIn returns every collision among the live records on brain, or
// on every brain when brain is "". The pairs are found through indexes on
// caller_root, worktree and working-set paths, so the cost grows with the
// records and the collisions found, not with the square of a brain's roster.
// The order is deterministic: by brain, then A's id, then B's id.
func CollisionsIn(brain string, live []Record) []Collision {
	byBrain := map[string][]int{}
	for i, r := range live {
		if (brain == "" || r.Brain == brain) && r.Mutating() {
			byBrain[r.Brain] = append(byBrain[r.Brain], i)
		}
	}
	var out []Collision
	for _, idx := range byBrain {
		for _, pair := range candidatePairs(live, idx) {
			if c, ok := CollisionBetween(live[pair[0]], live[pair[1]]); ok {
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Brain != out[j].Brain {
			return out[i].Brain < out[j].Brain
		}
		return out[i].Key() < out[j].Key()
	})
	return out
}

// CollisionsFor returns the collisions one presence is a side of: its own
// view, the one north shows it.
func CollisionsFor(p Record, live []Record) []Collision {
	var out []Collision
	for _, c := range CollisionsIn(p.Brain, live) {
		if _, ok := c.Partner(p.PresenceID); ok {
			out = append(out, c)
		}
	}
	return out
}

// candidatePairs returns each pair of indexes (into live) that shares a
// caller_root, a worktree or an overlapping working-set path, once.
func candidatePairs(live []Record, idx []int) [][2]int {
	seen := map[[2]int]bool{}
	var pairs [][2]int
	add := func(i, j int) {
		if i == j {
			return
		}
		if i > j {
			i, j = j, i
		}
		k := [2]int{i, j}
		if !seen[k] {
			seen[k] = true
			pairs = append(pairs, k)
		}
	}
	addGroups := func(key func(Record) string) {
		groups := map[string][]int{}
		for _, i := range idx {
			if k := key(live[i]); k != "" {
				groups[k] = append(groups[k], i)
			}
		}
		for _, g := range groups {
			for x := range g {
				for y := x + 1; y < len(g); y++ {
					add(g[x], g[y])
				}
			}
		}
	}
	addGroups(func(r Record) string { return cleanOrEmpty(r.CallerRoot) })
	addGroups(func(r Record) string { return cleanOrEmpty(r.Worktree) })

	// Working sets: sort every (path, owner) so that a path's descendants
	// follow it contiguously (separators compare lowest), then sweep with a
	// stack of the ancestors still open. Each entry pairs with the open
	// ancestors and equal paths only, so the sweep costs n·log n plus the
	// overlaps it finds.
	type entry struct {
		key   string
		owner int
	}
	var entries []entry
	for _, i := range idx {
		for _, p := range live[i].ResolvedWorkingSet() {
			entries = append(entries, entry{strings.ReplaceAll(p, string(filepath.Separator), "\x00"), i})
		}
	}
	sort.Slice(entries, func(a, b int) bool { return entries[a].key < entries[b].key })
	var open []entry
	for _, e := range entries {
		for len(open) > 0 && !keyCovers(open[len(open)-1].key, e.key) {
			open = open[:len(open)-1]
		}
		for _, o := range open {
			add(o.owner, e.owner)
		}
		open = append(open, e)
	}
	return pairs
}

// keyCovers reports whether anc equals p or is its ancestor, in the
// separator-as-zero-byte form the sweep sorts by.
func keyCovers(anc, p string) bool {
	if anc == p {
		return true
	}
	if anc == "\x00" { // the root covers everything
		return true
	}
	return len(p) > len(anc) && strings.HasPrefix(p, anc) && p[len(anc)] == 0
}

func cleanOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Clean(p)
}
