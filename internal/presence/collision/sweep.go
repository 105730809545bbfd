package collision

import (
	"cmp"
	"math/bits"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// sweep finds the colliding pairs of a roster without comparing every
// pair, and without holding them all: brain by brain, it numbers the
// caller_roots and worktrees and sorts the working-set paths (see classify
// and wsTree), counts the pairs that share a caller_root or a worktree
// from the sizes of those classes, walks the working-set tree for the
// pairs that overlap there only, and lists the first pairs in Within's order up to the bound (see
// pairs.go). Its cost grows with the records, their entries and the
// working-set overlaps it walks; a class of records sharing one place
// costs its size, not its pairs, and no work ever spans two brains.
//
// A record is known by its rank: its place in the order brain, then
// id, then index in the roster. A pair (a, b) with a < b then has A's
// side first, and pairs ordered by rank are in the output's order.
//
// Allocation is most of the cost of a sweep left to itself (the GC runs
// all along), so a sweep's arrays are pooled and reused: nothing a
// Collision holds is among them. What is sorted is int32 handles, never
// strings, so no sort moves a pointer under a running GC.
type sweep struct {
	buckets [][]header // by brain id: the headers of its records in scope, in roster order (see scope)
	headers []header   // the bucket of the brain at hand
	recs    []int32    // by rank: index into the roster
	slot    []int32    // by rank: index into its brain's bucket
	brain   []int32    // by rank: the brain's place among the sorted brains
	first   []int32    // by rank: the first rank with the same presence_id
	group   []int32    // by rank: its team in the brain, numbered from 0 (records of one presence share one)
	gsize   []int32    // by group: how many ranks of the brain are in it
	views   []view     // by rank
	ws      []string   // the resolved working sets of every rank, in rank order
	wsAt    []int32    // by rank: where its ws start; wsAt[n] = len(ws)
	exact   []string   // the relative entries as written of every rank, in rank order (see exactEntries)
	exactAt []int32    // by rank: where its exact entries start; exactAt[n] = len(exact)
	ends    []int32    // by brain place: one past its last rank
	loose   []bool     // by brain place: some id is a proper prefix of another
	places  int32      // the distinct caller_roots and worktrees of the brain at hand (see number)
	pairs   [][2]int32 // the pairs listed, in output order
	bound   Bound
	total   int     // the colliding pairs counted, listed or not
	deg     []int32 // by rank: the pairs it is a side of

	// The brain at hand: its places and its working-set tree.
	roots, trees placeIndex
	tree         wsTree
	same         exactIndex // the brain's exact entries, when two bases differ
	mark         []int32    // by rank: the last rank (plus one) whose walk reached it
	bothAll      []int32    // by rank - start: records of other teams sharing both its places
	bothLater    []int32    // by rank - start: as bothAll, after it
	both         []int32    // by place number: classify's counters, zero between uses
	runBoth      []int32    // by place number: as both, those seen so far
	gcnt, gseen  []int32    // by group: classify's counters, zero between uses
	tg, sg       map[uint64]int32
	placeIDs     map[string]int32 // by place: its number in the brain at hand
	classAt      []int32          // by place number: class's scratch, zero between uses

	paths arena // where the joined entries of ws are cut from

	// Scratch.
	brainIDs           map[string]int32
	brainNames         []string
	order              []int32
	hs                 []headed
	partnerBuf, merged []int32
	rootBuf, treeBuf   []int32
	teamIDs            map[string]int32
	agentIDs           map[string]int32 // by agent_id: a group of the brain at hand (see teams)
	hand               []int32          // by group: union-find over groups, for teams
	overlapOpen        [2][]string      // overlapSorted's stacks
}

var sweeps = sync.Pool{New: func() any {
	return &sweep{brainIDs: map[string]int32{}, teamIDs: map[string]int32{}, agentIDs: map[string]int32{}, placeIDs: map[string]int32{}}
}}

// resize returns s with length n, reusing its array when it is big enough.
// The elements are stale: the caller writes every one.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// release drops what the sweep holds of the caller's roster and returns it
// to the pool.
func (sw *sweep) release() {
	for i, b := range sw.buckets {
		clear(b)
		sw.buckets[i] = b[:0]
	}
	sw.buckets, sw.headers = sw.buckets[:0], nil
	clear(sw.views)
	clear(sw.ws)
	clear(sw.brainNames)
	clear(sw.brainIDs)
	clear(sw.teamIDs)
	clear(sw.agentIDs)
	clear(sw.placeIDs)
	clear(sw.exact)
	clear(sw.overlapOpen[0][:cap(sw.overlapOpen[0])])
	clear(sw.overlapOpen[1][:cap(sw.overlapOpen[1])])
	sw.paths = arena{}
	sweeps.Put(sw)
}

// header is what the sweep reads of a record.
type header struct {
	id, callerRoot, worktree, base, team, agent string
	ws                                          []string
	touched                                     []Touch
	live                                        int32 // the record's index in the roster
}

// id returns the presence_id of rank r, of the brain at hand.
func (sw *sweep) id(r int32) string { return sw.headers[sw.slot[r]].id }

// brainName returns the brain of rank r.
func (sw *sweep) brainName(r int32) string { return sw.brainNames[sw.order[sw.brain[r]]] }

// run counts the colliding pairs of the mutating records in scope and
// lists, in output order, those the bound keeps, in sw.pairs. One pass
// over the roster finds the records in scope and groups them by brain;
// then each brain is taken whole: its records sorted by id, resolved,
// their places classed, their working sets swept and their pairs counted
// and listed, while they are still in cache. (A roster of thousands does
// not fit; walking it once a step made the cost grow faster than the
// roster.)
func (sw *sweep) run(brain string, n int, party func(i int) Party, b Bound) {
	sw.scope(brain, n, party)
	sw.pairs, sw.bound, sw.total = sw.pairs[:0], b, 0
	m := len(sw.recs)
	sw.first, sw.group = resize(sw.first, m), resize(sw.group, m)
	sw.views, sw.wsAt = resize(sw.views, m), resize(sw.wsAt, m+1)
	sw.exactAt = resize(sw.exactAt, m+1)
	clear(sw.exact)
	sw.exact, sw.exactAt[0] = sw.exact[:0], 0
	sw.deg, sw.mark = resize(sw.deg, m), resize(sw.mark, m)
	clear(sw.deg)
	clear(sw.mark)
	sw.wsAt[0] = 0
	start := int32(0)
	for p, end := range sw.ends {
		if end-start == 1 {
			// One record alone in scope on its brain: no pair, nothing
			// to sort, resolve or class.
			sw.recs[start] = sw.buckets[sw.order[p]][0].live
			sw.wsAt[end] = sw.wsAt[start]
			sw.exactAt[end] = sw.exactAt[start]
			start = end
			continue
		}
		sw.rank(int32(p), start, end)
		sw.resolve(start, end)
		sw.classify(start, end)
		sw.tree.build(sw, start, end)
		sw.same.build(sw, start, end)
		from := len(sw.pairs)
		sw.count(start, end)
		if sw.loose[p] {
			sw.reorderLoose(sw.pairs[from:])
		}
		start = end
	}
}

// scope finds the mutating parties on brain ("" for all) and orders them
// by brain: their headers go to their brain's bucket as they are read, in
// roster order, so that the passes over one brain read them side by side,
// not one in every few dozen of a roster too large for the cache, and
// they are copied once. sw.ends then gives each brain's ranks.
func (sw *sweep) scope(brain string, size int, party func(i int) Party) {
	sw.brainNames = sw.brainNames[:0]
	last, lastID, n, entries := "", int32(-1), 0, 0
	for i := 0; i < size; i++ {
		r := party(i)
		if (brain != "" && r.Brain != brain) || !r.Mutating {
			continue
		}
		if r.Brain != last || lastID < 0 {
			id, ok := sw.brainIDs[r.Brain]
			if !ok {
				id = int32(len(sw.brainNames))
				sw.brainIDs[r.Brain] = id
				sw.brainNames = append(sw.brainNames, r.Brain)
				if len(sw.buckets) < cap(sw.buckets) {
					sw.buckets = sw.buckets[:id+1] // an empty bucket, kept from an earlier sweep
				} else {
					sw.buckets = append(sw.buckets, nil)
				}
			}
			last, lastID = r.Brain, id
		}
		sw.buckets[lastID] = append(sw.buckets[lastID], header{r.ID, r.CallerRoot, r.Worktree, r.Base, r.Team, r.Agent, r.WorkingSet, r.Touched, int32(i)})
		n++
		entries += len(r.WorkingSet) + len(r.Touched)
	}
	sw.ws = slices.Grow(sw.ws[:0], entries)
	nb := len(sw.brainNames)
	sw.recs, sw.ends = sw.recs[:0], sw.ends[:0]
	if n == 0 {
		return
	}

	// Brains in order, each its bucket's ranks.
	sw.order = resize(sw.order, nb)
	for k := range sw.order {
		sw.order[k] = int32(k)
	}
	slices.SortFunc(sw.order, func(x, y int32) int { return strings.Compare(sw.brainNames[x], sw.brainNames[y]) })
	sw.recs, sw.brain = resize(sw.recs, n), resize(sw.brain, n)
	sw.slot, sw.ends = resize(sw.slot, n), resize(sw.ends, nb)
	end := int32(0)
	for p, id := range sw.order {
		start := end
		end += int32(len(sw.buckets[id]))
		sw.ends[p] = end
		for r := start; r < end; r++ {
			sw.brain[r] = int32(p)
		}
	}
	sw.loose = resize(sw.loose, nb)
	clear(sw.loose)
}

// rank sorts the records of brain p, ranks start to end, by id and
// position: a rank's place in that order. Two records of one presence
// share their first rank.
func (sw *sweep) rank(p, start, end int32) {
	sw.headers = sw.buckets[sw.order[p]]
	hs := sw.hs[:0]
	for s := range int32(len(sw.headers)) {
		hs = append(hs, headed{h: s})
	}
	// Ties on id go by h, the slot in the bucket, which is in roster order.
	sortHeaded(hs, handleStrings{headers: sw.headers}, false)
	for k, x := range hs {
		sw.slot[start+int32(k)], sw.recs[start+int32(k)] = x.h, sw.headers[x.h].live
	}
	sw.hs = hs
	for r := start; r < end; r++ {
		sw.first[r] = r
		if r == start {
			continue
		}
		if id, prev := sw.id(r), sw.id(r-1); id == prev {
			sw.first[r] = sw.first[r-1]
		} else if strings.HasPrefix(id, prev) {
			// Sorted, a proper prefix is followed by a longer id
			// starting with it: checking neighbours finds every one.
			sw.loose[p] = true
		}
	}
	sw.teams(start, end)
}

// teams numbers the groups of ranks start to end (one brain) whose pairs
// never collide: the records of one presence, and a session with its
// subagents (a party's Team). Most records are a session of their own,
// with no subagent in the brain: they take a number each without a look
// in a map; only teams that some subagent names are looked up.
func (sw *sweep) teams(start, end int32) {
	teams := sw.teamIDs
	clear(teams)
	for r := start; r < end; r++ {
		if h := &sw.headers[sw.slot[r]]; h.team != "" && h.team != h.id {
			teams[h.team] = -1 // a team some subagent names
		}
	}
	var n int32
	for r := start; r < end; r++ {
		if f := sw.first[r]; f != r {
			sw.group[r] = sw.group[f] // one presence, one team (its first record's)
			continue
		}
		h := &sw.headers[sw.slot[r]]
		if len(teams) > 0 && h.team != "" {
			if g, ok := teams[h.team]; ok {
				if g < 0 {
					g, n = n, n+1
					teams[h.team] = g
				}
				sw.group[r] = g
				continue
			}
		}
		sw.group[r], n = n, n+1
	}
	n = sw.handsByAgent(start, end, n)
	sw.gsize = resize(sw.gsize, int(n))
	clear(sw.gsize)
	for r := start; r < end; r++ {
		sw.gsize[sw.group[r]]++
	}
}

// handsByAgent joins the n groups of ranks start to end whose records
// share an agent_id, one through another (union-find), and returns how
// many groups are left, renumbered from 0: one agent under two ids is one
// hand, with the teams of both. One map look-up a presence; when no agent
// has two, the groups stay as they are.
func (sw *sweep) handsByAgent(start, end, n int32) int32 {
	agents := sw.agentIDs
	clear(agents)
	hand := resize(sw.hand, int(n))
	for g := range hand {
		hand[g] = int32(g)
	}
	find := func(g int32) int32 {
		for hand[g] != g {
			hand[g] = hand[hand[g]]
			g = hand[g]
		}
		return g
	}
	joined := false
	for r := start; r < end; r++ {
		if sw.first[r] != r {
			continue // one presence: one group already
		}
		agent := sw.headers[sw.slot[r]].agent
		if agent == "" {
			continue
		}
		g, ok := agents[agent]
		if !ok {
			agents[agent] = sw.group[r]
			continue
		}
		if a, b := find(g), find(sw.group[r]); a != b {
			hand[max(a, b)] = min(a, b)
			joined = true
		}
	}
	sw.hand = hand
	if !joined {
		return n
	}
	// Renumber: each root its number in order, then every group its root's.
	num := sw.gcnt[:0] // scratch, zeroed again below
	num = zeroed(num, int(n))
	m := int32(0)
	for g := range n {
		if find(g) == g {
			num[g] = m
			m++
		}
	}
	for r := start; r < end; r++ {
		sw.group[r] = num[find(sw.group[r])]
	}
	clear(num)
	sw.gcnt = num
	return m
}

// resolve computes the view of ranks start to end: its places cleaned and
// its working set resolved, the declared entries first, then the touched
// files. A resolved entry is what ResolveWorkingSet returns: for the Unix
// paths the Hall deals in, filepath.Join of base and entry is
// Clean(base + separator + entry). TestCollisionsInEqualsBruteForce holds
// the two to the same answers.
func (sw *sweep) resolve(start, end int32) {
	size := 0
	for k := start; k < end; k++ {
		h := &sw.headers[sw.slot[k]]
		for _, e := range h.ws {
			size += len(h.base) + 1 + len(e)
		}
	}
	// The entries after these, at a guess of 40 bytes each.
	sw.paths.reserve(size, 40*(cap(sw.ws)-len(sw.ws)-(size+39)/40))
	for k := start; k < end; k++ {
		h, v := &sw.headers[sw.slot[k]], &sw.views[k]
		v.callerRoot = placeOf(h.callerRoot)
		if h.worktree == h.callerRoot { // often: the agent works at the top of its checkout
			v.worktree = v.callerRoot
		} else {
			v.worktree = placeOf(h.worktree)
		}
		v.rootID, v.treeID, v.team, v.agent = 0, 0, h.team, h.agent
		v.base, v.exact = "", nil
		// view.declared tells the declared entries from the touched
		// files, for the clauses.
		if len(h.ws) > 0 {
			base := joinBase{base: h.base}
			switch {
			case h.base == "" || h.base[0] == '.' || h.base == string(filepath.Separator):
			case h.base == h.worktree: // as it mostly is: cleaned above already
				base.clean = v.worktree == h.worktree
			case h.base == h.callerRoot:
				base.clean = v.callerRoot == h.callerRoot
			default:
				base.clean = isClean(h.base)
			}
			for _, e := range h.ws {
				if e != "" {
					sw.ws = append(sw.ws, sw.resolved(base, e))
				}
			}
			v.base = sw.cleanBase(h, v, base)
			for _, e := range h.ws {
				if e != "" && !filepath.IsAbs(e) {
					sw.exact = append(sw.exact, e)
				}
			}
		}
		sw.exactAt[k+1] = int32(len(sw.exact))
		v.declared = len(sw.ws) - int(sw.wsAt[k])
		for _, t := range h.touched {
			if t.Path != "" {
				sw.ws = append(sw.ws, cleanPath(t.Path))
			}
		}
		sw.wsAt[k+1] = int32(len(sw.ws))
		v.ws = sw.ws[sw.wsAt[k]:sw.wsAt[k+1]:sw.wsAt[k+1]] // scope sized ws: it never moves
		if len(v.ws) > smallPart {
			// A large part in path order, for the pairs' linear overlap
			// (overlapSorted). The tree sorts the brain's entries apart,
			// by index.
			sortParts(v.ws, v.declared)
		}
	}
	for k := start; k < end; k++ {
		// Cut once the brain's are all in: an append may have moved them.
		from, to := sw.exactAt[k], sw.exactAt[k+1]
		if v := &sw.views[k]; to > from {
			v.exact = sw.exact[from:to:to]
			if len(v.exact) > smallPart {
				slices.Sort(v.exact)
			}
		}
	}
}

// cleanBase is the record's base cleaned, as a view compares it: mostly
// its worktree's or caller_root's, cleaned already.
func (sw *sweep) cleanBase(h *header, v *view, b joinBase) string {
	switch {
	case b.clean:
		return h.base
	case h.base == h.worktree && h.base != "" && h.base[0] == filepath.Separator:
		return v.worktree
	case h.base == h.callerRoot && h.base != "" && h.base[0] == filepath.Separator:
		return v.callerRoot
	}
	return cleanOrEmpty(h.base)
}

// joinBase is what a record's relative entries resolve against: its base,
// and whether Clean leaves the base as it is, the base being neither the
// root nor one that begins with a dot. Then Clean leaves a relative entry
// joined to it as it is when the entry passes isClean: every element of
// the two is a name (no "", ".", ".."), the base ends in no separator,
// and the entry begins with neither a separator nor a dot.
type joinBase struct {
	base  string
	clean bool
}

// resolved returns the working-set entry e made absolute against the
// record's base (when set and e relative) and cleaned. A joined path is
// cut from the arena, not allocated; an entry already absolute and clean
// is e itself.
func (sw *sweep) resolved(b joinBase, e string) string {
	if b.base == "" || filepath.IsAbs(e) {
		return cleanPath(e)
	}
	sw.paths.begin()
	sw.paths.b.WriteString(b.base)
	sw.paths.b.WriteByte(filepath.Separator)
	sw.paths.b.WriteString(e)
	p := sw.paths.cut()
	if b.clean && isClean(e) {
		return p
	}
	return cleanPath(p)
}

// arena cuts strings from large shared buffers: one allocation for many
// strings. A Builder only appends, so a string its String returned stays
// valid whatever is written after it.
type arena struct {
	b    strings.Builder
	from int
}

// reserve makes room for n more bytes, in a new buffer when the current
// one lacks it (what was cut from the old one stays valid). A new buffer
// also makes room for about hint bytes more, up to 64 KiB: a few buffers
// for a large roster, one small one for a small roster.
func (a *arena) reserve(n, hint int) {
	if a.b.Cap()-a.b.Len() < n {
		a.b = strings.Builder{}
		a.b.Grow(n + min(hint, 64<<10))
	}
}

// begin marks the start of the next string; cut returns what was written
// since.
func (a *arena) begin()      { a.from = a.b.Len() }
func (a *arena) cut() string { return a.b.String()[a.from:] }

// headed is a sort handle: h names a string, head holds the eight bytes of
// it that follow the prefix every string in the sort shares (zero-padded;
// for paths, mapped: see pathHead8), and owner is the rank a working-set
// entry belongs to. A brain's paths share a long prefix
// ("/home/dev/brain-07-wt…"): comparing heads settles most comparisons
// with one integer compare instead of a walk through it.
type headed struct {
	head     uint64
	h, owner int32
}

// handleStrings is what a sort's handles stand for: strs[h], or else the
// id of headers[h] (a brain's bucket). It is a switch rather than a function value, so that
// the sort's many reads of the strings are inlined, not calls.
type handleStrings struct {
	strs    []string
	headers []header
}

// at returns the string handle h stands for.
func (s *handleStrings) at(h int32) string {
	if s.strs != nil {
		return s.strs[h]
	}
	return s.headers[h].id
}

// sortHeaded sorts hs by the strings their handles stand for, then by
// handle. With paths, the strings are cleaned paths, ordered as
// comparePaths orders them (the separator lowest, so that a path's
// descendants follow it contiguously).
func sortHeaded(hs []headed, str handleStrings, paths bool) {
	if len(hs) < 2 {
		return
	}
	first := str.at(hs[0].h)
	lcp := len(first)
	for _, x := range hs[1:] {
		s := str.at(x.h)
		if len(s) >= lcp && s[:lcp] == first[:lcp] {
			continue // as most do: one comparison of the whole prefix
		}
		n := min(lcp, len(s))
		i := 0
		for i < n && s[i] == first[i] {
			i++
		}
		lcp = i
	}
	if paths {
		for k := range hs {
			hs[k].head = pathHead8(str.at(hs[k].h)[lcp:])
		}
	} else {
		for k := range hs {
			hs[k].head = head8(str.at(hs[k].h)[lcp:])
		}
	}
	hsort := headSorter{str: str, lcp: lcp, paths: paths}
	hsort.quick(hs, 2*bits.Len(uint(len(hs))))
}

// head8 returns the first eight bytes of s as a big-endian number, zero
// bytes past its end: heads compare as the strings do, up to ties.
func head8(s string) uint64 {
	if len(s) >= 8 {
		return bits.ReverseBytes64(load64(s, 0)) // one load, one swap
	}
	return shortHead8(s)
}

// shortHead8 is head8 for s shorter than eight bytes.
func shortHead8(s string) uint64 {
	var head uint64
	for i := 0; i < 8; i++ {
		head <<= 8
		if i < len(s) {
			head |= uint64(s[i])
		}
	}
	return head
}

// pathHead8 is head8 for comparePaths' order: each byte mapped so that
// numbers compare as the paths do, up to ties. The separator becomes 0 and
// each byte below it one more (up to the separator's own value, left
// free), so the mapping is one to one and keeps the order; the zero
// padding past the end ties with a separator, which only leaves the tie
// to comparePaths.
func pathHead8(s string) uint64 {
	if len(s) >= 8 { // eight bytes mapped at once
		w := head8(s)
		const high = 0x80 * ones
		below := ^((w | high) - separator*ones) & ^w & high // 0x80 in each byte below the separator
		return (w + below>>7) &^ ((zeroBytes(w^(separator*ones)) >> 7) * 0xff)
	}
	var head uint64
	for i := 0; i < 8; i++ {
		head <<= 8
		if i < len(s) {
			switch c := s[i]; {
			case c == separator:
			case c < separator:
				head |= uint64(c + 1)
			default:
				head |= uint64(c)
			}
		}
	}
	return head
}

// headSorter orders headed handles: heads in big-endian order compare as
// the strings do, up to ties, so only equal heads compare the strings
// (strings.Compare, or comparePaths for paths). It is a quicksort written
// out for the one type, so that the comparison of heads is inlined rather
// than a call through a function value, which was most of the sweep's
// sorting time.
type headSorter struct {
	str   handleStrings
	lcp   int
	paths bool
}

func (s *headSorter) less(x, y *headed) bool {
	if x.head != y.head {
		return x.head < y.head
	}
	return s.tie(x, y) < 0
}

func (s *headSorter) tie(x, y *headed) int {
	a, b := s.str.at(x.h)[s.lcp:], s.str.at(y.h)[s.lcp:]
	var c int
	if s.paths {
		c = comparePaths(a, b)
	} else {
		c = strings.Compare(a, b)
	}
	if c != 0 {
		return c
	}
	return cmp.Compare(x.h, y.h)
}

func (s *headSorter) compare(x, y headed) int {
	if x.head != y.head {
		return cmp.Compare(x.head, y.head)
	}
	return s.tie(&x, &y)
}

// quick sorts hs: Hoare partitions around a median of three, insertion
// sort below 16 elements, and pdqsort past depth partitions, so the cost
// stays n·log n whatever the input. No two handles are equal (ties go by
// h), so every partition leaves both sides non-empty.
func (s *headSorter) quick(hs []headed, depth int) {
	for len(hs) > 16 {
		if depth == 0 {
			slices.SortFunc(hs, s.compare)
			return
		}
		depth--
		m, l := len(hs)/2, len(hs)-1
		if s.less(&hs[m], &hs[0]) {
			hs[m], hs[0] = hs[0], hs[m]
		}
		if s.less(&hs[l], &hs[m]) {
			hs[l], hs[m] = hs[m], hs[l]
			if s.less(&hs[m], &hs[0]) {
				hs[m], hs[0] = hs[0], hs[m]
			}
		}
		pivot := hs[m]
		i, j := -1, len(hs)
		for {
			for i++; s.less(&hs[i], &pivot); i++ {
			}
			for j--; s.less(&pivot, &hs[j]); j-- {
			}
			if i >= j {
				break
			}
			hs[i], hs[j] = hs[j], hs[i]
		}
		// Recurse into the smaller side, loop on the larger.
		if j+1 < len(hs)-j-1 {
			s.quick(hs[:j+1], depth)
			hs = hs[j+1:]
		} else {
			s.quick(hs[j+1:], depth)
			hs = hs[:j+1]
		}
	}
	for i := 1; i < len(hs); i++ {
		x, j := hs[i], i
		for j > 0 && s.less(&x, &hs[j-1]) {
			hs[j] = hs[j-1]
			j--
		}
		hs[j] = x
	}
}

// reorderLoose puts back in Key order the pairs of a brain where one
// presence_id is a proper prefix of another: there "a~x" sorts after
// "ab~y" though "a" sorts before "ab". Ids as ID makes them never are.
func (sw *sweep) reorderLoose(pairs [][2]int32) {
	id := sw.id
	slices.SortFunc(pairs, func(x, y [2]int32) int {
		if c := compareKeys(id(x[0]), id(x[1]), id(y[0]), id(y[1])); c != 0 {
			return c
		}
		if c := cmp.Compare(sw.recs[x[0]], sw.recs[y[0]]); c != 0 {
			return c
		}
		return cmp.Compare(sw.recs[x[1]], sw.recs[y[1]])
	})
}

// compareKeys orders two pairs as their Keys (a1~b1 against a2~b2) compare,
// without building the strings in the common case.
func compareKeys(a1, b1, a2, b2 string) int {
	if a1 == a2 {
		return strings.Compare(b1, b2)
	}
	n := min(len(a1), len(a2))
	for i := 0; i < n; i++ {
		if a1[i] != a2[i] {
			return int(a1[i]) - int(a2[i])
		}
	}
	// One id is a prefix of the other: the separator takes part.
	return strings.Compare(a1+"~"+b1, a2+"~"+b2)
}
