package collision

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// One presence's collisions (Bound.Focus), as a beat answers them: one
// pass over the roster, comparing each record with the focus alone. No
// sort of the brain, no index: a beat pays for its own record against
// each other once, whatever the pairs among the others.

// withinFocus is Within with a focus: the pairs the records of b.Focus are
// a side of, counted, and the first b.Max of them (by Key) listed.
func withinFocus[C any](brain string, n int, party func(i int) Party, b Bound, as func(Found) C) ([]C, Tally) {
	fs := focusSets.Get().(*focusScan)
	defer fs.release()
	// The focus's records, in scope and mutating.
	for i := 0; i < n; i++ {
		p := party(i)
		if p.ID == b.Focus && p.Mutating && (brain == "" || p.Brain == brain) {
			fs.add(i, &p)
		}
	}
	t := Tally{}
	if b.Degrees {
		t.Degrees = make([]int32, n)
	}
	if len(fs.focus) == 0 {
		return nil, t
	}
	fs.limit = b.Max
	for i := 0; i < n; i++ {
		p := party(i)
		if !p.Mutating || p.ID == b.Focus {
			continue
		}
		for k := range fs.focus {
			f := &fs.focus[k]
			if p.Brain != f.brain || !fs.collides(f, &p) {
				continue
			}
			t.Pairs++
			if b.Degrees {
				t.Degrees[f.index]++
			}
			pair := focusPair{f.index, i, f.id, p.ID}
			if p.ID < f.id {
				pair = focusPair{i, f.index, p.ID, f.id}
			}
			fs.keep(pair)
		}
	}
	if len(fs.best) == 0 {
		return nil, t
	}
	out := make([]C, 0, len(fs.best))
	var cl collider
	for _, pr := range fs.best {
		pa, pb := party(pr.a), party(pr.b)
		va, vb := viewOf(&pa), viewOf(&pb)
		if f, ok := cl.between(pa.Brain, pr.a, pr.b, &va, &vb); ok {
			out = append(out, as(f))
		}
	}
	return out, t
}

// focusScan is withinFocus's state, pooled: the focus's records, their
// working sets in sort form, and the pairs kept so far.
type focusScan struct {
	focus []focusRecord
	limit int         // most pairs kept; 0 keeps all
	count int         // pairs found (by Focus)
	best  []focusPair // the pairs kept, in order
	key   []byte      // scratch: one entry's sort key
	path  []byte      // scratch: one entry resolved
	other []string    // scratch: the other record's resolved working set, when checked pairwise
}

var focusSets = sync.Pool{New: func() any { return &focusScan{} }}

// focusRecord is one record of the focus presence, ready to compare: its
// places cleaned and its resolved working set as sorted keys.
type focusRecord struct {
	index                  int
	id, brain, team, agent string
	callerRoot, worktree   string
	exact                  []string // the relative entries as written, sorted
	paths                  []string // resolved, cleaned
	keys                   [][]byte // the paths in sort form, sorted
	anyAbs                 bool     // some path is absolute
	root                   bool     // "/" is among them
	nul                    bool     // some path holds a zero byte: compare pairwise
}

// focusPair is one pair, as Within orders them: A's id, B's id, A's index,
// B's index.
type focusPair struct {
	a, b     int
	aID, bID string
}

func (x focusPair) compare(y focusPair) int {
	if c := compareKeys(x.aID, x.bID, y.aID, y.bID); c != 0 {
		return c
	}
	if c := cmp.Compare(x.a, y.a); c != 0 {
		return c
	}
	return cmp.Compare(x.b, y.b)
}

func (fs *focusScan) release() {
	clear(fs.focus)
	clear(fs.best)
	clear(fs.other)
	fs.focus, fs.best, fs.other, fs.count = fs.focus[:0], fs.best[:0], fs.other[:0], 0
	focusSets.Put(fs)
}

// add readies the focus record at index i.
func (fs *focusScan) add(i int, p *Party) {
	f := focusRecord{index: i, id: p.ID, brain: p.Brain, team: p.Team, agent: p.Agent, callerRoot: placeOf(p.CallerRoot), worktree: placeOf(p.Worktree),
		exact: exactEntries(p.WorkingSet)}
	slices.Sort(f.exact)
	f.paths = resolvedAndTouched(p)
	for _, q := range f.paths {
		k, _ := sortKey(nil, q, false)
		f.keys = append(f.keys, k)
		f.nul = f.nul || strings.IndexByte(q, 0) >= 0
		f.anyAbs = f.anyAbs || filepath.IsAbs(q)
		f.root = f.root || q == string(filepath.Separator)
	}
	slices.SortFunc(f.keys, bytes.Compare)
	fs.focus = append(fs.focus, f)
}

