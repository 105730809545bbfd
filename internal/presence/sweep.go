package presence

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
)

// sweep finds the colliding pairs of a roster without comparing every
// pair: brain by brain, it sorts the caller_roots, worktrees and
// working-set paths and pairs the records that share one (see candidates),
// then puts the pairs in CollisionsIn's order with a counting sort (see
// pairs). Its cost grows with the records, their entries and the pairs
// found: a brain's sort costs that brain's n·log n, and no work ever spans
// two brains.
//
// A record is known by its rank: its place in the order brain, then
// presence_id, then position in live. A pair (a, b) with a < b then has A's
// side first, and pairs ordered by rank are in the output's order.
type sweep struct {
	live  []Record
	recs  []int   // by rank: index into live
	brain []int32 // by rank: the brain's place among the sorted brains
	first []int32 // by rank: the first rank with the same presence_id
	views []view  // by rank
	ends  []int32 // by brain place: one past its last rank
	loose []bool  // by brain place: some id is a proper prefix of another
	found [][2]int32
}

// rank orders the mutating records in scope by brain, presence_id and
// position, and computes their views.
func (sw *sweep) rank(brain string, live []Record) {
	sw.live = live
	type member struct {
		id    string
		index int
		brain int32
	}
	members := make([]member, 0, len(live))
	ids := map[string]int32{}
	var names []string
	last, lastID := "", int32(-1)
	for i := range live {
		r := &live[i]
		if (brain != "" && r.Brain != brain) || !r.Mutating() {
			continue
		}
		if r.Brain != last || lastID < 0 {
			id, ok := ids[r.Brain]
			if !ok {
				id = int32(len(names))
				ids[r.Brain] = id
				names = append(names, r.Brain)
			}
			last, lastID = r.Brain, id
		}
		members = append(members, member{r.PresenceID, i, lastID})
	}
	if len(members) == 0 {
		return
	}

	// Brains in order, then each brain's members by id and position: a
	// counting sort by brain keeps live order, so the sort within a brain
	// breaks ties by position.
	order := make([]int32, len(names))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(names[x], names[y]) })
	place := make([]int32, len(names))
	for p, id := range order {
		place[id] = int32(p)
	}
	sw.ends = make([]int32, len(names))
	for _, m := range members {
		sw.ends[place[m.brain]]++
	}
	at := make([]int32, len(names))
	for p := 1; p < len(names); p++ {
		sw.ends[p] += sw.ends[p-1]
		at[p] = sw.ends[p-1]
	}
	sorted := make([]member, len(members))
	for _, m := range members {
		m.brain = place[m.brain]
		sorted[at[m.brain]] = m
		at[m.brain]++
	}
	n := len(sorted)
	sw.recs = make([]int, n)
	sw.brain = make([]int32, n)
	sw.first = make([]int32, n)
	sw.loose = make([]bool, len(names))
	start := int32(0)
	for p, end := range sw.ends {
		ms := sorted[start:end]
		slices.SortFunc(ms, func(x, y member) int {
			if c := strings.Compare(x.id, y.id); c != 0 {
				return c
			}
			return cmp.Compare(x.index, y.index)
		})
		for k, m := range ms {
			r := start + int32(k)
			sw.recs[r], sw.brain[r], sw.first[r] = m.index, int32(p), r
			if k > 0 && m.id == ms[k-1].id {
				sw.first[r] = sw.first[r-1]
			} else if k > 0 && strings.HasPrefix(m.id, ms[k-1].id) {
				// Sorted, a proper prefix is followed by a longer id
				// starting with it: checking neighbours finds every one.
				sw.loose[p] = true
			}
		}
		start = end
	}
	sw.views = views(live, sw.recs)
	sw.found = make([][2]int32, 0, 2*n)
}

