package presence

import (
	"sort"
	"time"
)

// Snapshot is the roster at one instant: the live records in roster order,
// their collisions, and the brains the Hall knows.
//
// Collisions lists at most the Service's MaxCollisions on each brain, the
// first by the sides' ids (Key order); CollisionsTotal counts every
// colliding pair the snapshot covers, listed or not, and Counts holds the
// counts by brain and by presence.
type Snapshot struct {
	AtMs            int64
	Live            []Record    // newest beat first, then agent_id, then presence_id
	Collisions      []Collision // by brain, then pair; bounded on each brain
	CollisionsTotal int         // every colliding pair in scope, listed or not
	Skipped         int         // store entries that did not decode
	// Repaired counts the store's records served after repair: a foreign
	// writer's fields brought inside the published contract
	// (DecodeRecordRepaired), stale records included.
	Repaired int
	// Counts is every brain's and presence's count of collisions, of the
	// whole roster (ForBrain narrows Collisions and CollisionsTotal, not
	// Counts). Snapshots share it: read-only. Nil counts nothing.
	Counts *CollisionCounts
	// Overlaps are the overlaps among Live (Config.Overlaps; none without
	// it), by brain, then pair, bounded on each brain; OverlapsTotal
	// counts every overlapping pair in scope, listed or not.
	Overlaps      []Overlap
	OverlapsTotal int
	OverlapCounts map[string]int // by brain, of the whole roster; read-only
	// presenceOverlaps counts each presence's overlaps, listed or not, of
	// the whole roster (OverlapsTotalOf); read-only.
	presenceOverlaps map[string]int
	brains           map[string]bool
}

// CollisionCounts is how many collisions each brain and each presence has,
// listed or not.
type CollisionCounts struct {
	Total int
	// Brains holds the counts of the brains with one collision at least.
	// A brain's entry is shared from one counts to the next while that
	// brain's counts do not change: a reader compares the pointers first.
	Brains map[string]*BrainCounts
}

// BrainCounts is one brain's count of collisions, and each presence's.
type BrainCounts struct {
	Total      int
	ByPresence map[string]int // presence ids with one collision at least
}

// Brain is brain's counts, nil when it has no collision.
func (c *CollisionCounts) Brain(brain string) *BrainCounts {
	if c == nil {
		return nil
	}
	return c.Brains[brain]
}

// OnBrain is brain's count, every brain's when brain is "".
func (c *CollisionCounts) OnBrain(brain string) int {
	switch {
	case c == nil:
		return 0
	case brain == "":
		return c.Total
	}
	if b := c.Brains[brain]; b != nil {
		return b.Total
	}
	return 0
}

// Of is the number of collisions the presence id, on brain, is a side of.
func (c *CollisionCounts) Of(brain, id string) int {
	if b := c.Brain(brain); b != nil {
		return b.ByPresence[id]
	}
	return 0
}

// Known reports whether the Hall knows brain: configured, or named by any
// stored record (stale ones included).
func (s Snapshot) Known(brain string) bool { return s.brains[brain] }

// Brains returns the known brains, sorted.
func (s Snapshot) Brains() []string {
	out := make([]string, 0, len(s.brains))
	for b := range s.brains {
		out = append(out, b)
	}
	sort.Strings(out)
	return out
}

// ForBrain narrows the snapshot to one brain; "" returns it whole.
func (s Snapshot) ForBrain(brain string) Snapshot {
	if brain == "" {
		return s
	}
	out := Snapshot{AtMs: s.AtMs, Skipped: s.Skipped, Repaired: s.Repaired, brains: s.brains, Counts: s.Counts, CollisionsTotal: s.Counts.OnBrain(brain), OverlapCounts: s.OverlapCounts, presenceOverlaps: s.presenceOverlaps}
	for _, r := range s.Live {
		if r.Brain == brain {
			out.Live = append(out.Live, r)
		}
	}
	for _, c := range s.Collisions {
		if c.Brain == brain {
			out.Collisions = append(out.Collisions, c)
		}
	}
	out.Overlaps, out.OverlapsTotal = s.overlapsOnBrain(brain)
	return out
}

// Find returns the live record with the id.
func (s Snapshot) Find(id string) (Record, bool) {
	for _, r := range s.Live {
		if r.PresenceID == id {
			return r, true
		}
	}
	return Record{}, false
}

// CollisionsFor returns the listed collisions the presence with id is a
// side of: those among the snapshot's bounded list (Counts.Of counts all
// of them; North lists its first whatever the bound).
func (s Snapshot) CollisionsFor(id string) []Collision {
	var out []Collision
	for _, c := range s.Collisions {
		if _, ok := c.Partner(id); ok {
			out = append(out, c)
		}
	}
	return out
}

// North returns the first NorthCap collisions the live presence id is a
// side of, whether or not the snapshot lists them, and how many it has in
// all: derived from the snapshot's own records, on the presence's brain.
func (s Snapshot) North(id string) ([]Collision, int) {
	r, ok := s.Find(id)
	if !ok {
		return nil, 0
	}
	out, tally := CollisionsWithin(r.Brain, s.Live, time.UnixMilli(s.AtMs), CollisionBound{Max: NorthCap, Focus: id})
	return out, tally.Pairs
}

// NextExpiryMs is the first millisecond at which a live record goes stale
// or its observed mutation lapses (its collisions may end then), 0 when
// none is live: the moment a live view must look again.
func (s Snapshot) NextExpiryMs() int64 {
	var next int64
	for i := range s.Live {
		next = s.Live[i].nextChangeMs(s.AtMs, next)
	}
	return next
}
