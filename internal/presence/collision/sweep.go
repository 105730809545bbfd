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
// pair, and without holding them all: brain by brain, it sorts the
// caller_roots, worktrees and working-set paths (see places and tree),
// counts the pairs that share a caller_root or a worktree from the sizes
// of those classes, walks the working-set tree for the pairs that overlap
// there only, and lists the first pairs in In's order up to the bound (see
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
	headers []header   // of the records in scope, brain by brain (see scope)
	recs    []int32    // by rank: index into the roster
	slot    []int32    // by rank: index into headers
	brain   []int32    // by rank: the brain's place among the sorted brains
	first   []int32    // by rank: the first rank with the same presence_id
	group   []int32    // by rank: its team in the brain, numbered from 0 (records of one presence share one)
	gsize   []int32    // by group: how many ranks of the brain are in it
	views   []view     // by rank
	ws      []string   // the resolved working sets of every rank, in rank order
	keys    []string   // ws in sort form: separators made zero bytes
	keyAt   []int32    // by rank: where its ws and keys start; keyAt[n] = len(keys)
	ends    []int32    // by brain place: one past its last rank
	loose   []bool     // by brain place: some id is a proper prefix of another
	places  int32      // the caller_roots and worktrees numbered so far
	pairs   [][2]int32 // the pairs listed, in output order
	bound   Bound
	total   int     // the colliding pairs counted, listed or not
	deg     []int32 // by rank: the pairs it is a side of

	// The brain at hand: its places and its working-set tree.
	roots, trees placeIndex
	tree         wsTree
	mark         []int32 // by rank: the last rank (plus one) whose walk reached it
	bothAll      []int32 // by rank - start: records of other teams sharing both its places
	bothLater    []int32 // by rank - start: as bothAll, after it
	both         []int32 // by place number: classify's counters, zero between uses
	runBoth      []int32 // by place number: as both, those seen so far
	gcnt, gseen  []int32 // by group: classify's counters, zero between uses
	tg, sg       map[uint64]int32

	paths, sortKeys arena // where ws and keys are cut from

	// Scratch.
	brainIDs                  map[string]int32
	brainNames                []string
	scoped                    []header // of the records in scope, in roster order
	inBrain, order, place, at []int32
	key                       []byte
	hs                        []headed
	partnerBuf, merged        []int32
	rootBuf, treeBuf          []int32
	teamIDs                   map[string]int32
	overlapOpen               [2][]string // overlapSorted's stacks
}

var sweeps = sync.Pool{New: func() any { return &sweep{brainIDs: map[string]int32{}, teamIDs: map[string]int32{}} }}

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
	clear(sw.headers)
	clear(sw.scoped)
	clear(sw.views)
	clear(sw.ws)
	clear(sw.keys)
	clear(sw.brainNames)
	clear(sw.brainIDs)
	clear(sw.teamIDs)
	clear(sw.overlapOpen[0][:cap(sw.overlapOpen[0])])
	clear(sw.overlapOpen[1][:cap(sw.overlapOpen[1])])
	sw.paths, sw.sortKeys = arena{}, arena{}
	sweeps.Put(sw)
}

// header is what the sweep reads of a record.
type header struct {
	id, callerRoot, worktree, base, team string
	ws                                   []string
	touched                              []Touch
	live                                 int32 // the record's index in the roster
}

// id returns the presence_id of rank r.
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
	sw.pairs, sw.places, sw.bound, sw.total = sw.pairs[:0], 0, b, 0
	m := len(sw.recs)
	sw.first, sw.group = resize(sw.first, m), resize(sw.group, m)
	sw.views, sw.keyAt = resize(sw.views, m), resize(sw.keyAt, m+1)
	sw.deg, sw.mark = resize(sw.deg, m), resize(sw.mark, m)
	clear(sw.deg)
	clear(sw.mark)
	sw.keyAt[0] = 0
	start := int32(0)
	for p, end := range sw.ends {
		sw.rank(int32(p), start, end)
		sw.resolve(start, end)
		sw.classify(start, end)
		sw.tree.build(sw, start, end)
		from := len(sw.pairs)
		sw.count(start, end)
		if sw.loose[p] {
			sw.reorderLoose(sw.pairs[from:])
		}
		start = end
	}
}