// views returns the view of each record live[recs[k]]. The resolved paths
// are cut from one shared string: one allocation for all of them, not one
// per entry. A resolved entry is what Record.resolveEntry returns: for the
// Unix paths the Hall deals in, filepath.Join of base and entry is
// Clean(base + separator + entry). TestCollisionsInEqualsBruteForce holds
// the two to the same answers.
func views(live []Record, recs []int) []view {
	vs := make([]view, len(recs))
	size, count := 0, 0
	for _, i := range recs {
		r := &live[i]
		base := r.resolveBase()
		for _, e := range r.WorkingSet {
			size += len(base) + 1 + len(e)
			count++
		}
	}
	var raw strings.Builder
	raw.Grow(size)
	ws := make([]string, 0, count)
	for k, i := range recs {
		r := &live[i]
		vs[k].callerRoot, vs[k].worktree = cleanOrEmpty(r.CallerRoot), cleanOrEmpty(r.Worktree)
		base := r.resolveBase()
		from := len(ws)
		for _, e := range r.WorkingSet {
			if e == "" {
				continue
			}
			if !filepath.IsAbs(e) && base != "" {
				raw.WriteString(base)
				raw.WriteByte(filepath.Separator)
			}
			raw.WriteString(e)
			ws = append(ws, "") // filled below, once the string is whole
		}
		vs[k].ws = ws[from:len(ws):len(ws)]
	}
	all := raw.String()
	at := 0
	for k, i := range recs {
		r := &live[i]
		base := r.resolveBase()
		j := 0
		for _, e := range r.WorkingSet {
			if e == "" {
				continue
			}
			n := len(e)
			if !filepath.IsAbs(e) && base != "" {
				n += len(base) + 1
			}
			vs[k].ws[j] = cleanPath(all[at : at+n]) // no copy when already clean
			at += n
			j++
		}
	}

	// The sweep keys: each path with its separators made zero bytes, cut
	// from one more shared string.
	var keys strings.Builder
	keys.Grow(size)
	var chunk [256]byte
	for k := range vs {
		for _, p := range vs[k].ws {
			for len(p) > 0 {
				n := copy(chunk[:], p)
				for i, c := range chunk[:n] {
					if c == filepath.Separator {
						chunk[i] = 0
					}
				}
				keys.Write(chunk[:n])
				p = p[n:]
			}
		}
	}
	allKeys := keys.String()
	ks := make([]string, 0, len(ws))
	at = 0
	for k := range vs {
		from := len(ks)
		for _, p := range vs[k].ws {
			ks = append(ks, allKeys[at:at+len(p)])
			at += len(p)
		}
		vs[k].keys = ks[from:len(ks):len(ks)]
	}
	return vs
}

// add records the candidate pair of ranks x and y, unless they are one
// record or two records of one presence.
func (sw *sweep) add(x, y int32) {
	if sw.first[x] == sw.first[y] {
		return
	}
	if x > y {
		x, y = y, x
	}
	sw.found = append(sw.found, [2]int32{x, y})
}

// candidates finds every pair of ranks that shares a caller_root, a
// worktree or an overlapping working-set path, as often as it is found,
// brain by brain: sorting a brain's places costs that brain's n·log n, and
// never compares places of two brains.
func (sw *sweep) candidates() {
	var es, open []sweepEntry
	start := int32(0)
	for _, end := range sw.ends {
		vs := sw.views[start:end]
		// Equal places: sort (place, rank) and pair within each run.
		for _, place := range []func(v *view) string{
			func(v *view) string { return v.callerRoot },
			func(v *view) string { return v.worktree },
		} {
			es = es[:0]
			for k := range vs {
				if p := place(&vs[k]); p != "" {
					es = append(es, sweepEntry{p, start + int32(k)})
				}
			}
			slices.SortFunc(es, bySweepKey)
			for x := 0; x < len(es); {
				y := x + 1
				for y < len(es) && es[y].key == es[x].key {
					y++
				}
				for p := x; p < y; p++ {
					for q := p + 1; q < y; q++ {
						sw.add(es[p].owner, es[q].owner)
					}
				}
				x = y
			}
		}

		// Working sets: sort every (path, rank) so that a path's
		// descendants follow it contiguously (the separator made the
		// lowest byte), then sweep with a stack of the ancestors still
		// open. Each entry pairs with the open ancestors and equal paths
		// only, so the sweep costs n·log n plus the overlaps it finds.
		es = es[:0]
		for k := range vs {
			for _, key := range vs[k].keys {
				es = append(es, sweepEntry{key, start + int32(k)})
			}
		}
		slices.SortFunc(es, bySweepKey)
		open = open[:0]
		for _, e := range es {
			for len(open) > 0 && !keyCovers(open[len(open)-1].key, e.key) {
				open = open[:len(open)-1]
			}
			for _, o := range open {
				sw.add(o.owner, e.owner)
			}
			open = append(open, e)
		}
		start = end
	}
}

