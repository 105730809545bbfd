package stream

import (
	"slices"
	"sort"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// roster is the hub's state: the snapshot's records by presence_id (kept
// in domain form, so a sync compares records and maps to the wire only
// what changed), and its collisions in wire form by collision_id (the wire
// form is what a subscriber sees change: a side's beat is not a change of
// the collision).
type roster struct {
	records    map[string]*presence.Record // into the snapshot's Live, which never changes
	collisions map[string]contract.Collision
	counts     *presence.CollisionCounts // the true counts; nil counts none
	errCode    string                    // contract.RegistryUnreadable or StoreUnreachable while the roster is dropped whole
	errDetail  string
	overlaps   map[string]contract.Overlap // listed, by overlap_id (overlaps.go)
	ovCounts   map[string]int              // every overlapping pair, by brain
	ovOwn      map[string]ownTotal         // every presence's overlaps, listed or not, and its brain
	atMs       int64                       // the snapshot's time: the collision predicate reads it
}

// rosterOf keys a snapshot (or the error that replaced it). The snapshot's
// records are its own copies and never change, so they are kept as they
// are. A collision whose wire form prev already holds reuses it: most of a
// roster's collisions are the same from one change to the next.
func rosterOf(snap presence.Snapshot, err error, prev roster) roster {
	if err != nil {
		code, detail := contract.RosterError(err)
		return roster{errCode: code, errDetail: detail}
	}
	r := roster{
		records:    make(map[string]*presence.Record, len(snap.Live)),
		collisions: make(map[string]contract.Collision, len(snap.Collisions)),
		counts:     snap.Counts,
		atMs:       snap.AtMs,
	}
	r.overlaps, r.ovCounts, r.ovOwn = overlapsOf(snap)
	for i := range snap.Live {
		r.records[snap.Live[i].PresenceID] = &snap.Live[i]
	}
	for _, c := range snap.Collisions {
		id := c.Key()
		if w, ok := prev.collisions[id]; ok && wireOf(c, w) {
			r.collisions[id] = w
			continue
		}
		r.collisions[id] = contract.FromCollision(c)
	}
	return r
}

// wireOf reports whether w is c's wire form.
func wireOf(c presence.Collision, w contract.Collision) bool {
	if c.Brain != w.Brain || c.Place != w.Place || len(c.Clauses) != len(w.Clauses) || !slices.Equal(c.Paths, w.Paths) ||
		w.A != (contract.Side{PresenceID: c.A.PresenceID, AgentID: c.A.AgentID, Theme: c.A.Theme}) ||
		w.B != (contract.Side{PresenceID: c.B.PresenceID, AgentID: c.B.AgentID, Theme: c.B.Theme}) {
		return false
	}
	for i, cl := range c.Clauses {
		if string(cl) != w.Clauses[i] {
			return false
		}
	}
	// m1nd's fields: the caller_root is a side's own, which a beat may
	// change while the clauses stay.
	reason, root := contract.ReasonOf(c)
	return c.Brain == w.BrainRoot && reason == w.Reason && root == w.CallerRoot &&
		w.AgentIDs == [2]string{c.A.AgentID, c.B.AgentID}
}

// diffRosters returns what turns prev into next, in wire form, every list
// sorted by id so one change always encodes the same way.
func diffRosters(prev, next roster) *change {
	c := &change{errCode: next.errCode, errDetail: next.errDetail}
	c.errChanged = (prev.errCode == "") != (next.errCode == "")
	for id, r := range next.records {
		old, ok := prev.records[id]
		switch {
		case !ok:
			c.joins = append(c.joins, contract.FromRecord(*r))
		case old != r && !old.Equal(r):
			c.updates = append(c.updates, contract.FromRecord(*r))
		}
	}
	for id, r := range prev.records {
		if _, ok := next.records[id]; !ok {
			c.leaves = append(c.leaves, contract.FromRecord(*r))
		}
	}
	diffCollisions(c, prev.collisions, next.collisions)
	// A collision that left the list with both sides still live and still
	// colliding was pushed out by the bound: it is unlisted, not closed.
	for _, x := range c.closed {
		a, okA := next.records[x.A.PresenceID]
		b, okB := next.records[x.B.PresenceID]
		if okA && okB {
			if _, open := presence.CollisionBetween(*a, *b, time.UnixMilli(next.atMs)); open {
				if c.unlisted == nil {
					c.unlisted = map[string]bool{}
				}
				c.unlisted[x.CollisionID] = true
			}
		}
	}
	diffCounts(c, prev, next)
	diffOverlaps(c, prev, next)
	c.sort()
	return c
}

// diffCounts adds to c the collision counts that changed between prev and
// next: the owner's, and those of each brain and presence. A brain whose
// counts are the very same object in both is not looked into.
func diffCounts(c *change, prev, next roster) {
	pc, nc := prev.counts, next.counts
	c.total = nc.OnBrain("")
	c.totalChanged = pc.OnBrain("") != c.total
	if pc == nc {
		return
	}
	var pb, nb map[string]*presence.BrainCounts
	if pc != nil {
		pb = pc.Brains
	}
	if nc != nil {
		nb = nc.Brains
	}
	for b, n := range nb {
		c.diffBrain(b, pb[b], n)
	}
	for b, p := range pb {
		if _, ok := nb[b]; !ok {
			c.diffBrain(b, p, nil)
		}
	}
}

// diffBrain adds to c what changed in one brain's counts (nil: none).
func (c *change) diffBrain(brain string, prev, next *presence.BrainCounts) {
	if prev == next {
		return
	}
	var pt, nt int
	var pp, np map[string]int
	if prev != nil {
		pt, pp = prev.Total, prev.ByPresence
	}
	if next != nil {
		nt, np = next.Total, next.ByPresence
	}
	if pt != nt {
		c.setBrainTotal(brain, nt)
	}
	for id, n := range np {
		if pp[id] != n {
			c.setPresenceTotal(id, brain, n)
		}
	}
	for id := range pp {
		if _, ok := np[id]; !ok {
			c.setPresenceTotal(id, brain, 0)
		}
	}
}

func (c *change) setBrainTotal(brain string, n int) {
	if c.brainTotals == nil {
		c.brainTotals = map[string]int{}
	}
	c.brainTotals[brain] = n
}

func (c *change) setPresenceTotal(id, brain string, n int) {
	if c.presenceTotals == nil {
		c.presenceTotals = map[string]ownTotal{}
	}
	c.presenceTotals[id] = ownTotal{brain: brain, n: n}
}

// ownTotal is a presence's count of collisions, and its brain (a stream
// filtered to a brain and a presence counts it on that brain only).
type ownTotal struct {
	brain string
	n     int
}

// state is a roster in wire form, as a client rebuilds it (View):
// presences by presence_id, collisions by collision_id.
type state struct {
	presences  map[string]contract.Presence
	collisions map[string]contract.Collision
	total      int // collisions_total
	errCode    string
	errDetail  string
	overlaps   map[string]contract.Overlap
	ovTotal    int // overlaps_total
}

// change is one diff in full: what left and what closed keep their last
// wire form, so a subscriber filtered to a brain or a presence can tell
// whether the change is its own.
type change struct {
	seq     uint64
	joins   []contract.Presence
	updates []contract.Presence
	leaves  []contract.Presence
	opened  []contract.Collision // new, or open with different clauses, place, paths or sides
	closed  []contract.Collision
	// unlisted holds the ids of closed collisions that are still open:
	// they left the bounded list only.
	unlisted map[string]bool
	// The true counts after the change, where they changed: the owner's
	// (total, when totalChanged), and by brain and by presence.
	total          int
	totalChanged   bool
	brainTotals    map[string]int
	presenceTotals map[string]ownTotal
	// errChanged is set when the registry became unreadable or readable
	// again; errCode is the state after the change. Such a diff reaches
	// every subscriber, though its lists may be empty for it.
	errChanged bool
	errCode    string
	errDetail  string
	// The overlaps that opened (or changed) and closed, and the counts
	// that changed (overlaps.go).
	ovOpened, ovClosed []contract.Overlap
	ovWas              map[string]bool // ids in ovOpened that were open before: changed
	ovTotal            int
	ovTotalChanged     bool
	ovBrainTotals      map[string]int
	ovPresenceTotals   map[string]ownTotal
}

// items is what the change carries, one for each presence, collision and
// count: what the history's bound weighs.
func (c *change) items() int {
	return 1 + len(c.joins) + len(c.updates) + len(c.leaves) + len(c.opened) + len(c.closed) +
		len(c.brainTotals) + len(c.presenceTotals) +
		len(c.ovOpened) + len(c.ovClosed) + len(c.ovBrainTotals) + len(c.ovPresenceTotals)
}

func (c *change) empty() bool {
	return !c.errChanged && !c.totalChanged && len(c.brainTotals)+len(c.presenceTotals) == 0 &&
		len(c.joins)+len(c.updates)+len(c.leaves)+len(c.opened)+len(c.closed) == 0 &&
		!c.ovTotalChanged && len(c.ovOpened)+len(c.ovClosed)+len(c.ovBrainTotals)+len(c.ovPresenceTotals) == 0
}

// diffStates returns what turns prev into next (wire forms, as a View
// holds them), every list sorted by id.
func diffStates(prev, next state) *change {
	c := &change{errCode: next.errCode, errDetail: next.errDetail}
	c.errChanged = (prev.errCode == "") != (next.errCode == "")
	for id, p := range next.presences {
		old, ok := prev.presences[id]
		switch {
		case !ok:
			c.joins = append(c.joins, p)
		case !old.Equal(p):
			c.updates = append(c.updates, p)
		}
	}
	for id, p := range prev.presences {
		if _, ok := next.presences[id]; !ok {
			c.leaves = append(c.leaves, p)
		}
	}
	diffCollisions(c, prev.collisions, next.collisions)
	c.total, c.totalChanged = next.total, prev.total != next.total
	// A collision no longer listed, both sides still present, while the
	// list leaves some out: it may have been pushed out by the bound
	// rather than closed, and a snapshot cannot tell which.
	if next.total > len(next.collisions) {
		for _, x := range c.closed {
			_, okA := next.presences[x.A.PresenceID]
			_, okB := next.presences[x.B.PresenceID]
			if okA && okB {
				if c.unlisted == nil {
					c.unlisted = map[string]bool{}
				}
				c.unlisted[x.CollisionID] = true
			}
		}
	}
	c.sort()
	return c
}

// diffCollisions adds to c the collisions that opened (or changed: an
// upsert) and closed between prev and next.
func diffCollisions(c *change, prev, next map[string]contract.Collision) {
	for id, x := range next {
		if old, ok := prev[id]; !ok || !old.Equal(x) {
			c.opened = append(c.opened, x)
		}
	}
	for id, x := range prev {
		if _, ok := next[id]; !ok {
			c.closed = append(c.closed, x)
		}
	}
}

func (c *change) sort() {
	for _, l := range [][]contract.Presence{c.joins, c.updates, c.leaves} {
		sort.Slice(l, func(i, j int) bool { return l[i].PresenceID < l[j].PresenceID })
	}
	for _, l := range [][]contract.Collision{c.opened, c.closed} {
		sort.Slice(l, func(i, j int) bool { return l[i].CollisionID < l[j].CollisionID })
	}
}

// Filter narrows a stream to what one subscriber asked for. The zero
// Filter is the owner-wide roster. The snapshot a subscriber gets on
// connect is narrowed by the same filter, so snapshot plus diffs always
// rebuild exactly the view it asked for.
type Filter struct {
	// Brain keeps one brain's presences and collisions ("" for every brain).
	Brain string
	// PresenceID is the agent's view: only that presence's own join,
	// updates and leave, and only the collisions it is a side of.
	PresenceID string
	// CollisionsOnly drops presences: only collisions opening and closing.
	CollisionsOnly bool
}

func (f Filter) keepsPresence(p contract.Presence) bool {
	return !f.CollisionsOnly && (f.Brain == "" || p.Brain == f.Brain) &&
		(f.PresenceID == "" || p.PresenceID == f.PresenceID)
}

func (f Filter) keepsCollision(c contract.Collision) bool {
	return (f.Brain == "" || c.Brain == f.Brain) &&
		(f.PresenceID == "" || c.A.PresenceID == f.PresenceID || c.B.PresenceID == f.PresenceID)
}

// diff narrows c to the filter; false when nothing of it is the
// subscriber's (such a diff is not sent to it at all).
func (f Filter) diff(c *change) (contract.Diff, bool) {
	d := contract.Diff{
		Seq:              c.seq,
		Joins:            []contract.Presence{},
		Updates:          []contract.Presence{},
		Leaves:           []string{},
		CollisionsOpened: []contract.Collision{},
		CollisionsClosed: []contract.Collision{},
		Error:            c.errCode,
		Detail:           c.errDetail,
	}
	for _, p := range c.joins {
		if f.keepsPresence(p) {
			d.Joins = append(d.Joins, p)
		}
	}
	for _, p := range c.updates {
		if f.keepsPresence(p) {
			d.Updates = append(d.Updates, p)
		}
	}
	for _, p := range c.leaves {
		if f.keepsPresence(p) {
			d.Leaves = append(d.Leaves, p.PresenceID)
		}
	}
	for _, x := range c.opened {
		if f.keepsCollision(x) {
			d.CollisionsOpened = append(d.CollisionsOpened, x)
		}
	}
	for _, x := range c.closed {
		if f.keepsCollision(x) {
			d.CollisionsClosed = append(d.CollisionsClosed, x)
			if c.unlisted[x.CollisionID] {
				d.CollisionsUnlisted = append(d.CollisionsUnlisted, x.CollisionID)
			}
		}
	}
	if n, ok := f.total(c); ok {
		d.CollisionsTotal = &n
	}
	ovs := f.overlapsDiff(c, &d)
	n := len(d.Joins) + len(d.Updates) + len(d.Leaves) + len(d.CollisionsOpened) + len(d.CollisionsClosed)
	return d, n > 0 || c.errChanged || d.CollisionsTotal != nil || ovs
}

// total is the filter's collisions_total after c, and whether c changed
// it: a presence's own count, a brain's, or the owner's.
func (f Filter) total(c *change) (int, bool) {
	switch {
	case f.PresenceID != "":
		t, ok := c.presenceTotals[f.PresenceID]
		if !ok || (f.Brain != "" && t.brain != f.Brain) {
			return 0, false
		}
		return t.n, true
	case f.Brain != "":
		n, ok := c.brainTotals[f.Brain]
		return n, ok
	}
	return c.total, c.totalChanged
}

// response is the snapshot a subscriber gets: for the zero filter or a
// brain, exactly what GET /api/presences[?brain=] answers; narrowed further
// for a presence or collisions only.
func (f Filter) response(snap presence.Snapshot, err error, cursor string) contract.PresencesResponse {
	if err != nil {
		resp := contract.Dropped(err, snap.AtMs)
		resp.Cursor = cursor
		return resp
	}
	s := snap.ForBrain(f.Brain)
	if f.PresenceID != "" {
		narrowed := presence.Snapshot{AtMs: s.AtMs, Skipped: s.Skipped}
		if r, ok := s.Find(f.PresenceID); ok {
			narrowed.Live = []presence.Record{r}
			narrowed.CollisionsTotal = s.Counts.Of(r.Brain, f.PresenceID)
		}
		narrowed.Collisions = s.CollisionsFor(f.PresenceID)
		narrowed.Overlaps = s.OverlapsFor(f.PresenceID)
		if r, ok := s.Find(f.PresenceID); ok {
			// All of its overlaps, listed or not (the brain's bound lists
			// fewer when the brain has more).
			narrowed.OverlapsTotal = max(s.OverlapsTotalOf(r.PresenceID), len(narrowed.Overlaps))
		}
		s = narrowed
	}
	if f.CollisionsOnly {
		s.Live = nil
	}
	resp := contract.FromSnapshot(s, f.Brain)
	resp.Cursor = cursor
	return resp
}