// scope finds the mutating parties on brain ("" for all) and orders them
// by brain: sw.recs holds them brain by brain, in roster order within one.
func (sw *sweep) scope(brain string, size int, party func(i int) Party) {
	sw.scoped, sw.inBrain, sw.brainNames = sw.scoped[:0], sw.inBrain[:0], sw.brainNames[:0]
	last, lastID, entries := "", int32(-1), 0
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
			}
			last, lastID = r.Brain, id
		}
		sw.scoped = append(sw.scoped, header{r.ID, r.CallerRoot, r.Worktree, r.Base, r.Team, r.WorkingSet, r.Touched, int32(i)})
		sw.inBrain = append(sw.inBrain, lastID)
		entries += len(r.WorkingSet) + len(r.Touched)
	}
	sw.ws, sw.keys = slices.Grow(sw.ws[:0], entries), slices.Grow(sw.keys[:0], entries)
	n, nb := len(sw.scoped), len(sw.brainNames)
	sw.recs, sw.ends = sw.recs[:0], sw.ends[:0]
	if n == 0 {
		return
	}

	// Brains in order, then a counting sort by brain, which keeps roster
	// order within each.
	sw.order = resize(sw.order, nb)
	for k := range sw.order {
		sw.order[k] = int32(k)
	}
	slices.SortFunc(sw.order, func(x, y int32) int { return strings.Compare(sw.brainNames[x], sw.brainNames[y]) })
	sw.place = resize(sw.place, nb)
	for p, id := range sw.order {
		sw.place[id] = int32(p)
	}
	sw.ends, sw.at = resize(sw.ends, nb), resize(sw.at, nb)
	clear(sw.ends)
	for _, b := range sw.inBrain {
		sw.ends[sw.place[b]]++
	}
	sw.at[0] = 0
	for p := 1; p < nb; p++ {
		sw.ends[p] += sw.ends[p-1]
		sw.at[p] = sw.ends[p-1]
	}
	// Each record's headers, read in roster order, are laid out brain by
	// brain: the passes over one brain then read them
	// side by side, not one record in every few dozen of a roster too
	// large for the cache.
	sw.recs, sw.brain = resize(sw.recs, n), resize(sw.brain, n)
	sw.slot, sw.headers = resize(sw.slot, n), resize(sw.headers, n)
	for k := range sw.scoped {
		p := sw.place[sw.inBrain[k]]
		sw.headers[sw.at[p]] = sw.scoped[k]
		sw.brain[sw.at[p]] = p
		sw.at[p]++
	}
	sw.loose = resize(sw.loose, nb)
	clear(sw.loose)
}

