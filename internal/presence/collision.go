package presence

import (
	"time"

	"github.com/hall-dev/hall/internal/presence/collision"
)

// Clause names one reason two presences share a place.
type Clause = collision.Clause

// The clauses of the collision predicate's second condition.
const (
	ClauseCallerRoot = collision.CallerRoot
	ClauseWorktree   = collision.Worktree
	ClauseWorkingSet = collision.WorkingSet
	ClauseTouched    = collision.Touched
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
	Clauses []Clause // in the order caller_root, worktree, working_set, touched
	Place   string   // the shared place a person should look at first
	Paths   []string // overlapping working-set and touched paths, absolute, sorted
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

// MaxCollisionWorkingSet is the most working-set entries of one record
// the collision predicate reads: m1nd sets no bound on a working set, and
// the Hall keeps and shows every entry, but the sweep's cost grows with
// the entries, so the first MaxCollisionWorkingSet of each record take
// part and the rest are counted (Record.WorkingSetUnchecked).
const MaxCollisionWorkingSet = 1024

// WorkingSetUnchecked is how many of the record's working-set entries the
// collision predicate leaves out (see MaxCollisionWorkingSet).
func (r *Record) WorkingSetUnchecked() int { return max(len(r.WorkingSet)-MaxCollisionWorkingSet, 0) }

// party is what the predicate (package collision) reads of a record at
// now. It reads the fields Where and MutatingAt read, not through Where:
// its receiver is a whole Record, copied at each call (a sweep makes one
// per record).
func (r *Record) party(now time.Time) collision.Party {
	ws := r.WorkingSet
	if len(ws) > MaxCollisionWorkingSet {
		ws = ws[:MaxCollisionWorkingSet]
	}
	return collision.Party{
		ID: r.PresenceID, Brain: r.Brain,
		CallerRoot: r.CallerRoot, Worktree: r.Worktree,
		Base: Where(r.Worktree, r.CallerRoot, r.Brain), WorkingSet: ws,
		Touched: r.Touched, Team: r.Team(), Agent: r.AgentID,
		Mutating: r.MutatingAt(now),
	}
}

// CollisionBetween applies the spec's predicate to one pair at now: same
// brain, AND not one hand (one agent_id, or a session and its subagents),
// AND (same non-empty caller_root OR same non-empty worktree, a path or a
// declared string, OR overlapping working sets, declared or touched), AND
// both carry a mutation signal at now (MutatingAt). Staleness is the
// caller's concern: pass live records. The collision's sides point at its
// own copies of a and b.
func CollisionBetween(a, b Record, now time.Time) (Collision, bool) {
	f, ok := collision.Between(a.party(now), b.party(now))
	if !ok {
		return Collision{}, false
	}
	sides := [2]*Record{&a, &b}
	return Collision{Brain: f.Brain, A: sides[f.A], B: sides[f.B], Clauses: f.Clauses, Place: f.Place, Paths: f.Paths}, true
}

// CollisionBound is what CollisionsWithin lists of the collisions it
// counts: at most Max on each brain (0: all), only those one presence is
// a side of (Focus), and each record's count (Degrees).
type CollisionBound = collision.Bound

// CollisionTally is what CollisionsWithin counted: every colliding pair in
// scope, listed or not, and by request each record's pairs.
type CollisionTally = collision.Tally

// CollisionsWithin counts the collisions among the live records on brain,
// or on every brain when brain is "", and returns the ones the bound
// lists. The pairs are found by classing each brain's records by
// caller_root and worktree and sorting its working-set paths (see package
// collision): the pairs that share a caller_root or a worktree are
// counted from the sizes of those classes, never one by one, so neither time nor memory grows with the
// square of a brain's roster when its records share a place. The order is
// deterministic: by brain, then Key, then the sides' positions in live; a
// bounded brain lists its first Max pairs in that order.
func CollisionsWithin(brain string, live []Record, now time.Time, b CollisionBound) ([]Collision, CollisionTally) {
	return collision.Within(brain, len(live),
		func(i int) collision.Party { return live[i].party(now) },
		b,
		func(f collision.Found) Collision {
			return Collision{Brain: f.Brain, A: &live[f.A], B: &live[f.B], Clauses: f.Clauses, Place: f.Place, Paths: f.Paths}
		})
}

// CollisionsFor returns every collision one presence is a side of: its own
// view, the one north shows it. It sweeps p's brain only, and its cost
// grows with that brain's records and p's partners, not their pairs.
func CollisionsFor(p Record, live []Record, now time.Time) []Collision {
	out, _ := CollisionsWithin(p.Brain, live, now, CollisionBound{Focus: p.PresenceID})
	return out
}
