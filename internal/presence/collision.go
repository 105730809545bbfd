package presence

import (
	"slices"
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
//
// A and B point at the records themselves, not at copies: CollisionsIn's
// point into the live slice it was given (a Snapshot's into its Live), so
// a collision costs a few words rather than two whole records. Treat them
// as read-only, as the rest of a snapshot is.
type Collision struct {
	Brain   string
	A, B    *Record
	Clauses []Clause // in the order caller_root, worktree, working_set
	Place   string   // the shared place a person should look at first
	Paths   []string // overlapping working-set paths, absolute, sorted
}

// Key identifies the pair: the two presence ids joined by "~".
func (c Collision) Key() string { return c.A.PresenceID + "~" + c.B.PresenceID }

// Partner returns the other side of the collision for the presence id, and
// false when id is neither side.
func (c Collision) Partner(id string) (*Record, bool) {
	switch id {
	case c.A.PresenceID:
		return c.B, true
	case c.B.PresenceID:
		return c.A, true
	}
	return nil, false
}

// CollisionBetween applies the spec's predicate to one pair: same brain, AND
// (same non-empty caller_root OR same non-empty worktree OR overlapping
// declared working sets), AND both carry a mutation signal. Staleness is the
// caller's concern: pass live records. The collision's sides point at its
// own copies of a and b.
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
	// A sweep numbers the distinct caller_roots and worktrees it finds
	// (from 1), so that a pair compares two numbers rather than two
	// paths; 0 when not numbered.
	rootID, treeID int32
}

// samePlace reports whether two views' places (caller_roots, or worktrees)
// are the same non-empty path, by their numbers when both have one.
func samePlace(a, b string, aID, bID int32) bool {
	if a == "" {
		return false
	}
	if aID != 0 && bID != 0 {
		return aID == bID
	}
	return a == b
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
	return cl.between(a.Brain, a, b, va, vb)
}

// between is collide for a pair already ordered (a's presence_id the
// smaller) on brain: it reads the views only, not the records, which a
// sweep over a large roster no longer has in cache.
func (cl *collider) between(brain string, a, b *Record, va, vb *view) (Collision, bool) {
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
		if len(paths) > 1 {
			slices.Sort(paths)
			paths = slices.Compact(paths)
			cl.paths = cl.paths[:start+len(paths)]
		}
		paths = paths[:len(paths):len(paths)]
	}
	sameRoot := samePlace(va.callerRoot, vb.callerRoot, va.rootID, vb.rootID)
	sameTree := samePlace(va.worktree, vb.worktree, va.treeID, vb.treeID)
	cs := cl.clauses[len(cl.clauses):]
	if sameRoot {
		cs = append(cs, ClauseCallerRoot)
	}
	if sameTree {
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
	c := Collision{Brain: brain, A: a, B: b, Clauses: cs, Paths: paths}
	// Name first the shared worktree, else the shared caller_root, else
	// the first overlapping path.
	switch {
	case sameTree:
		c.Place = va.worktree
	case sameRoot:
		c.Place = va.callerRoot
	default:
		c.Place = paths[0]
	}
	return c, true
}

// CollisionsIn returns every collision among the live records on brain, or
// on every brain when brain is "". The pairs are found by sorting each
// brain's caller_roots, worktrees and working-set paths (see sweep), so
// the cost grows with the records and the collisions found, not with the
// square of a brain's roster nor with the number of brains. The order is
// deterministic: by brain, then Key, then the sides' positions in live.
func CollisionsIn(brain string, live []Record) []Collision {
	sw := sweeps.Get().(*sweep)
	defer sw.release()
	sw.run(brain, live)
	if len(sw.pairs) == 0 {
		return nil
	}
	// Most collisions carry one or two clauses and one or two paths: the
	// collider's arrays start at that and grow with what is left.
	cl := collider{paths: make([]string, 0, len(sw.pairs))}
	out := make([]Collision, 0, len(sw.pairs))
	for k, p := range sw.pairs {
		if cap(cl.clauses)-len(cl.clauses) < 3 {
			cl.clauses = make([]Clause, 0, 2*(len(sw.pairs)-k)+1)
		}
		a, b := p[0], p[1]
		if c, ok := cl.between(sw.brainName(a), &live[sw.recs[a]], &live[sw.recs[b]], &sw.views[a], &sw.views[b]); ok {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil
	}
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

func cleanOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	return cleanPath(p)
}
