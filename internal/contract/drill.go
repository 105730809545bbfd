package contract

import (
	"slices"
	"sort"

	"github.com/hall-dev/hall/internal/presence"
)

// DrillCap is the most rows the strip's drill shows, on the page and in the
// cockpit text; the roster beneath the page's drill shows them all.
const DrillCap = 6

// Colliding is the set of presence ids that are a side of a live collision.
func Colliding(cs []Collision) map[string]bool {
	out := make(map[string]bool, 2*len(cs))
	for _, c := range cs {
		out[c.A.PresenceID] = true
		out[c.B.PresenceID] = true
	}
	return out
}

// DrillRows picks the strip's rows from a response (colliding is
// Colliding(d.Collisions), which a page computes once for every region):
// presences in a collision first, then observed mutation, then declared,
// then the rest; within each, the longest-running first. It returns at most
// DrillCap rows and how many it left for the roster. The page's drill and
// the cockpit's are both this order.
func DrillRows(d PresencesResponse, colliding map[string]bool) ([]Presence, int) {
	idx, more := drillOrder(len(d.Presences), func(i int) drillKey {
		p := &d.Presences[i]
		return drillKey{drillRank(p.MutationLevel, colliding[p.PresenceID]), p.FirstSeenMs, p.AgentID, p.PresenceID}
	})
	rows := make([]Presence, len(idx))
	for i, j := range idx {
		rows[i] = d.Presences[j]
	}
	return rows, more
}

// drillRecords is DrillRows over a snapshot's domain records, so the
// cockpit maps only the rows it shows.
func drillRecords(s presence.Snapshot) ([]*presence.Record, int) {
	colliding := make(map[string]bool, 2*len(s.Collisions))
	for _, c := range s.Collisions {
		colliding[c.A.PresenceID] = true
		colliding[c.B.PresenceID] = true
	}
	idx, more := drillOrder(len(s.Live), func(i int) drillKey {
		r := &s.Live[i]
		return drillKey{drillRank(string(r.Mutation.Level()), colliding[r.PresenceID]), r.FirstSeen(), r.AgentID, r.PresenceID}
	})
	rows := make([]*presence.Record, len(idx))
	for i, j := range idx {
		rows[i] = &s.Live[j]
	}
	return rows, more
}

// drillKey is what the drill orders a presence by.
type drillKey struct {
	rank                int
	firstSeenMs         int64
	agentID, presenceID string
}

func (a drillKey) less(b drillKey) bool {
	switch {
	case a.rank != b.rank:
		return a.rank < b.rank
	case a.firstSeenMs != b.firstSeenMs:
		return a.firstSeenMs < b.firstSeenMs
	case a.agentID != b.agentID:
		return a.agentID < b.agentID
	default:
		return a.presenceID < b.presenceID
	}
}

// drillRank is a presence's band in the drill: colliding, observed,
// declared, the rest.
func drillRank(level string, colliding bool) int {
	switch {
	case colliding:
		return 0
	case level == LevelObserved:
		return 1
	case level == LevelDeclared:
		return 2
	default:
		return 3
	}
}

// drillOrder returns the indexes of the first DrillCap of the n presences
// key describes, in drill order (ties in index order), and how many it
// left out. It keeps the best as it goes rather than sorting them all:
// 10,000 presences cost one pass.
func drillOrder(n int, key func(i int) drillKey) ([]int, int) {
	idx := make([]int, 0, DrillCap+1)
	keys := make([]drillKey, 0, DrillCap+1)
	for i := 0; i < n; i++ {
		k := key(i)
		if len(keys) == DrillCap && !k.less(keys[DrillCap-1]) {
			continue
		}
		at := sort.Search(len(keys), func(j int) bool { return k.less(keys[j]) })
		keys = slices.Insert(keys, at, k)
		idx = slices.Insert(idx, at, i)
		if len(keys) > DrillCap {
			keys, idx = keys[:DrillCap], idx[:DrillCap]
		}
	}
	return idx, n - len(idx)
}
