package collision

import (
	"slices"
)

// Counting and listing the pairs of one brain, without holding them all.
//
// A pair collides when its records share a caller_root (R), share a
// worktree (T), or have overlapping working sets, declared or touched (W),
// and are not of one team (one presence, or a session and its subagents).
// R and T are unions of cliques: every record of a class (one place)
// collides with every other of another team, so a record's partners there
// are counted from the sizes of its classes less its own team's records
// in them, |R ∪ T| = |R| + |T| - |R ∩ T|, at no cost per pair. Only W \
// (R ∪ T), the pairs that overlap by working set alone, are found one by
// one, by walking the working-set tree (see wsTree); a record whose
// classes already hold every other record of its brain is not walked at
// all. So a roster all in one worktree costs its size, not its square; a
// roster whose working sets overlap across worktrees costs the overlaps
// it walks, as the listing it then answers would.
//
// Listing walks the ranks in order and stops at the bound: the first
// Bound.Max pairs in In's order cost their own number plus the partners
// of the ranks they come from, never the pairs beyond.

// placeIndex is the records of a brain that have one kind of place (a
// caller_root, or a worktree), by place, then rank: each class (one place)
// is a run.
type placeIndex struct {
	ranks []int32 // by position
	at    []int32 // by rank - start: its position, -1 without a place
	end   []int32 // by position: one past its class
	// By rank - start: how many records of other teams (see sweep.teams)
	// share its place, and how many of those come after it.
	all, later []int32
}

// laterOthers appends to dst, in order, the ranks after local index i in
// its class that are of another team than g, until dst holds need.
func (ix *placeIndex) laterOthers(sw *sweep, i, g int32, need int, dst []int32) []int32 {
	p := ix.at[i]
	if p < 0 || len(dst) >= need {
		return dst
	}
	for _, r := range ix.ranks[p+1 : ix.end[p]] {
		if sw.group[r] != g {
			if dst = append(dst, r); len(dst) == need {
				break
			}
		}
	}
	return dst
}

// classify sorts the brain's caller_roots and worktrees, numbers each
// distinct one (so that a pair compares two numbers rather than two
// paths), and counts for each rank the records of other teams that share
// its caller_root, its worktree, and both (sw.bothAll, sw.bothLater):
// class by class, with counters by team and by worktree number, no sort
// and no pair.
func (sw *sweep) classify(start, end int32) {
	n := end - start
	groups := len(sw.gsize)
	sw.gcnt, sw.gseen = zeroed(sw.gcnt, groups), zeroed(sw.gseen, groups)
	cnt, seen := sw.gcnt, sw.gseen
	callerRoot := func(r int32) string { return sw.views[r].callerRoot }
	worktree := func(r int32) string { return sw.views[r].worktree }
	for kind, ix := range []*placeIndex{&sw.roots, &sw.trees} {
		place := callerRoot
		if kind == 1 {
			place = worktree
		}
		hs := sw.hs[:0]
		for r := start; r < end; r++ {
			if place(r) != "" {
				hs = append(hs, headed{h: r})
			}
		}
		sortHeaded(hs, place)
		sw.hs = hs
		ix.ranks, ix.end = resize(ix.ranks, len(hs)), resize(ix.end, len(hs))
		ix.at, ix.all, ix.later = resize(ix.at, int(n)), resize(ix.all, int(n)), resize(ix.later, int(n))
		for i := range ix.at {
			ix.at[i], ix.all[i], ix.later[i] = -1, 0, 0
		}
		for p := range hs {
			ix.ranks[p] = hs[p].h
			ix.at[hs[p].h-start] = int32(p)
		}
		for x := 0; x < len(hs); {
			y := x + 1
			for y < len(hs) && hs[y].head == hs[x].head && place(hs[y].h) == place(hs[x].h) {
				y++
			}
			sw.places++
			class := ix.ranks[x:y]
			for _, r := range class {
				if v := &sw.views[r]; kind == 0 {
					v.rootID = sw.places
				} else {
					v.treeID = sw.places
				}
				cnt[sw.group[r]]++
			}
			for k := len(class) - 1; k >= 0; k-- {
				r := class[k]
				g := sw.group[r]
				ix.end[x+k] = int32(y)
				ix.all[r-start] = int32(len(class)) - cnt[g]
				ix.later[r-start] = int32(len(class)-1-k) - seen[g]
				seen[g]++
			}
			for _, r := range class {
				cnt[sw.group[r]], seen[sw.group[r]] = 0, 0
			}
			x = y
		}
	}

	// Both at once, within each caller_root class: by worktree number,
	// all of the class (ct) and those after a position (st); and, when
	// some team has two records in the class, by worktree and team too.
	sw.both, sw.runBoth = zeroed(sw.both, int(sw.places)+1), zeroed(sw.runBoth, int(sw.places)+1)
	sw.bothAll, sw.bothLater = resize(sw.bothAll, int(n)), resize(sw.bothLater, int(n))
	clear(sw.bothAll)
	clear(sw.bothLater)
	ct, st := sw.both, sw.runBoth
	rs := sw.roots.ranks
	tree := func(r int32) int32 { return sw.views[r].treeID }
	for x := 0; x < len(rs); {
		y := int(sw.roots.end[x])
		class := rs[x:y]
		shared := false // some team has two records here
		for _, r := range class {
			g := sw.group[r]
			cnt[g]++
			shared = shared || cnt[g] > 1
			if t := tree(r); t != 0 {
				ct[t]++
			}
		}
		if !shared {
			for k := len(class) - 1; k >= 0; k-- {
				if t := tree(class[k]); t != 0 {
					sw.bothAll[class[k]-start] = ct[t] - 1
					sw.bothLater[class[k]-start] = st[t]
					st[t]++
				}
			}
		} else {
			tg, sg := sw.treeTeam(), sw.treeTeamSeen()
			key := func(t, g int32) uint64 { return uint64(t)<<32 | uint64(uint32(g)) }
			for _, r := range class {
				if t := tree(r); t != 0 {
					tg[key(t, sw.group[r])]++
				}
			}
			for k := len(class) - 1; k >= 0; k-- {
				r := class[k]
				if t := tree(r); t != 0 {
					kk := key(t, sw.group[r])
					sw.bothAll[r-start] = ct[t] - tg[kk]
					sw.bothLater[r-start] = st[t] - sg[kk]
					st[t]++
					sg[kk]++
				}
			}
			clear(tg)
			clear(sg)
		}
		for _, r := range class {
			cnt[sw.group[r]] = 0
			ct[tree(r)], st[tree(r)] = 0, 0
		}
		x = y
	}
}

