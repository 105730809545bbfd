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
	var t top[*Presence]
	for i := range d.Presences {
		p := &d.Presences[i]
		t.offer(drillKey{drillRank(p.MutationLevel, colliding[p.PresenceID]), p.FirstSeenMs, p.AgentID, p.PresenceID}, p)
	}
	rows := make([]Presence, len(t.items))
	for i, p := range t.items {
		rows[i] = *p
	}
	return rows, len(d.Presences) - len(rows)
}

// drillRecords is DrillRows over a snapshot's domain records, for the
// cockpit: it maps only the rows it shows, and looks at the colliding
// sides through the collisions rather than a set of every colliding id.
// When fewer than DrillCap presences collide, they are all among the rows
// kept, so the rows are also the colliding set the rest is ranked against.
func drillRecords(s presence.Snapshot) ([]*presence.Record, int) {
	var t top[*presence.Record]
	key := func(r *presence.Record, colliding bool) drillKey {
		return drillKey{drillRank(string(r.Mutation.Level()), colliding), r.FirstSeen(), r.AgentID, r.PresenceID}
	}
	for _, c := range s.Collisions {
		for _, r := range []*presence.Record{c.A, c.B} {
			if k := key(r, true); t.takes(k) && !t.has(r.PresenceID) {
				t.offer(k, r)
			}
		}
	}
	if len(t.items) < DrillCap {
		for i := range s.Live {
			if r := &s.Live[i]; !t.has(r.PresenceID) {
				t.offer(key(r, false), r)
			}
		}
	}
	return t.items, len(s.Live) - len(t.items)
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

// top keeps the first DrillCap of the presences offered to it, in drill
// order (ties in the order offered), as they come: 10,000 presences cost
// one pass, never a sort.
type top[T any] struct {
	keys  []drillKey
	items []T
}

// takes reports whether a presence of key k would be kept.
func (t *top[T]) takes(k drillKey) bool {
	return len(t.keys) < DrillCap || k.less(t.keys[DrillCap-1])
}

func (t *top[T]) offer(k drillKey, item T) {
	if !t.takes(k) {
		return
	}
	at := sort.Search(len(t.keys), func(j int) bool { return k.less(t.keys[j]) })
	t.keys = slices.Insert(t.keys, at, k)
	t.items = slices.Insert(t.items, at, item)
	if len(t.keys) > DrillCap {
		t.keys, t.items = t.keys[:DrillCap], t.items[:DrillCap]
	}
}

// has reports whether the presence id is among those kept.
func (t *top[T]) has(id string) bool {
	for _, k := range t.keys {
		if k.presenceID == id {
			return true
		}
	}
	return false
}
