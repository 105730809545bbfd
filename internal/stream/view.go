package stream

import (
	"slices"
	"sort"

	"github.com/hall-dev/hall/internal/contract"
)

// View is a roster rebuilt from a stream: a snapshot, then each diff folded
// in. After any event it equals what GET /api/presences (with the same
// brain) served at that event's id.
type View struct {
	ServedBrain *contract.ServedBrain
	Cursor      string // the id of the last event applied
	cur         state
	seen        bool // a snapshot was applied
}

// Change is what one event did to a View, with the state a reader needs to
// tell it in words: a leave keeps the presence as last seen, and an opened
// collision is told apart from one that was already open and changed.
type Change struct {
	Seq     uint64
	Resync  bool // a snapshot after earlier state: the change is what it implied
	Joins   []contract.Presence
	Updates []contract.Presence
	Leaves  []contract.Presence
	Opened  []contract.Collision // newly listed: newly open, or open and now within the bound
	Changed []contract.Collision // open before, now with other clauses, place or paths
	Closed  []contract.Collision
	// Unlisted left the list though still open: pushed out by the bound
	// (after a resync: maybe so, when the list leaves some out).
	Unlisted []contract.Collision
	// Bounded is set when, after the event, the view lists fewer
	// collisions than it counts: an opened one may have been open
	// before, unlisted.
	Bounded bool
	// Error is set when the registry just became unreadable, Recovered when
	// it just became readable again.
	Error     string
	Detail    string // why, when Error is set
	Recovered bool
	// The overlaps newly listed, changed (e.g. become a conflict) and
	// closed.
	OverlapsOpened, OverlapsChanged, OverlapsClosed []contract.Overlap
}

// Empty reports whether the change changed nothing.
func (c Change) Empty() bool {
	return len(c.Joins)+len(c.Updates)+len(c.Leaves)+len(c.Opened)+len(c.Changed)+len(c.Closed)+len(c.Unlisted) == 0 &&
		len(c.OverlapsOpened)+len(c.OverlapsChanged)+len(c.OverlapsClosed) == 0 &&
		c.Error == "" && !c.Recovered
}

// Apply folds ev into the view and returns what changed. The first snapshot
// joins everything it holds; a later one (a reconnect the Hall could not
// resume) is compared with what the view held, so nothing that happened
// while disconnected goes untold.
func (v *View) Apply(ev Event) Change {
	var ch Change
	switch {
	case ev.Snapshot != nil:
		ch = v.applySnapshot(ev.ID, ev.Snapshot)
	case ev.Diff != nil:
		ch = v.applyDiff(ev.ID, ev.Diff)
	default:
		return Change{}
	}
	ch.Bounded = v.cur.total > len(v.cur.collisions)
	return ch
}

func (v *View) applySnapshot(id string, snap *contract.PresencesResponse) Change {
	next := state{
		presences:  make(map[string]contract.Presence, len(snap.Presences)),
		collisions: make(map[string]contract.Collision, len(snap.Collisions)),
		total:      snap.CollisionsTotal,
		errCode:    snap.Error,
		errDetail:  snap.Detail,
		overlaps:   make(map[string]contract.Overlap, len(snap.Overlaps)),
		ovTotal:    snap.OverlapsTotal,
	}
	for _, o := range snap.Overlaps {
		next.overlaps[o.OverlapID] = o
	}
	for _, p := range snap.Presences {
		next.presences[p.PresenceID] = p
	}
	for _, c := range snap.Collisions {
		next.collisions[c.CollisionID] = c
	}
	c := diffStates(v.cur, next)
	out := Change{Resync: v.seen, Joins: c.joins, Updates: c.updates, Leaves: c.leaves}
	out.Closed, out.Unlisted = splitClosed(c.closed, c.unlisted)
	for _, x := range c.opened {
		if _, was := v.cur.collisions[x.CollisionID]; was {
			out.Changed = append(out.Changed, x)
		} else {
			out.Opened = append(out.Opened, x)
		}
	}
	if c.errChanged {
		out.Error, out.Detail, out.Recovered = next.errCode, next.errDetail, next.errCode == ""
	}
	overlapsChange(v.cur.overlaps, next.overlaps, &out)
	v.cur, v.Cursor, v.ServedBrain, v.seen = next, id, snap.ServedBrain, true
	return out
}

