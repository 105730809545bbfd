package presence

import (
	"path/filepath"
	"slices"
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
	va, vb := viewOf(&a), viewOf(&b)
	return collide(&a, &b, &va, &vb)
}

// view is what the place condition compares of one record, computed once
// per record rather than once per pair: caller_root and worktree cleaned
// ("" when unset, so an unset one never matches) and the working set
// resolved to absolute, cleaned paths.
type view struct {
	callerRoot, worktree string
	ws                   []string
	keys                 []string // ws in the sweep's sort form; CollisionsIn only
}

func viewOf(r *Record) view {
	return view{callerRoot: cleanOrEmpty(r.CallerRoot), worktree: cleanOrEmpty(r.Worktree), ws: r.ResolvedWorkingSet()}
}

// collide applies the place condition to two distinct, mutating records on
// one brain, given their views.
func collide(a, b *Record, va, vb *view) (Collision, bool) {
	var cl collider
	return cl.collide(a, b, va, vb)
}

// collider cuts the Clauses and Paths of many collisions from shared
// arrays, so a sweep allocates per batch rather than per collision. Each
// slice handed out is capped at its length: appending to one never writes
// into another.
type collider struct {
	clauses []Clause
	paths   []string
}

func (cl *collider) collide(a, b *Record, va, vb *view) (Collision, bool) {
	if a.PresenceID > b.PresenceID {
		a, b, va, vb = b, a, vb, va
	}
	start := len(cl.paths)
	for _, pa := range va.ws {
		for _, pb := range vb.ws {
			if p, ok := overlapCleaned(pa, pb); ok {
				cl.paths = append(cl.paths, p)
			}
		}
	}
	var paths []string
	if len(cl.paths) > start {
		paths = cl.paths[start:]
		slices.Sort(paths)
		paths = slices.Compact(paths)
		cl.paths = cl.paths[:start+len(paths)]
		paths = paths[:len(paths):len(paths)]
	}
	cs := cl.clauses[len(cl.clauses):]
	if va.callerRoot != "" && va.callerRoot == vb.callerRoot {
		cs = append(cs, ClauseCallerRoot)
	}
	if va.worktree != "" && va.worktree == vb.worktree {
		cs = append(cs, ClauseWorktree)
	}
	if paths != nil {
		cs = append(cs, ClauseWorkingSet)
	}
	if len(cs) == 0 {
		return Collision{}, false
	}
	cs = cs[:len(cs):len(cs)]
	if cap(cl.clauses)-len(cl.clauses) >= len(cs) {
		cl.clauses = cl.clauses[:len(cl.clauses)+len(cs)]
	}
	c := Collision{Brain: a.Brain, A: *a, B: *b, Clauses: cs, Paths: paths}
	// Name first the shared worktree, else the shared caller_root, else
	// the first overlapping path.
	switch {
	case c.has(ClauseWorktree):
		c.Place = va.worktree
	case c.has(ClauseCallerRoot):
		c.Place = va.callerRoot
	default:
		c.Place = paths[0]
	}
	return c, true
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
	views, byBrain := scopeViews(brain, live)
	brains := make([]string, 0, len(byBrain))
	for b := range byBrain {
		brains = append(brains, b)
	}
	slices.Sort(brains)
	// Order the candidate pairs first, as small handles, brain by brain,
	// then build each (wide) Collision once.
	var sc sweepScratch
	var pairs [][2]int
	for _, b := range brains {
		start := len(pairs)
		pairs = sc.candidatePairs(pairs, views, byBrain[b])
		ps := slices.DeleteFunc(pairs[start:], func(p [2]int) bool { return live[p[0]].PresenceID == live[p[1]].PresenceID })
		for k, p := range ps {
			if live[p[0]].PresenceID > live[p[1]].PresenceID {
				ps[k] = [2]int{p[1], p[0]}
			}
		}
		slices.SortFunc(ps, func(x, y [2]int) int {
			if c := compareKeys(live[x[0]].PresenceID, live[x[1]].PresenceID, live[y[0]].PresenceID, live[y[1]].PresenceID); c != 0 {
				return c
			}
			if x[0] != y[0] {
				return x[0] - y[0]
			}
			return x[1] - y[1]
		})
		// A pair found through several clauses or paths is now adjacent.
		ps = slices.Compact(ps)
		pairs = pairs[:start+len(ps)]
	}
	if len(pairs) == 0 {
		return nil
	}
	cl := collider{clauses: make([]Clause, 0, 3*len(pairs))}
	out := make([]Collision, 0, len(pairs))
	for _, p := range pairs {
		if c, ok := cl.collide(&live[p[0]], &live[p[1]], &views[p[0]], &views[p[1]]); ok {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// scopeViews returns the view of every mutating record in scope (by index
// into live) and those indexes by brain. The resolved paths and their sweep
// keys are cut from two shared strings: two allocations for all of them,
// not one per entry. A resolved entry is what Record.resolveEntry returns:
// for the Unix paths the Hall deals in, filepath.Join of base and entry is
// Clean(base + separator + entry). TestCollisionsInEqualsBruteForce holds
// the two to the same answers.
func scopeViews(brain string, live []Record) ([]view, map[string][]int) {
	views := make([]view, len(live))
	byBrain := map[string][]int{}
	var scope []int // in live order: every pass below walks this one order
	size := 0
	for i := range live {
		r := &live[i]
		if (brain != "" && r.Brain != brain) || !r.Mutating() {
			continue
		}
		scope = append(scope, i)
		byBrain[r.Brain] = append(byBrain[r.Brain], i)
		views[i].callerRoot, views[i].worktree = cleanOrEmpty(r.CallerRoot), cleanOrEmpty(r.Worktree)
		base := r.resolveBase()
		for _, e := range r.WorkingSet {
			size += len(base) + 1 + len(e)
		}
	}

	// Pass 1: every entry joined to its base, end to end.
	var raw strings.Builder
	raw.Grow(size)
	var ends []int
	for _, i := range scope {
		base := live[i].resolveBase()
		for _, e := range live[i].WorkingSet {
			if e == "" {
				continue
			}
			if !filepath.IsAbs(e) && base != "" {
				raw.WriteString(base)
				raw.WriteByte(filepath.Separator)
			}
			raw.WriteString(e)
			ends = append(ends, raw.Len())
		}
	}
	all := raw.String()

	// Pass 2: cleaned (no copy when already clean), and the sweep keys.
	ws := make([]string, 0, len(ends))
	var keys strings.Builder
	keys.Grow(size)
	from := 0
	for _, end := range ends {
		p := filepath.Clean(all[from:end])
		from = end
		ws = append(ws, p)
		for j := 0; j < len(p); j++ {
			c := p[j]
			if c == filepath.Separator {
				c = 0
			}
			keys.WriteByte(c)
		}
	}
	allKeys := keys.String()
	ks := make([]string, len(ws))
	from = 0
	for k, p := range ws {
		ks[k] = allKeys[from : from+len(p)]
		from += len(p)
	}

	// Pass 3: hand each record its share.
	k := 0
	for _, i := range scope {
		n := 0
		for _, e := range live[i].WorkingSet {
			if e != "" {
				n++
			}
		}
		views[i].ws = ws[k : k+n : k+n]
		views[i].keys = ks[k : k+n : k+n]
		k += n
	}
	return views, byBrain
}

// compareKeys orders two pairs as their Keys (a1~b1 against a2~b2) compare,
// without building the strings in the common case.
func compareKeys(a1, b1, a2, b2 string) int {
	if a1 == a2 {
		return strings.Compare(b1, b2)
	}
	n := min(len(a1), len(a2))
	for i := 0; i < n; i++ {
		if a1[i] != a2[i] {
			return int(a1[i]) - int(a2[i])
		}
	}
	// One id is a prefix of the other: the separator takes part.
	return strings.Compare(a1+"~"+b1, a2+"~"+b2)
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

// sweepScratch holds what candidatePairs reuses from one brain to the next.
type sweepScratch struct {
	entries []sweepEntry
	open    []sweepEntry
}

type sweepEntry struct {
	key   string
	owner int
}

func bySweepKey(a, b sweepEntry) int { return strings.Compare(a.key, b.key) }

// candidatePairs appends to pairs every pair of indexes (into views) that
// shares a caller_root, a worktree or an overlapping working-set path, as
// often as it is found: the caller sorts and compacts.
func (sc *sweepScratch) candidatePairs(pairs [][2]int, views []view, idx []int) [][2]int {
	add := func(i, j int) {
		if i != j {
			pairs = append(pairs, [2]int{i, j})
		}
	}

	// Equal keys: sort (key, owner) and pair within each run.
	addRuns := func(key func(v *view) string) {
		es := sc.entries[:0]
		for _, i := range idx {
			if k := key(&views[i]); k != "" {
				es = append(es, sweepEntry{k, i})
			}
		}
		slices.SortFunc(es, bySweepKey)
		for x := 0; x < len(es); {
			y := x + 1
			for y < len(es) && es[y].key == es[x].key {
				y++
			}
			for p := x; p < y; p++ {
				for q := p + 1; q < y; q++ {
					add(es[p].owner, es[q].owner)
				}
			}
			x = y
		}
		sc.entries = es
	}
	addRuns(func(v *view) string { return v.callerRoot })
	addRuns(func(v *view) string { return v.worktree })

	// Working sets: sort every (path, owner) so that a path's descendants
	// follow it contiguously (the separator made the lowest byte), then
	// sweep with a stack of the ancestors still open. Each entry pairs with
	// the open ancestors and equal paths only, so the sweep costs n·log n
	// plus the overlaps it finds.
	es := sc.entries[:0]
	for _, i := range idx {
		for _, k := range views[i].keys {
			es = append(es, sweepEntry{k, i})
		}
	}
	slices.SortFunc(es, bySweepKey)
	open := sc.open[:0]
	for _, e := range es {
		for len(open) > 0 && !keyCovers(open[len(open)-1].key, e.key) {
			open = open[:len(open)-1]
		}
		for _, o := range open {
			add(o.owner, e.owner)
		}
		open = append(open, e)
	}
	sc.entries, sc.open = es, open
	return pairs
}

// keyCovers reports whether anc equals p or is its ancestor, in the
// separator-as-zero-byte form the sweep sorts by. A path holding a zero
// byte of its own may be taken for an ancestor it is not: that only adds a
// candidate, which collide then refuses.
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
