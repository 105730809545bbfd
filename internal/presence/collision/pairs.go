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
// Bound.Max pairs in Within's order cost their own number plus the partners
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

// class fills the index with the ranks start to end (one brain) that have
// a place of its kind (with worktree, a worktree; else a caller_root), by
// place number, then rank: a counting sort on the numbers sw.number gave.
func (ix *placeIndex) class(sw *sweep, worktree bool, start, end int32) {
	n := end - start
	place := func(r int32) int32 {
		if worktree {
			return sw.views[r].treeID
		}
		return sw.views[r].rootID
	}
	// By place number: first how many have it, then where its run starts
	// (and, once filled, ends).
	at := zeroed(sw.classAt, int(sw.places)+1)
	for r := start; r < end; r++ {
		at[place(r)]++
	}
	has := n - at[0]
	sum := int32(0)
	for id := 1; id < len(at); id++ {
		at[id], sum = sum, sum+at[id]
	}
	ix.ranks, ix.end = resize(ix.ranks, int(has)), resize(ix.end, int(has))
	ix.at = resize(ix.at, int(n))
	for r := start; r < end; r++ {
		id := place(r)
		if id == 0 {
			ix.at[r-start] = -1
			continue
		}
		ix.ranks[at[id]], ix.at[r-start] = r, at[id]
		at[id]++
	}
	for x := int32(0); x < has; {
		y := at[place(ix.ranks[x])] // one past its run, now
		for p := x; p < y; p++ {
			ix.end[p] = y
		}
		x = y
	}
	clear(at)
	sw.classAt = at
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

// classify numbers the brain's distinct caller_roots and worktrees (so
// that a pair compares two numbers rather than two paths), classes its
// ranks by them, and counts for each rank the records of other teams that
// share its caller_root, its worktree, and both (sw.bothAll,
// sw.bothLater): class by class, with counters by team and by worktree
// number, no pair.
func (sw *sweep) classify(start, end int32) {
	n := end - start
	sw.number(start, end)
	groups := len(sw.gsize)
	sw.gcnt, sw.gseen = zeroed(sw.gcnt, groups), zeroed(sw.gseen, groups)
	cnt, seen := sw.gcnt, sw.gseen
	for kind, ix := range []*placeIndex{&sw.roots, &sw.trees} {
		ix.class(sw, kind == 1, start, end)
		ix.all, ix.later = resize(ix.all, int(n)), resize(ix.later, int(n))
		clear(ix.all)
		clear(ix.later)
		for x := int32(0); x < int32(len(ix.ranks)); {
			y := ix.end[x]
			class := ix.ranks[x:y]
			for _, r := range class {
				cnt[sw.group[r]]++
			}
			for k := len(class) - 1; k >= 0; k-- {
				r := class[k]
				g := sw.group[r]
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

// number numbers the distinct caller_roots and worktrees of the ranks
// start to end (one brain) from 1, one number a path whichever kind of
// place it is, in the views' rootID and treeID (0 when unset), and their
// count in sw.places. A map finds them, not a sort: only equal paths
// matter here, not their order.
func (sw *sweep) number(start, end int32) {
	ids := sw.placeIDs
	clear(ids)
	n := int32(0)
	id := func(p string) int32 {
		k, ok := ids[p]
		if !ok {
			n++
			k = n
			ids[p] = k
		}
		return k
	}
	for r := start; r < end; r++ {
		v := &sw.views[r]
		v.rootID, v.treeID = 0, 0
		if v.callerRoot != "" {
			v.rootID = id(v.callerRoot)
		}
		switch {
		case v.worktree == "":
		case v.worktree == v.callerRoot: // often: the agent works at the top of its checkout
			v.treeID = v.rootID
		default:
			v.treeID = id(v.worktree)
		}
	}
	sw.places = n
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
		if all < (end-start)-sw.gsize[sw.group[a]] && sw.wsAt[a] < sw.wsAt[a+1] {
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

// wsTree is a brain's working-set entries sorted as comparePaths orders
// them, so that a path's equals and descendants follow it contiguously,
// with each group of equal paths linked to the group of its nearest
// ancestor. The entries that overlap one entry are then its group and
// descendants, one range, and the groups on its chain of ancestors: no
// search, and nothing else visited.
type wsTree struct {
	ent   []headed // by position: entry (h) and its rank (owner)
	pos   []int32  // by entry - e0: its position
	grp   []int32  // by position: the first position of its group (equal paths)
	gend  []int32  // by group start: one past its group
	sub   []int32  // by group start: one past its descendants
	par   []int32  // by group start: the start of its nearest ancestor's group, -1 at the top
	e0    int32    // the brain's first entry
	stack []int32
}

// build sorts the entries of ranks start to end and links their groups.
func (t *wsTree) build(sw *sweep, start, end int32) {
	e0, e1 := sw.wsAt[start], sw.wsAt[end]
	ws := sw.ws
	hs := sw.hs[:0]
	for r := start; r < end; r++ {
		for k := sw.wsAt[r]; k < sw.wsAt[r+1]; k++ {
			hs = append(hs, headed{h: k, owner: r})
		}
	}
	sortHeaded(hs, handleStrings{strs: ws}, true)
	sw.hs = hs
	n := len(hs)
	t.ent, t.e0 = hs, e0
	t.pos = resize(t.pos, int(e1-e0))
	t.grp, t.gend, t.sub, t.par = resize(t.grp, n), resize(t.gend, n), resize(t.sub, n), resize(t.par, n)
	stack, prev := t.stack[:0], int32(-1)
	for i := int32(0); i < int32(n); i++ {
		t.pos[hs[i].h-e0] = i
		if i > 0 && hs[i].head == hs[i-1].head && ws[hs[i].h] == ws[hs[i-1].h] {
			t.grp[i] = t.grp[i-1]
			continue
		}
		t.grp[i] = i
		if prev >= 0 {
			t.gend[prev] = i
		}
		prev = i
		for len(stack) > 0 && !covers(ws[hs[stack[len(stack)-1]].h], ws[hs[i].h]) {
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
// whose working sets overlap rank a's (by path, or by an entry as
// written: see exactIndex) and that share neither its caller_root nor
// its worktree (those are counted by class).
func (t *wsTree) partners(sw *sweep, a int32, out []int32) []int32 {
	for k := sw.wsAt[a]; k < sw.wsAt[a+1]; k++ {
		g := t.grp[t.pos[k-t.e0]]
		out = t.walk(sw, a, g, t.sub[g], out)
		for q := t.par[g]; q >= 0; q = t.par[q] {
			out = t.walk(sw, a, q, t.gend[q], out)
		}
	}
	if x := &sw.same; x.on {
		for k := sw.exactAt[a]; k < sw.exactAt[a+1]; k++ {
			g := x.grp[x.pos[k-x.e0]]
			out = x.walk(sw, a, g, x.gend[g], out)
		}
	}
	return out
}

// exactIndex is a brain's relative working-set entries as written, sorted,
// so that the entries equal to one are one run: m1nd's exact rule, which
// meets two records whose paths, resolved against different bases, do
// not. It is built only when two records with such entries have
// different bases (on one base, equal entries resolve equal: the tree
// finds them).
type exactIndex struct {
	on   bool
	e0   int32    // the brain's first entry
	ent  []headed // by position: entry (h, into sw.exact) and its rank (owner)
	pos  []int32  // by entry - e0: its position
	grp  []int32  // by position: the first position of its run
	gend []int32  // by run start: one past its run
}

func (x *exactIndex) build(sw *sweep, start, end int32) {
	x.on, x.e0 = false, sw.exactAt[start]
	if sw.exactAt[end]-x.e0 < 2 {
		return
	}
	base, some := "", false
	for r := start; r < end && !x.on; r++ {
		if v := &sw.views[r]; len(v.exact) > 0 {
			x.on = some && v.base != base
			base, some = v.base, true
		}
	}
	if !x.on {
		return
	}
	hs := x.ent[:0]
	for r := start; r < end; r++ {
		for k := sw.exactAt[r]; k < sw.exactAt[r+1]; k++ {
			hs = append(hs, headed{h: k, owner: r})
		}
	}
	sortHeaded(hs, handleStrings{strs: sw.exact}, false)
	x.ent = hs
	n := len(hs)
	x.pos, x.grp, x.gend = resize(x.pos, n), resize(x.grp, n), resize(x.gend, n)
	prev := int32(-1)
	for i := int32(0); i < int32(n); i++ {
		x.pos[hs[i].h-x.e0] = i
		if i > 0 && sw.exact[hs[i].h] == sw.exact[hs[i-1].h] {
			x.grp[i] = x.grp[i-1]
			continue
		}
		x.grp[i] = i
		if prev >= 0 {
			x.gend[prev] = i
		}
		prev = i
	}
	if prev >= 0 {
		x.gend[prev] = int32(n)
	}
}

// walk takes the entries at positions from to to, all equal to an entry
// of rank a, as wsTree.walk does.
func (x *exactIndex) walk(sw *sweep, a, from, to int32, out []int32) []int32 {
	return walkOwners(sw, x.ent, a, from, to, out)
}

// walk takes the entries at positions from to to, all overlapping an entry
// of rank a.
func (t *wsTree) walk(sw *sweep, a, from, to int32, out []int32) []int32 {
	return walkOwners(sw, t.ent, a, from, to, out)
}

// walkOwners appends to out the ranks owning ent[from:to] that pair with
// rank a: later than a, each once, of another group, sharing neither a
// caller root nor a worktree with it (those pairs are found by place).
func walkOwners(sw *sweep, ent []headed, a, from, to int32, out []int32) []int32 {
	stamp := a + 1
	va := &sw.views[a]
	for i := from; i < to; i++ {
		b := ent[i].owner
		if b <= a || sw.mark[b] == stamp || sw.group[b] == sw.group[a] {
			continue
		}
		sw.mark[b] = stamp
		vb := &sw.views[b]
		if (va.rootID != 0 && va.rootID == vb.rootID) || (va.treeID != 0 && va.treeID == vb.treeID) {
			continue
		}
		out = append(out, b)
	}
	return out
}