// applyDiff folds a diff in place: a diff is small, the roster may not be.
func (v *View) applyDiff(id string, d *contract.Diff) Change {
	if v.cur.presences == nil {
		v.cur.presences = map[string]contract.Presence{}
		v.cur.collisions = map[string]contract.Collision{}
	}
	out := Change{Seq: d.Seq}
	for _, list := range [][]contract.Presence{d.Joins, d.Updates} {
		for _, p := range list {
			old, ok := v.cur.presences[p.PresenceID]
			switch {
			case !ok:
				out.Joins = append(out.Joins, p)
			case !old.Equal(p):
				out.Updates = append(out.Updates, p)
			}
			v.cur.presences[p.PresenceID] = p
		}
	}
	for _, pid := range d.Leaves {
		if old, ok := v.cur.presences[pid]; ok {
			out.Leaves = append(out.Leaves, old)
			delete(v.cur.presences, pid)
		}
	}
	for _, x := range d.CollisionsOpened {
		old, ok := v.cur.collisions[x.CollisionID]
		switch {
		case !ok:
			out.Opened = append(out.Opened, x)
		case !old.Equal(x):
			out.Changed = append(out.Changed, x)
		}
		v.cur.collisions[x.CollisionID] = x
	}
	for _, x := range d.CollisionsClosed {
		if old, ok := v.cur.collisions[x.CollisionID]; ok {
			if slices.Contains(d.CollisionsUnlisted, x.CollisionID) {
				out.Unlisted = append(out.Unlisted, old)
			} else {
				out.Closed = append(out.Closed, old)
			}
			delete(v.cur.collisions, x.CollisionID)
		}
	}
	if d.CollisionsTotal != nil {
		v.cur.total = *d.CollisionsTotal
	}
	v.applyOverlapsDiff(d, &out)
	if (v.cur.errCode == "") != (d.Error == "") {
		out.Error, out.Detail, out.Recovered = d.Error, d.Detail, d.Error == ""
	}
	v.cur.errCode, v.cur.errDetail = d.Error, d.Detail
	v.Cursor = id
	return out
}

// Response returns the view as GET /api/presences serves it (served_at_ms
// aside): presences newest beat first, then by agent_id and presence_id;
// collisions by brain, then id.
func (v *View) Response() contract.PresencesResponse {
	resp := contract.PresencesResponse{
		Presences:       make([]contract.Presence, 0, len(v.cur.presences)),
		Collisions:      make([]contract.Collision, 0, len(v.cur.collisions)),
		CollisionsTotal: v.cur.total,
		Overlaps:        v.responseOverlaps(),
		OverlapsTotal:   v.cur.ovTotal,
		ServedBrain:     v.ServedBrain,
		Cursor:          v.Cursor,
		Error:           v.cur.errCode,
		Detail:          v.cur.errDetail,
	}
	if resp.Error != "" {
		resp.ServedBrain = nil
	}
	for _, p := range v.cur.presences {
		resp.Presences = append(resp.Presences, p)
	}
	for _, c := range v.cur.collisions {
		resp.Collisions = append(resp.Collisions, c)
	}
	sort.Slice(resp.Presences, func(i, j int) bool {
		a, b := resp.Presences[i], resp.Presences[j]
		if a.LastBeatMs != b.LastBeatMs {
			return a.LastBeatMs > b.LastBeatMs
		}
		if a.AgentID != b.AgentID {
			return a.AgentID < b.AgentID
		}
		return a.PresenceID < b.PresenceID
	})
	sort.Slice(resp.Collisions, func(i, j int) bool {
		a, b := resp.Collisions[i], resp.Collisions[j]
		if a.Brain != b.Brain {
			return a.Brain < b.Brain
		}
		return a.CollisionID < b.CollisionID
	})
	return resp
}

// splitClosed parts the collisions that left a list into the closed and
// the unlisted (by id).
func splitClosed(left []contract.Collision, unlisted map[string]bool) (closed, still []contract.Collision) {
	for _, x := range left {
		if unlisted[x.CollisionID] {
			still = append(still, x)
		} else {
			closed = append(closed, x)
		}
	}
	return closed, still
}
