package stream

import (
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// Teller turns what a View says each event changed into Lines, and
// remembers when it saw each open collision open, so a close can say how
// long it lasted. The memory is one entry per open collision. The zero
// Teller is ready; it is not safe for concurrent use.
type Teller struct {
	opened  map[string]contract.Opened
	dropped string // why the roster is dropped now (registry_unreadable, store_unreachable), "" while it is not
}

// Tell returns the lines ev says, given ch (what View.Apply returned for
// it), stamped with at. A first snapshot is told as itself and the
// collisions open in it (news to a watcher); joins and leaves start with
// the diffs after it. A resync (a snapshot after a reconnect the Hall
// could not resume) is told as the changes it implies.
func (t *Teller) Tell(ev Event, ch Change, at time.Time) []contract.Line {
	if t.opened == nil {
		t.opened = map[string]contract.Opened{}
	}
	now := at.UnixMilli()
	var lines []contract.Line
	add := func(l contract.Line) {
		l.EventID, l.Seq, l.AtMs, l.Resync = ev.ID, ch.Seq, now, ch.Resync
		lines = append(lines, l)
	}
	first := ev.Snapshot != nil && !ch.Resync
	if ev.Snapshot != nil {
		add(contract.Line{Type: contract.LineSnapshot, Snapshot: ev.Snapshot})
	}
	if !first {
		if ch.Error != "" {
			add(contract.Line{Type: ch.Error, Detail: ch.Detail}) // registry_unreadable, store_unreachable
		}
		if ch.Recovered {
			back := contract.LineRegistryReadable
			if t.dropped == contract.StoreUnreachable {
				back = contract.LineStoreReachable
			}
			add(contract.Line{Type: back})
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
			add(contract.Line{Type: contract.LineJoin, Presence: &ch.Joins[i]})
		}
		for i := range ch.Updates {
			add(contract.Line{Type: contract.LineUpdate, Presence: &ch.Updates[i]})
		}
		for i := range ch.Leaves {
			add(contract.Line{Type: contract.LineLeave, Presence: &ch.Leaves[i]})
		}
	}
	for i := range ch.Opened {
		c := &ch.Opened[i]
		// While the list leaves some out, a collision entering it may
		// have been open before, unlisted: its age is not known.
		t.opened[c.CollisionID] = contract.Opened{AtMs: now, Seen: !first && !ch.Bounded}
		add(contract.Line{Type: contract.LineCollisionOpened, Collision: c})
	}
	for i := range ch.Changed {
		c := &ch.Changed[i]
		l := contract.Line{Type: contract.LineCollisionChanged, Collision: c}
		if o, ok := t.opened[c.CollisionID]; ok && o.Seen {
			l.OpenedAtMs = o.AtMs
		}
		add(l)
	}
	for i := range ch.Closed {
		c := &ch.Closed[i]
		l := contract.Line{Type: contract.LineCollisionClosed, Collision: c}
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
		add(contract.Line{Type: contract.LineCollisionUnlisted, Collision: c})
	}
	tellOverlaps(ch, now, add)
	return lines
}

// OpenedAt is when the teller saw a collision that is open now open.
func (t *Teller) OpenedAt(collisionID string) (contract.Opened, bool) {
	o, ok := t.opened[collisionID]
	return o, ok
}