// treeTeam and treeTeamSeen are classify's counters by worktree and team,
// for the rare class where a team has several records.
func (sw *sweep) treeTeam() map[uint64]int32 {
	if sw.tg == nil {
		sw.tg = map[uint64]int32{}
	}
	return sw.tg
}

func (sw *sweep) treeTeamSeen() map[uint64]int32 {
	if sw.sg == nil {
		sw.sg = map[uint64]int32{}
	}
	return sw.sg
}

// zeroed returns s with length n, every element zero: the counters are
// left zero after each use, so only a new array needs clearing.
func zeroed(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/4)
	}
	return s[:n]
}

// near returns how many records of other teams share a caller_root or a
// worktree with rank a, and how many of those come after it.
func (sw *sweep) near(a, start int32) (all, later int32) {
	i := a - start
	all = sw.roots.all[i] + sw.trees.all[i] - sw.bothAll[i]
	later = sw.roots.later[i] + sw.trees.later[i] - sw.bothLater[i]
	return all, later
}

// count counts every colliding pair of the brain, ranks start to end, and
// each rank's partners, and lists the first pairs in order, up to the
// bound, in sw.pairs.
func (sw *sweep) count(start, end int32) {
	limit := sw.bound.Max
	listed := 0
	for a := start; a < end; a++ {
		all, later := sw.near(a, start)
		// The working-set partners after a: each such pair is found
		// from its first side only.
		after := sw.partnerBuf[:0]
		if all < (end-start)-sw.gsize[sw.group[a]] && sw.keyAt[a] < sw.keyAt[a+1] {
			after = sw.tree.partners(sw, a, after)
			sw.partnerBuf = after
		}
		sw.deg[a] += all + int32(len(after))
		for _, b := range after {
			sw.deg[b]++
		}
		sw.total += int(later) + len(after)
		if later+int32(len(after)) == 0 || (limit > 0 && listed >= limit) {
			continue
		}
		need := int(later) + len(after)
		if limit > 0 {
			need = min(need, limit-listed)
		}
		if len(after) > 1 {
			slices.Sort(after)
		}
		i := a - start
		g := sw.group[a]
		roots := sw.roots.laterOthers(sw, i, g, need, sw.rootBuf[:0])
		trees := sw.trees.laterOthers(sw, i, g, need, sw.treeBuf[:0])
		sw.rootBuf, sw.treeBuf = roots, trees
		var bs []int32
		switch {
		// One list alone is already in order and distinct.
		case len(roots) == 0 && len(trees) == 0:
			bs = after[:need]
		case len(trees) == 0 && len(after) == 0:
			bs = roots[:need]
		case len(roots) == 0 && len(after) == 0:
			bs = trees[:need]
		default:
			bs = sw.union(need, roots, trees, after)
		}
		for _, b := range bs {
			sw.pairs = append(sw.pairs, [2]int32{a, b})
		}
		listed += need
	}
}