type sweepEntry struct {
	key   string
	owner int32 // rank
}

func bySweepKey(a, b sweepEntry) int { return strings.Compare(a.key, b.key) }

// keyCovers reports whether anc equals p or is its ancestor, in the
// separator-as-zero-byte form the sweep sorts by. A path holding a zero
// byte of its own may be taken for an ancestor it is not: that only adds a
// candidate, which collide then refuses.
func keyCovers(anc, p string) bool {
	if anc == p {
		return true
	}
	if anc == "\x00" { // the root covers everything
		return true
	}
	return len(p) > len(anc) && strings.HasPrefix(p, anc) && p[len(anc)] == 0
}

// pairs returns the distinct candidate pairs in CollisionsIn's order: a
// counting sort on A's rank, then each A's partners deduplicated and
// sorted.
func (sw *sweep) pairs() [][2]int32 {
	n := len(sw.recs)
	if n == 0 || len(sw.found) == 0 {
		return nil
	}
	at := make([]int32, n+1)
	for _, f := range sw.found {
		at[f[0]+1]++
	}
	for a := 1; a <= n; a++ {
		at[a] += at[a-1]
	}
	partners := make([]int32, len(sw.found))
	fill := slices.Clone(at[:n])
	for _, f := range sw.found {
		partners[fill[f[0]]] = f[1]
		fill[f[0]]++
	}
	seen := fill // reused: any value a+1 cannot hold yet
	clear(seen)
	out := make([][2]int32, 0, len(sw.found))
	for a := int32(0); a < int32(n); a++ {
		bs := partners[at[a]:at[a+1]]
		uniq := bs[:0]
		for _, b := range bs {
			if seen[b] != a+1 {
				seen[b] = a + 1
				uniq = append(uniq, b)
			}
		}
		slices.Sort(uniq)
		for _, b := range uniq {
			out = append(out, [2]int32{a, b})
		}
	}
	sw.reorderLoose(out)
	return out
}

// reorderLoose puts back in Key order the pairs of a brain where one
// presence_id is a proper prefix of another: there "a~x" sorts after
// "ab~y" though "a" sorts before "ab". Ids as ID makes them never are.
func (sw *sweep) reorderLoose(out [][2]int32) {
	for from := 0; from < len(out); {
		p := sw.brain[out[from][0]]
		to := from
		for to < len(out) && sw.brain[out[to][0]] == p {
			to++
		}
		if sw.loose[p] {
			id := func(r int32) string { return sw.live[sw.recs[r]].PresenceID }
			slices.SortFunc(out[from:to], func(x, y [2]int32) int {
				if c := compareKeys(id(x[0]), id(x[1]), id(y[0]), id(y[1])); c != 0 {
					return c
				}
				if c := cmp.Compare(sw.recs[x[0]], sw.recs[y[0]]); c != 0 {
					return c
				}
				return cmp.Compare(sw.recs[x[1]], sw.recs[y[1]])
			})
		}
		from = to
	}
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