// keep adds a pair to the kept ones, in order, dropping the last past the
// limit, and reports whether it is kept (for now).
func (fs *focusScan) keep(p focusPair) bool {
	if fs.limit > 0 && len(fs.best) == fs.limit && p.compare(fs.best[len(fs.best)-1]) >= 0 {
		return false
	}
	i := sort.Search(len(fs.best), func(k int) bool { return p.compare(fs.best[k]) < 0 })
	fs.best = slices.Insert(fs.best, i, p)
	if fs.limit > 0 && len(fs.best) > fs.limit {
		fs.best = fs.best[:fs.limit]
	}
	return true
}

// collides applies the place condition to the focus record f and another
// mutating record p on its brain: exactly as between would answer.
func (fs *focusScan) collides(f *focusRecord, p *Party) bool {
	if f.team != "" && f.team == p.Team {
		return false // a session and its subagents are one team
	}
	if f.agent != "" && f.agent == p.Agent {
		return false // one agent under two ids is one hand
	}
	if f.callerRoot != "" && placeOf(p.CallerRoot) == f.callerRoot {
		return true
	}
	if f.worktree != "" && placeOf(p.Worktree) == f.worktree {
		return true
	}
	if len(f.paths) == 0 || len(p.WorkingSet)+len(p.Touched) == 0 {
		return false
	}
	if len(f.exact) > 0 {
		// m1nd's exact rule: an entry both wrote the same (on one base
		// the paths below find it as well).
		for _, e := range p.WorkingSet {
			if e != "" && !filepath.IsAbs(e) {
				if _, ok := slices.BinarySearch(f.exact, e); ok {
					return true
				}
			}
		}
	}
	if f.nul {
		return fs.pairwise(f, p)
	}
	for k := range len(p.WorkingSet) + len(p.Touched) {
		// Resolved as ResolveWorkingSet does (base joined, cleaned); a
		// touched file is absolute already.
		fs.path = fs.path[:0]
		if k < len(p.WorkingSet) {
			e := p.WorkingSet[k]
			if e == "" {
				continue
			}
			if !filepath.IsAbs(e) && p.Base != "" {
				fs.path = append(append(fs.path, p.Base...), filepath.Separator)
			}
			fs.path = append(fs.path, e...)
		} else {
			t := p.Touched[k-len(p.WorkingSet)].Path
			if t == "" {
				continue
			}
			fs.path = append(fs.path, t...)
		}
		if bytes.IndexByte(fs.path, 0) >= 0 {
			return fs.pairwise(f, p)
		}
		key, clean := sortKey(fs.key[:0], fs.path, true)
		if !clean {
			key, _ = sortKey(fs.key[:0], filepath.Clean(string(fs.path)), false)
		}
		fs.key = slices.Grow(key, 1) // room for the zero byte covers appends
		if f.covers(fs.key) {
			return true
		}
	}
	return false
}

// covers reports whether a path, in sort form, overlaps one of f's: equal,
// an ancestor or a descendant. It may append to key's array.
func (f *focusRecord) covers(key []byte) bool {
	has := func(k []byte) bool {
		i := sort.Search(len(f.keys), func(j int) bool { return bytes.Compare(f.keys[j], k) >= 0 })
		return i < len(f.keys) && bytes.Equal(f.keys[i], k)
	}
	if len(key) == 1 && key[0] == 0 { // the root: every absolute path
		return f.anyAbs
	}
	if f.root && key[0] == 0 {
		return true
	}
	// An ancestor or the path itself among f's.
	for i := 1; i <= len(key); i++ {
		if (i == len(key) || key[i] == 0) && has(key[:i]) {
			return true
		}
	}
	// A descendant among f's: they follow key+"\x00" contiguously (the
	// zero byte sorts first).
	below := append(key, 0)
	i := sort.Search(len(f.keys), func(j int) bool { return bytes.Compare(f.keys[j], below) >= 0 })
	return i < len(f.keys) && bytes.HasPrefix(f.keys[i], below)
}

