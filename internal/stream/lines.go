package stream

import (
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// Line types: what one Line says happened.
const (
	LineSnapshot           = "snapshot"
	LineJoin               = "join"
	LineUpdate             = "update"
	LineLeave              = "leave"
	LineCollisionOpened    = "collision_opened"
	LineCollisionChanged   = "collision_changed"
	LineCollisionClosed    = "collision_closed"
	LineCollisionUnlisted  = "collision_unlisted" // still open, no longer listed: the bound
	LineRegistryUnreadable = "registry_unreadable"
	LineRegistryReadable   = "registry_readable"
	LineStoreUnreachable   = "store_unreachable"
	LineStoreReachable     = "store_reachable"
	LineOverlapOpened      = "overlap_opened"
	LineOverlapChanged     = "overlap_changed" // e.g. it became a conflict
	LineOverlapClosed      = "overlap_closed"
)

// Line is one thing that happened on the stream, told on its own: `hall
// watch --json` prints one a line, and GET /api/events serves the Hall's
// recent ones. The JSON field names are a public contract.
type Line struct {
	Type      string                      `json:"type"`
	EventID   string                      `json:"event_id"`
	Seq       uint64                      `json:"seq,omitempty"`
	AtMs      int64                       `json:"at_ms"`            // when the teller saw it (watch: received; the Hall: emitted)
	Resync    bool                        `json:"resync,omitempty"` // from a snapshot after a reconnect
	Snapshot  *contract.PresencesResponse `json:"snapshot,omitempty"`
	Presence  *contract.Presence          `json:"presence,omitempty"` // for a leave: as last seen
	Collision *contract.Collision         `json:"collision,omitempty"`
	Overlap   *contract.Overlap           `json:"overlap,omitempty"`
	Detail    string                      `json:"detail,omitempty"`
	// OpenedAtMs is when the teller saw the collision open, on
	// collision_changed and collision_closed lines; absent when it was
	// already open when the teller first looked.
	OpenedAtMs int64 `json:"opened_at_ms,omitempty"`
	// LastedMs is how long a closed collision was open, present when
	// OpenedAtMs is known.
	LastedMs *int64 `json:"lasted_ms,omitempty"`
}

// Brain is the brain a line is about; "" for a line about every brain
// (a snapshot, the store's state).
func (l Line) Brain() string {
	switch {
	case l.Presence != nil:
		return l.Presence.Brain
	case l.Collision != nil:
		return l.Collision.Brain
	case l.Overlap != nil:
		return l.Overlap.Brain
	}
	return ""
}

// Teller turns what a View says each event changed into Lines, and
// remembers when it saw each open collision open, so a close can say how
// long it lasted. The memory is one entry per open collision. The zero
// Teller is ready; it is not safe for concurrent use.
type Teller struct {
	opened  map[string]Opened
	dropped string // why the roster is dropped now (registry_unreadable, store_unreachable), "" while it is not
}

// Opened is when a teller saw a collision open. Seen is false for one that
// was already open when the teller first looked: AtMs is then that first
// look, and the collision is at least that old.
type Opened struct {
	AtMs int64
	Seen bool
}

// Tell returns the lines ev says, given ch (what View.Apply returned for
// it), stamped with at. A first snapshot is told as itself and the
// collisions open in it (news to a watcher); joins and leaves start with
// the diffs after it. A resync (a snapshot after a reconnect the Hall
// could not resume) is told as the changes it implies.
func (t *Teller) Tell(ev Event, ch Change, at time.Time) []Line {
	if t.opened == nil {
		t.opened = map[string]Opened{}
	}
	now := at.UnixMilli()
	var lines []Line
	add := func(l Line) {
		l.EventID, l.Seq, l.AtMs, l.Resync = ev.ID, ch.Seq, now, ch.Resync
		lines = append(lines, l)
	}
	first := ev.Snapshot != nil && !ch.Resync
	if ev.Snapshot != nil {
		add(Line{Type: LineSnapshot, Snapshot: ev.Snapshot})
	}
	if !first {
		if ch.Error != "" {
			add(Line{Type: ch.Error, Detail: ch.Detail}) // registry_unreadable, store_unreachable
		}
		if ch.Recovered {
			back := LineRegistryReadable
			if t.dropped == contract.StoreUnreachable {
				back = LineStoreReachable
			}
			add(Line{Type: back})
		}
	}
	switch {
	case ch.Error != "":
		t.dropped = ch.Error
	case ch.Recovered:
		t.dropped = ""
	case ev.Snapshot != nil:
		t.dropped = ev.Snapshot.Error
	}
	if !first {
		for i := range ch.Joins {
			add(Line{Type: LineJoin, Presence: &ch.Joins[i]})
		}
		for i := range ch.Updates {
			add(Line{Type: LineUpdate, Presence: &ch.Updates[i]})
		}
		for i := range ch.Leaves {
			add(Line{Type: LineLeave, Presence: &ch.Leaves[i]})
		}
	}
	for i := range ch.Opened {
		c := &ch.Opened[i]
		// While the list leaves some out, a collision entering it may
		// have been open before, unlisted: its age is not known.
		t.opened[c.CollisionID] = Opened{AtMs: now, Seen: !first && !ch.Bounded}
		add(Line{Type: LineCollisionOpened, Collision: c})
	}
	for i := range ch.Changed {
		c := &ch.Changed[i]
		l := Line{Type: LineCollisionChanged, Collision: c}
		if o, ok := t.opened[c.CollisionID]; ok && o.Seen {
			l.OpenedAtMs = o.AtMs
		}
		add(l)
	}
	for i := range ch.Closed {
		c := &ch.Closed[i]
		l := Line{Type: LineCollisionClosed, Collision: c}
		if o, ok := t.opened[c.CollisionID]; ok && o.Seen {
			lasted := now - o.AtMs
			l.OpenedAtMs, l.LastedMs = o.AtMs, &lasted
		}
		delete(t.opened, c.CollisionID)
		add(l)
	}
	for i := range ch.Unlisted {
		c := &ch.Unlisted[i]
		delete(t.opened, c.CollisionID) // one entry per listed collision, no more
		add(Line{Type: LineCollisionUnlisted, Collision: c})
	}
	tellOverlaps(ch, now, add)
	return lines
}

// OpenedAt is when the teller saw a collision that is open now open.
func (t *Teller) OpenedAt(collisionID string) (Opened, bool) {
	o, ok := t.opened[collisionID]
	return o, ok
}
