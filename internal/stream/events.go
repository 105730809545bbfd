package stream

import (
	"slices"
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// DefaultEvents is how many lines a Hub keeps for GET /api/events.
const DefaultEvents = 1000

// eventRing is the Hub's recent history told as Lines: the last Events
// joins, leaves, collisions opened, changed and closed, and registry state
// changes, in memory only (a restart starts it empty). Updates (beats) are
// left out: a Hall of a thousand agents beats hundreds of times a second,
// and they would push everything else out.
type eventRing struct {
	buf   []contract.Line
	start int
	n     int
}

func (r *eventRing) push(l contract.Line) {
	if len(r.buf) == 0 {
		return
	}
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = l
		r.n++
		return
	}
	r.buf[r.start] = l
	r.start = (r.start + 1) % len(r.buf)
}

// newest returns up to limit lines about brain ("" for every brain; a line
// about every brain matches any), newest event first, and how many more
// matching lines it holds. The lines of one event keep the order that
// matters to a reader: the registry's state first, then collisions, then
// joins and leaves (a roster dropped whole: the reason above the hundred
// leaves it caused).
func (r *eventRing) newest(brain string, limit int) ([]contract.Line, int) {
	out := []contract.Line{}
	left := 0
	var group []contract.Line
	for i := r.n - 1; i >= 0; {
		id := r.at(i).EventID
		group = group[:0]
		for ; i >= 0 && r.at(i).EventID == id; i-- {
			if l := r.at(i); brain == "" || l.OnBrain(brain) {
				group = append(group, l)
			}
		}
		slices.Reverse(group)
		slices.SortStableFunc(group, func(a, b contract.Line) int { return linePriority(a) - linePriority(b) })
		for _, l := range group {
			if len(out) < limit {
				out = append(out, l)
			} else {
				left++
			}
		}
	}
	return out, left
}

func (r *eventRing) at(i int) contract.Line { return r.buf[(r.start+i)%len(r.buf)] }

func linePriority(l contract.Line) int {
	switch {
	case l.Collision != nil:
		return 1
	case l.Overlap != nil:
		return 2
	case l.Presence != nil:
		return 3
	}
	return 0
}

// tellLocked records what change c said as Lines, given the collisions
// open before it. The caller holds h.mu.
func (h *Hub) tellLocked(c *change, prev map[string]contract.Collision) {
	ch := Change{Seq: c.seq, Joins: c.joins, Leaves: c.leaves, OverlapsClosed: c.ovClosed}
	for _, o := range c.ovOpened {
		if c.ovWas[o.OverlapID] {
			ch.OverlapsChanged = append(ch.OverlapsChanged, o)
		} else {
			ch.OverlapsOpened = append(ch.OverlapsOpened, o)
		}
	}
	// A collision pushed out of the bounded list is told as unlisted, not
	// closed; one entering it while the list leaves some out may have
	// been open before.
	ch.Closed, ch.Unlisted = splitClosed(c.closed, c.unlisted)
	ch.Bounded = h.cur.counts.OnBrain("") > len(h.cur.collisions)
	for _, x := range c.opened {
		if _, was := prev[x.CollisionID]; was {
			ch.Changed = append(ch.Changed, x)
		} else {
			ch.Opened = append(ch.Opened, x)
		}
	}
	if c.errChanged {
		ch.Error, ch.Detail, ch.Recovered = c.errCode, c.errDetail, c.errCode == ""
	}
	for _, l := range h.teller.Tell(Event{ID: formatID(h.base, c.seq)}, ch, h.now()) {
		h.events.push(l)
	}
}

// firstLookLocked tells the teller which collisions were open when the hub
// first looked: their age counts from then, as at least that old.
func (h *Hub) firstLookLocked(r roster) {
	snap := &contract.PresencesResponse{}
	ch := Change{}
	for _, c := range r.collisions {
		ch.Opened = append(ch.Opened, c)
	}
	h.teller.Tell(Event{Snapshot: snap}, ch, h.now())
}

func (h *Hub) now() time.Time {
	if v, ok := h.src.(versionedSource); ok {
		return v.Now()
	}
	return time.Now()
}

// Events returns the hub's recent lines about brain ("" for every brain),
// newest first, at most limit of them, and how many more it holds that
// match. The history is in memory and bounded (Config.Events lines).
func (h *Hub) Events(brain string, limit int) ([]contract.Line, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.events.newest(brain, limit)
}

// EventsKept is how many lines the history holds at most.
func (h *Hub) EventsKept() int { return h.cfg.Events }

// CollisionsOpened says, for each collision id that is open now, when the
// hub saw it open.
func (h *Hub) CollisionsOpened(ids []string) map[string]contract.Opened {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]contract.Opened, len(ids))
	for _, id := range ids {
		if o, ok := h.teller.OpenedAt(id); ok {
			out[id] = o
		}
	}
	return out
}