// rank sorts the records of brain p, ranks start to end, by id and
// position: a rank's place in that order. Two records of one presence
// share their first rank.
func (sw *sweep) rank(p, start, end int32) {
	hs := sw.hs[:0]
	for s := start; s < end; s++ {
		hs = append(hs, headed{h: s})
	}
	// Ties on id go by h, the slot, which is in roster order.
	sortHeaded(hs, func(s int32) string { return sw.headers[s].id })
	for k, x := range hs {
		sw.slot[start+int32(k)], sw.recs[start+int32(k)] = x.h, sw.headers[x.h].live
	}
	sw.hs = hs
	id := sw.id
	for r := start; r < end; r++ {
		sw.first[r] = r
		if r == start {
			continue
		}
		if id(r) == id(r-1) {
			sw.first[r] = sw.first[r-1]
		} else if strings.HasPrefix(id(r), id(r-1)) {
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
	sw.gsize = resize(sw.gsize, int(n))
	clear(sw.gsize)
	for r := start; r < end; r++ {
		sw.gsize[sw.group[r]]++
	}
}

// resolve computes the view of ranks start to end and the sweep keys of
// their working sets: each path with its separators made zero bytes, so
// that a path's descendants sort right after it. The resolved paths, and
// the keys, are cut from arenas, not allocated one by one. A resolved entry
// is what ResolveWorkingSet returns: for the Unix paths the Hall deals
// in, filepath.Join of base and entry is Clean(base + separator + entry).
// TestCollisionsInEqualsBruteForce holds the two to the same answers.
func (sw *sweep) resolve(start, end int32) {
	size := 0
	for _, h := range sw.headers[start:end] {
		for _, e := range h.ws {
			size += len(h.base) + 1 + len(e)
		}
		for _, t := range h.touched {
			size += len(t.Path)
		}
	}
	// The entries after these, at a guess of 40 bytes each.
	hint := 40 * (cap(sw.ws) - len(sw.ws) - (size+39)/40)
	sw.paths.reserve(size, hint)
	sw.sortKeys.reserve(size, hint)
	sw.tree.nul = false
	for k := start; k < end; k++ {
		h, v := &sw.headers[sw.slot[k]], &sw.views[k]
		v.callerRoot = cleanOrEmpty(h.callerRoot)
		if h.worktree == h.callerRoot { // often: the agent works at the top of its checkout
			v.worktree = v.callerRoot
		} else {
			v.worktree = cleanOrEmpty(h.worktree)
		}
		v.rootID, v.treeID, v.team = 0, 0, h.team
		base := h.base
		add := func(e string, rel bool) {
			sw.paths.begin()
			if rel && !filepath.IsAbs(e) && base != "" {
				sw.paths.b.WriteString(base)
				sw.paths.b.WriteByte(filepath.Separator)
			}
			sw.paths.b.WriteString(e)
			p := sw.paths.cut()
			if strings.IndexByte(p, 0) >= 0 {
				sw.tree.nul = true
			}
			key, clean := sortKey(sw.key[:0], p, true)
			if !clean {
				p = filepath.Clean(p)
				key, _ = sortKey(sw.key[:0], p, false)
			}
			sw.ws = append(sw.ws, p)
			sw.sortKeys.begin()
			sw.sortKeys.b.Write(key)
			sw.keys = append(sw.keys, sw.sortKeys.cut())
			sw.key = key
		}
		// The declared entries first, then the touched files: view.declared
		// tells them apart for the clauses.
		for _, e := range h.ws {
			if e != "" {
				add(e, true)
			}
		}
		v.declared = len(sw.ws) - int(sw.keyAt[k])
		for _, t := range h.touched {
			if t.Path != "" {
				add(t.Path, false)
			}
		}
		sw.keyAt[k+1] = int32(len(sw.ws))
		v.ws = sw.ws[sw.keyAt[k]:sw.keyAt[k+1]:sw.keyAt[k+1]] // scope sized ws: it never moves
		if len(v.ws) > 1 {
			// Each part in key order, for the pairs' linear overlap
			// (overlapSorted); the keys themselves are only ever used as a
			// whole brain's.
			sortParts(v.ws, v.declared)
		}
	}
}

// sortKey appends to dst the sweep key of the cleaned path p: p with its
// separators made zero bytes. With check, it first makes sure p is clean
// (isClean's test, in the same pass) and reports false, p unconverted,
// when it is not sure.
func sortKey[P string | []byte](dst []byte, p P, check bool) ([]byte, bool) {
	if check && !(filepath.Separator == '/' && len(p) > 0 && p[0] != '.' && (p[len(p)-1] != '/' || len(p) == 1)) {
		return dst, false
	}
	n := len(dst)
	dst = slices.Grow(dst, len(p))[:n+len(p)]
	key := dst[n:]
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == filepath.Separator {
			if check && i+1 < len(p) && (p[i+1] == '/' || p[i+1] == '.') {
				return dst[:n], false
			}
			c = 0
		}
		key[i] = c
	}
	return dst, true
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
// it that follow the prefix every string in the sort shares (zero-padded),
// and owner is the rank a working-set entry belongs to. A brain's places
// share a long prefix ("/home/dev/brain-07-wt…"): comparing heads settles
// most comparisons with one integer compare instead of a walk through it.
type headed struct {
	head     uint64
	h, owner int32
}

// sortHeaded sorts hs by str(h), then by h.
func sortHeaded(hs []headed, str func(int32) string) {
	if len(hs) < 2 {
		return
	}
	first := str(hs[0].h)
	lcp := len(first)
	for _, x := range hs[1:] {
		s := str(x.h)
		n := min(lcp, len(s))
		i := 0
		for i < n && s[i] == first[i] {
			i++
		}
		lcp = i
	}
	for k := range hs {
		s := str(hs[k].h)[lcp:]
		var head uint64
		for i := 0; i < 8; i++ {
			head <<= 8
			if i < len(s) {
				head |= uint64(s[i])
			}
		}
		hs[k].head = head
	}
	hsort := headSorter{str: str, lcp: lcp}
	hsort.quick(hs, 2*bits.Len(uint(len(hs))))
}

// headSorter orders headed handles: heads in big-endian order compare as
// the strings do, up to ties, so only equal heads compare the strings. It
// is a quicksort written out for the one type, so that the comparison of
// heads is inlined rather than a call through a function value, which
// was most of the sweep's sorting time.
type headSorter struct {
	str func(int32) string
	lcp int
}

func (s *headSorter) less(x, y *headed) bool {
	if x.head != y.head {
		return x.head < y.head
	}
	return s.tie(x, y) < 0
}

func (s *headSorter) tie(x, y *headed) int {
	if c := strings.Compare(s.str(x.h)[s.lcp:], s.str(y.h)[s.lcp:]); c != 0 {
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

// keyCovers reports whether anc equals p or is its ancestor, in the
// separator-as-zero-byte form the sweep sorts by: exactly as
// overlapCleaned, for paths holding no zero byte of their own. (One that
// does may be taken for an ancestor it is not: the walk then checks the
// paths themselves.)
func keyCovers(anc, p string) bool {
	if anc == p {
		return true
	}
	if anc == "\x00" { // the root covers every absolute path, and no relative one
		return p != "" && p[0] == 0
	}
	return len(p) > len(anc) && strings.HasPrefix(p, anc) && p[len(anc)] == 0
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