// pairwise compares every path of f with every path of p: the plain
// reading, for paths holding zero bytes, whose sort form is ambiguous.
func (fs *focusScan) pairwise(f *focusRecord, p *Party) bool {
	fs.other = append(fs.other[:0], resolvedAndTouched(p)...)
	for _, x := range f.paths {
		for _, y := range fs.other {
			if _, ok := overlapCleaned(x, y); ok {
				return true
			}
		}
	}
	return false
}

// Focus counts, one party at a time, the pairs one record is a side of,
// and keeps the first of them by Key: a beat's north, scanned straight
// off a roster held elsewhere (under its lock), with no slice of it.
// Parties are known by handles the caller gives, each its own.
type Focus struct {
	fs *focusScan
}

// NewFocus starts a scan for self, known by handle i, keeping at most
// limit pairs (0: all). Release it when done.
func NewFocus(i int, self Party, limit int) *Focus {
	fs := focusSets.Get().(*focusScan)
	fs.limit = limit
	if self.Mutating {
		fs.add(i, &self)
	}
	return &Focus{fs: fs}
}

// Offer compares the party p, known by handle i, with the focus: whether
// they collide (then counted), and whether the pair is among the first so
// far (kept; it may be dropped by a later one).
func (x *Focus) Offer(i int, p Party) (collides, kept bool) {
	fs := x.fs
	if len(fs.focus) == 0 || !p.Mutating {
		return false, false
	}
	f := &fs.focus[0]
	if p.ID == f.id || p.Brain != f.brain || !fs.collides(f, &p) {
		return false, false
	}
	fs.count++
	pair := focusPair{f.index, i, f.id, p.ID}
	if p.ID < f.id {
		pair = focusPair{i, f.index, p.ID, f.id}
	}
	return true, fs.keep(pair)
}

// Pairs is how many pairs were found.
func (x *Focus) Pairs() int { return x.fs.count }

// Kept returns the pairs kept, in order, as handles: A's, then B's.
func (x *Focus) Kept() [][2]int {
	out := make([][2]int, len(x.fs.best))
	for k, p := range x.fs.best {
		out[k] = [2]int{p.a, p.b}
	}
	return out
}

// Release returns the scan's arrays for reuse.
func (x *Focus) Release() { x.fs.release() }

// resolvedAndTouched is what a party's paths overlap with: its working set
// resolved, and its touched files, cleaned, as a view holds them.
func resolvedAndTouched(p *Party) []string {
	out := ResolveWorkingSet(p.Base, p.WorkingSet)
	for _, t := range p.Touched {
		if t.Path != "" {
			out = append(out, filepath.Clean(t.Path))
		}
	}
	return out
}

// sortKey appends to dst the sort key of the cleaned path p: p with its
// separators made zero bytes, so that a path's descendants sort right
// after it. With check, it first makes sure p is clean (isClean's test, in
// the same pass) and reports false, p unconverted, when it is not sure. It
// takes eight bytes at a time, as isClean does.
func sortKey[P string | []byte](dst []byte, p P, check bool) ([]byte, bool) {
	if check && !(filepath.Separator == '/' && len(p) > 0 && p[0] != '.' && (p[len(p)-1] != '/' || len(p) == 1)) {
		return dst, false
	}
	n := len(dst)
	dst = append(dst, p...)
	key := dst[n:]
	// after is 0x80 when the byte before the word at hand is a separator.
	var after uint64
	i := 0
	for ; i+8 <= len(key); i += 8 {
		w := binary.LittleEndian.Uint64(key[i:])
		sep := zeroBytes(w ^ (separator * ones))
		if check {
			// A separator followed by a separator or a dot (the next
			// byte's flag shifted down onto it), within the word or
			// across from the one before: not clean.
			next := sep | zeroBytes(w^('.'*ones))
			if sep&(next>>8) != 0 || after&next != 0 {
				return dst[:n], false
			}
		}
		after = sep >> 56
		if sep != 0 {
			binary.LittleEndian.PutUint64(key[i:], w&^((sep>>7)*0xff))
		}
	}
	for sepBefore := after != 0; i < len(key); i++ {
		c := key[i]
		if check && sepBefore && (c == separator || c == '.') {
			return dst[:n], false
		}
		if sepBefore = c == separator; sepBefore {
			key[i] = 0
		}
	}
	return dst, true
}