// union returns the distinct ranks of the sorted lists, in order, at most
// need of them (all when need < 0). Only the first need of each list can
// be among them.
func (sw *sweep) union(need int, lists ...[]int32) []int32 {
	u := sw.merged[:0]
	for _, l := range lists {
		if need >= 0 && len(l) > need {
			l = l[:need]
		}
		u = append(u, l...)
	}
	slices.Sort(u)
	u = slices.Compact(u)
	if need >= 0 && len(u) > need {
		u = u[:need]
	}
	sw.merged = u
	return u
}

// wsTree is a brain's working-set entries sorted by key, so that a path's
// equals and descendants follow it contiguously, with each group of equal
// keys linked to the group of its nearest ancestor. The entries that
// overlap one entry are then its group and descendants, one range, and
// the groups on its chain of ancestors: no search, and nothing else
// visited.
type wsTree struct {
	ent   []headed // by position: entry (h) and its rank (owner)
	pos   []int32  // by entry - e0: its position
	grp   []int32  // by position: the first position of its group (equal keys)
	gend  []int32  // by group start: one past its group
	sub   []int32  // by group start: one past its descendants
	par   []int32  // by group start: the start of its nearest ancestor's group, -1 at the top
	e0    int32    // the brain's first entry
	nul   bool     // some path holds a zero byte: a key may cover where the path does not (set by resolve)
	stack []int32
}

// build sorts the entries of ranks start to end and links their groups.
func (t *wsTree) build(sw *sweep, start, end int32) {
	e0, e1 := sw.keyAt[start], sw.keyAt[end]
	key := func(k int32) string { return sw.keys[k] }
	hs := sw.hs[:0]
	for r := start; r < end; r++ {
		for k := sw.keyAt[r]; k < sw.keyAt[r+1]; k++ {
			hs = append(hs, headed{h: k, owner: r})
		}
	}
	sortHeaded(hs, key)
	sw.hs = hs
	n := len(hs)
	t.ent, t.e0 = hs, e0
	t.pos = resize(t.pos, int(e1-e0))
	t.grp, t.gend, t.sub, t.par = resize(t.grp, n), resize(t.gend, n), resize(t.sub, n), resize(t.par, n)
	stack, prev := t.stack[:0], int32(-1)
	for i := int32(0); i < int32(n); i++ {
		t.pos[hs[i].h-e0] = i
		if i > 0 && hs[i].head == hs[i-1].head && key(hs[i].h) == key(hs[i-1].h) {
			t.grp[i] = t.grp[i-1]
			continue
		}
		t.grp[i] = i
		if prev >= 0 {
			t.gend[prev] = i
		}
		prev = i
		for len(stack) > 0 && !keyCovers(key(hs[stack[len(stack)-1]].h), key(hs[i].h)) {
			t.sub[stack[len(stack)-1]] = i
			stack = stack[:len(stack)-1]
		}
		t.par[i] = -1
		if len(stack) > 0 {
			t.par[i] = stack[len(stack)-1]
		}
		stack = append(stack, i)
	}
	if prev >= 0 {
		t.gend[prev] = int32(n)
	}
	for _, g := range stack {
		t.sub[g] = int32(n)
	}
	t.stack = stack[:0]
}

// partners appends to out, once each, the ranks after a, of other teams,
// whose working sets overlap rank a's and that share neither its
// caller_root nor its worktree (those are counted by class).
func (t *wsTree) partners(sw *sweep, a int32, out []int32) []int32 {
	for k := sw.keyAt[a]; k < sw.keyAt[a+1]; k++ {
		g := t.grp[t.pos[k-t.e0]]
		out = t.walk(sw, a, g, t.sub[g], out)
		for q := t.par[g]; q >= 0; q = t.par[q] {
			out = t.walk(sw, a, q, t.gend[q], out)
		}
	}
	return out
}

// walk takes the entries at positions from to to, all overlapping an entry
// of rank a (by key).
func (t *wsTree) walk(sw *sweep, a, from, to int32, out []int32) []int32 {
	stamp := a + 1
	va := &sw.views[a]
	for i := from; i < to; i++ {
		e := &t.ent[i]
		b := e.owner
		if b <= a || sw.mark[b] == stamp || sw.group[b] == sw.group[a] {
			continue
		}
		sw.mark[b] = stamp
		vb := &sw.views[b]
		// A key may cover where the path does not when a path holds a
		// zero byte: then the two working sets themselves decide, once
		// for the pair.
		if t.nul && !anyOverlap(va.ws, vb.ws) {
			continue
		}
		if (va.rootID != 0 && va.rootID == vb.rootID) || (va.treeID != 0 && va.treeID == vb.treeID) {
			continue
		}
		out = append(out, b)
	}
	return out
}

// anyOverlap reports whether some path of a overlaps some path of b (both
// cleaned): the plain reading, for the rare brain whose keys are
// ambiguous.
func anyOverlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if _, ok := overlapCleaned(x, y); ok {
				return true
			}
		}
	}
	return false
}
