package stream

import (
	"slices"
	"sort"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// Overlaps on the stream (issue #20) ride beside collisions, as their own
// lists: a diff's overlaps_opened (an upsert: opened, or open and changed,
// e.g. become a conflict) and overlaps_closed, and overlaps_total when it
// changed. Both lists are absent when empty, so a diff without an overlap
// reads as it did before they existed.

// overlapsOf keys a snapshot's listed overlaps in wire form, with the
// counts of all, by brain and by presence (with the presence's brain).
func overlapsOf(snap presence.Snapshot) (map[string]contract.Overlap, map[string]int, map[string]ownTotal) {
	out := make(map[string]contract.Overlap, len(snap.Overlaps))
	for _, o := range snap.Overlaps {
		out[o.ID] = contract.FromOverlap(o)
	}
	var own map[string]ownTotal
	if snap.OverlapsTotal > 0 {
		own = map[string]ownTotal{}
		for i := range snap.Live {
			r := &snap.Live[i]
			if n := snap.OverlapsTotalOf(r.PresenceID); n > 0 {
				own[r.PresenceID] = ownTotal{brain: r.Brain, n: n}
			}
		}
	}
	return out, snap.OverlapCounts, own
}

// diffOverlaps adds to c the overlaps that opened (or changed) and closed
// between prev and next, and the counts that changed: the owner's, each
// brain's, and each presence's (of all its overlaps, listed or not).
func diffOverlaps(c *change, pr, nx roster) {
	prev, next, prevCounts, nextCounts := pr.overlaps, nx.overlaps, pr.ovCounts, nx.ovCounts
	for id, o := range next {
		if old, ok := prev[id]; !ok || !sameOverlap(old, o) {
			c.ovOpened = append(c.ovOpened, o)
			if ok {
				if c.ovWas == nil {
					c.ovWas = map[string]bool{}
				}
				c.ovWas[id] = true
			}
		}
	}
	for id, o := range prev {
		if _, ok := next[id]; !ok {
			c.ovClosed = append(c.ovClosed, o)
		}
	}
	sum := func(m map[string]int) (n int) {
		for _, v := range m {
			n += v
		}
		return n
	}
	c.ovTotal = sum(nextCounts)
	c.ovTotalChanged = sum(prevCounts) != c.ovTotal
	for b, n := range nextCounts {
		if prevCounts[b] != n {
			c.setOvBrainTotal(b, n)
		}
	}
	for b := range prevCounts {
		if _, ok := nextCounts[b]; !ok {
			c.setOvBrainTotal(b, 0)
		}
	}
	for id, t := range nx.ovOwn {
		if pr.ovOwn[id] != t {
			c.setOvPresenceTotal(id, t)
		}
	}
	for id, t := range pr.ovOwn {
		if _, ok := nx.ovOwn[id]; !ok {
			c.setOvPresenceTotal(id, ownTotal{brain: t.brain})
		}
	}
	sortOverlaps(c.ovOpened)
	sortOverlaps(c.ovClosed)
}

func (c *change) setOvBrainTotal(brain string, n int) {
	if c.ovBrainTotals == nil {
		c.ovBrainTotals = map[string]int{}
	}
	c.ovBrainTotals[brain] = n
}

func (c *change) setOvPresenceTotal(id string, t ownTotal) {
	if c.ovPresenceTotals == nil {
		c.ovPresenceTotals = map[string]ownTotal{}
	}
	c.ovPresenceTotals[id] = t
}

func sortOverlaps(l []contract.Overlap) {
	sort.Slice(l, func(i, j int) bool { return l[i].OverlapID < l[j].OverlapID })
}

// sameOverlap reports whether two wire overlaps say the same.
func sameOverlap(a, b contract.Overlap) bool {
	return a.OverlapID == b.OverlapID && a.Brain == b.Brain && a.BrainB == b.BrainB &&
		a.Repository == b.Repository && a.Across == b.Across && a.A == b.A && a.B == b.B &&
		a.Verdict == b.Verdict && a.Merge == b.Merge && a.Basis == b.Basis &&
		a.FilesTotal == b.FilesTotal && a.ConflictsTotal == b.ConflictsTotal && a.SinceMs == b.SinceMs &&
		slices.Equal(a.Conflicts, b.Conflicts) &&
		a.Across == b.Across && a.MergeReason == b.MergeReason && a.MergeHost == b.MergeHost &&
		slices.EqualFunc(a.Files, b.Files, func(x, y contract.OverlapFile) bool {
			return x.Path == y.Path && slices.Equal(x.A, y.A) && slices.Equal(x.B, y.B)
		})
}

func (f Filter) keepsOverlap(o contract.Overlap) bool {
	return (f.Brain == "" || o.OnBrain(f.Brain)) &&
		(f.PresenceID == "" || o.A.PresenceID == f.PresenceID || o.B.PresenceID == f.PresenceID)
}

// overlapsDiff narrows c's overlaps to the filter into d; false when none
// of them is the subscriber's.
func (f Filter) overlapsDiff(c *change, d *contract.Diff) bool {
	for _, o := range c.ovOpened {
		if f.keepsOverlap(o) {
			d.OverlapsOpened = append(d.OverlapsOpened, o)
		}
	}
	for _, o := range c.ovClosed {
		if f.keepsOverlap(o) {
			d.OverlapsClosed = append(d.OverlapsClosed, o)
		}
	}
	if n, ok := f.overlapsTotal(c); ok {
		d.OverlapsTotal = &n
	}
	return len(d.OverlapsOpened)+len(d.OverlapsClosed) > 0 || d.OverlapsTotal != nil
}

// overlapsTotal is the filter's overlaps_total after c, and whether c
// changed it.
func (f Filter) overlapsTotal(c *change) (int, bool) {
	switch {
	case f.PresenceID != "":
		t, ok := c.ovPresenceTotals[f.PresenceID]
		if !ok || (f.Brain != "" && t.brain != "" && t.brain != f.Brain) {
			return 0, false
		}
		return t.n, true
	case f.Brain != "":
		n, ok := c.ovBrainTotals[f.Brain]
		return n, ok
	}
	return c.ovTotal, c.ovTotalChanged
}

// applyOverlapsDiff folds a diff's overlaps into a view's state.
func (v *View) applyOverlapsDiff(d *contract.Diff, out *Change) {
	if v.cur.overlaps == nil {
		v.cur.overlaps = map[string]contract.Overlap{}
	}
	for _, o := range d.OverlapsOpened {
		old, ok := v.cur.overlaps[o.OverlapID]
		switch {
		case !ok:
			out.OverlapsOpened = append(out.OverlapsOpened, o)
		case !sameOverlap(old, o):
			out.OverlapsChanged = append(out.OverlapsChanged, o)
		}
		v.cur.overlaps[o.OverlapID] = o
	}
	for _, o := range d.OverlapsClosed {
		if old, ok := v.cur.overlaps[o.OverlapID]; ok {
			out.OverlapsClosed = append(out.OverlapsClosed, old)
			delete(v.cur.overlaps, o.OverlapID)
		}
	}
	if d.OverlapsTotal != nil {
		v.cur.ovTotal = *d.OverlapsTotal
	}
}

// overlapsChange tells a snapshot's overlaps against what the view held.
func overlapsChange(prev, next map[string]contract.Overlap, out *Change) {
	for id, o := range next {
		old, ok := prev[id]
		switch {
		case !ok:
			out.OverlapsOpened = append(out.OverlapsOpened, o)
		case !sameOverlap(old, o):
			out.OverlapsChanged = append(out.OverlapsChanged, o)
		}
	}
	for id, o := range prev {
		if _, ok := next[id]; !ok {
			out.OverlapsClosed = append(out.OverlapsClosed, o)
		}
	}
	sortOverlaps(out.OverlapsOpened)
	sortOverlaps(out.OverlapsChanged)
	sortOverlaps(out.OverlapsClosed)
}

// responseOverlaps lists a view's overlaps as the contract does: by brain,
// then id.
func (v *View) responseOverlaps() []contract.Overlap {
	out := make([]contract.Overlap, 0, len(v.cur.overlaps))
	for _, o := range v.cur.overlaps {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Brain != out[j].Brain {
			return out[i].Brain < out[j].Brain
		}
		return out[i].OverlapID < out[j].OverlapID
	})
	return out
}

// tellOverlaps adds the lines of a change's overlaps: opened, changed
// (e.g. become a conflict) and closed, with how long a closed one lasted
// (from its since_ms, the Hall's own).
func tellOverlaps(ch Change, now int64, add func(contract.Line)) {
	for i := range ch.OverlapsOpened {
		add(contract.Line{Type: contract.LineOverlapOpened, Overlap: &ch.OverlapsOpened[i]})
	}
	for i := range ch.OverlapsChanged {
		o := &ch.OverlapsChanged[i]
		add(contract.Line{Type: contract.LineOverlapChanged, Overlap: o, OpenedAtMs: o.SinceMs})
	}
	for i := range ch.OverlapsClosed {
		o := &ch.OverlapsClosed[i]
		l := contract.Line{Type: contract.LineOverlapClosed, Overlap: o}
		if o.SinceMs > 0 && now >= o.SinceMs {
			lasted := now - o.SinceMs
			l.OpenedAtMs, l.LastedMs = o.SinceMs, &lasted
		}
		add(l)
	}
}
