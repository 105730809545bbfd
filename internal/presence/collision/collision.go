package collision

import (
	"path/filepath"
	"slices"
)

// Clause names one reason two presences share a place.
type Clause string

// The clauses of the predicate's place condition.
const (
	CallerRoot Clause = "same_caller_root"
	Worktree   Clause = "same_worktree"
	WorkingSet Clause = "working_set_overlap"
	// Touched: an overlap involves a file a side was seen changing (its
	// touched list), not only what both declared.
	Touched Clause = "touched_overlap"
)

// Touch is one file a presence's tool changed, and when. It is defined
// here, and presence.Touch is this type, so that a record's touched list
// reaches the sweep without a copy.
type Touch struct {
	Path string `json:"path"` // absolute, cleaned
	AtMs int64  `json:"at_ms"`
}

// Party is what the predicate reads of one presence record.
type Party struct {
	ID, Brain string
	// CallerRoot and Worktree are the party's places. An absolute one is
	// a path, compared cleaned; any other is what the writer declared (m1nd's
	// worktree is a display string such as "feat/x"), compared as written.
	CallerRoot, Worktree string
	// Base is what relative working-set entries resolve against: the
	// worktree, else the caller_root, else the brain (the record says).
	Base string
	// WorkingSet is as declared: absolute or relative to Base. Two
	// entries meet when their paths overlap (resolved, cleaned), and also
	// when they are the same non-empty string as written (m1nd's rule: a
	// relative path or an sb_ block id, whatever the bases).
	WorkingSet []string
	// Touched is what the Hall observed the presence change: absolute
	// paths that join the working-set overlap under their own clause.
	Touched  []Touch
	Mutating bool // the record carries a mutation signal
	// Team is the presence's team (a subagent's is its session's id):
	// two parties of one non-empty team never collide.
	Team string
	// Agent is the presence's agent_id: two parties of one non-empty
	// agent never collide (m1nd's rule), even under two presence ids.
	Agent string
}

// Found is one collision: two mutating parties sharing a place on one
// brain. A and B are the sides' indexes into the roster Within was given (for
// Between, 0 for its first party and 1 for its second); A is the side with
// the smaller id, so one pair always reads the same way.
type Found struct {
	Brain   string
	A, B    int
	Clauses []Clause // in the order caller_root, worktree, working_set, touched
	Place   string   // the shared place a person should look at first
	Paths   []string // overlapping working-set and touched paths, absolute, sorted
}

// Between applies the predicate to one pair: same brain, AND not one
// hand (one team or one agent), AND (same non-empty caller_root OR same
// non-empty worktree OR overlapping working sets, declared or touched),
// AND both carry a mutation signal. Staleness is the caller's concern:
// pass live records, and Mutating as of now.
//
// A pair alone is all Between sees. Within closes hands over the roster:
// records linked by an agent or a team, one through another, are one
// hand (a subagent of a session whose agent has a second record is one
// hand with that record too), so in that rare chain Within lists less.
func Between(a, b Party) (Found, bool) {
	if a.ID == b.ID || a.Brain != b.Brain || !a.Mutating || !b.Mutating || (a.Agent != "" && a.Agent == b.Agent) {
		return Found{}, false
	}
	va, vb := viewOf(&a), viewOf(&b)
	var cl collider
	if a.ID > b.ID {
		return cl.between(a.Brain, 1, 0, &vb, &va)
	}
	return cl.between(a.Brain, 0, 1, &va, &vb)
}

// ResolveWorkingSet returns a working set as absolute, cleaned paths,
// relative entries resolved against base, empty entries dropped.
func ResolveWorkingSet(base string, ws []string) []string {
	out := make([]string, 0, len(ws))
	for _, e := range ws {
		switch {
		case e == "":
		case filepath.IsAbs(e):
			out = append(out, filepath.Clean(e))
		default:
			out = append(out, filepath.Join(base, e))
		}
	}
	return out
}

// placeOf is what a place is compared as: an absolute path cleaned, any
// other string as written ("" when unset, so an unset one never matches).
func placeOf(p string) string {
	if p == "" || p[0] != filepath.Separator {
		return p
	}
	return cleanPath(p)
}

// exactEntries returns the non-empty relative entries of a working set,
// as written: what m1nd's exact rule can match where the resolved paths
// differ (an absolute entry equal as written resolves equal too). More
// than smallPart are sorted, for a linear merge.
func exactEntries(ws []string) []string {
	var out []string
	for _, e := range ws {
		if e != "" && !filepath.IsAbs(e) {
			out = append(out, e)
		}
	}
	if len(out) > smallPart {
		slices.Sort(out)
	}
	return out
}

// exactOverlap appends to dst every string of a also in b: path by path
// when one is small, else by merging (both sorted).
func exactOverlap(dst, a, b []string) []string {
	if min(len(a), len(b)) <= smallPart {
		for _, x := range a {
			if slices.Contains(b, x) {
				dst = append(dst, x)
			}
		}
		return dst
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			dst = append(dst, a[i])
			i++
			j++
		}
	}
	return dst
}

// view is what the place condition compares of one party, computed once
// per party rather than once per pair: caller_root and worktree cleaned
// ("" when unset, so an unset one never matches), the working set
// resolved to absolute, cleaned paths and then the touched files (ws, the
// first declared of them declared), and the team.
type view struct {
	callerRoot, worktree, team, agent string
	// base is what the relative entries resolved against (cleaned), and
	// exact the relative entries as written (see exactEntries).
	base  string
	exact []string
	// ws[:declared] were declared and ws[declared:] touched; each part
	// longer than smallPart is sorted by comparePaths, for the pairs'
	// linear overlap (overlapSorted).
	ws       []string
	declared int
	// A sweep numbers the distinct caller_roots and worktrees of a brain
	// (from 1, one number a path whichever kind of place it is), so that a
	// pair of that brain compares two numbers rather than two paths; 0
	// when not numbered.
	rootID, treeID int32
}

// samePlace reports whether two views' places (caller_roots, or worktrees)
// are the same non-empty path, by their numbers when both have one.
func samePlace(a, b string, aID, bID int32) bool {
	if a == "" {
		return false
	}
	if aID != 0 && bID != 0 {
		return aID == bID
	}
	return a == b
}

func viewOf(p *Party) view {
	ws := ResolveWorkingSet(p.Base, p.WorkingSet)
	declared := len(ws)
	for _, t := range p.Touched {
		if t.Path != "" {
			ws = append(ws, filepath.Clean(t.Path))
		}
	}
	sortParts(ws, declared)
	return view{callerRoot: placeOf(p.CallerRoot), worktree: placeOf(p.Worktree), team: p.Team, agent: p.Agent,
		base: cleanOrEmpty(p.Base), exact: exactEntries(p.WorkingSet), ws: ws, declared: declared}
}

// smallPart is the most paths a part of a view (declared, or touched) may
// hold and still be compared with another part path by path: up to
// smallPart·n steps against n, linear still, and for the one to four
// entries a working set mostly holds, several times cheaper than the merge
// (no sort, no stacks).
const smallPart = 8

// sortParts sorts the declared part of a view's paths and its touched part
// apart, each by comparePaths, so the clauses can still tell them apart: a
// part of smallPart paths or fewer is left as it is, never merged.
func sortParts(ws []string, declared int) {
	if declared > smallPart {
		slices.SortFunc(ws[:declared], comparePaths)
	}
	if len(ws)-declared > smallPart {
		slices.SortFunc(ws[declared:], comparePaths)
	}
}

// collider cuts the Clauses and Paths of many collisions from shared
// arrays, so a sweep allocates per batch rather than per collision. Each
// slice handed out is capped at its length: appending to one never writes
// into another.
type collider struct {
	clauses []Clause
	paths   []string
	open    [2][]string // overlapSorted's scratch
}

// overlap appends the overlapping paths of two parts of views (the deeper
// path of each overlapping pair, maybe more than once): path by path when
// one part is small (see smallPart), else by merging them, both sorted.
func (cl *collider) overlap(a, b []string) {
	if min(len(a), len(b)) <= smallPart {
		for _, pa := range a {
			for _, pb := range b {
				if p, ok := overlapCleaned(pa, pb); ok {
					cl.paths = append(cl.paths, p)
				}
			}
		}
		return
	}
	cl.paths, cl.open = overlapSorted(cl.paths, a, b, cl.open)
}

// between applies the place condition to two distinct, mutating parties
// on brain, already ordered (a's id the smaller), given their views: it
// reads the views only, not the records, which a sweep over a large
// roster no longer has in cache.
func (cl *collider) between(brain string, a, b int, va, vb *view) (Found, bool) {
	if va.team != "" && va.team == vb.team {
		return Found{}, false // a session and its subagents are one team
	}
	if va.agent != "" && va.agent == vb.agent {
		return Found{}, false // one agent under two ids is one hand
	}
	start := len(cl.paths)
	// Declared against declared is working_set_overlap; any overlap with a
	// touched file on either side is touched_overlap. Each of the four
	// comparisons is linear in its two sizes (see overlap).
	declA, touchA := va.ws[:va.declared], va.ws[va.declared:]
	declB, touchB := vb.ws[:vb.declared], vb.ws[vb.declared:]
	cl.overlap(declA, declB)
	if len(va.exact) > 0 && len(vb.exact) > 0 && va.base != vb.base {
		// The same entry as written, resolved apart (m1nd's exact rule):
		// listed as written. On one base the paths above hold it already.
		cl.paths = exactOverlap(cl.paths, va.exact, vb.exact)
	}
	declaredHit := len(cl.paths) > start
	mark := len(cl.paths)
	cl.overlap(touchA, declB)
	cl.overlap(touchA, touchB)
	cl.overlap(declA, touchB)
	touchedHit := len(cl.paths) > mark
	var paths []string
	if len(cl.paths) > start {
		paths = cl.paths[start:]
		if len(paths) > 1 {
			slices.Sort(paths)
			paths = slices.Compact(paths)
			cl.paths = cl.paths[:start+len(paths)]
		}
		paths = paths[:len(paths):len(paths)]
	}
	sameRoot := samePlace(va.callerRoot, vb.callerRoot, va.rootID, vb.rootID)
	sameTree := samePlace(va.worktree, vb.worktree, va.treeID, vb.treeID)
	cs := cl.clauses[len(cl.clauses):] // room for all four: the sweep keeps it
	if sameRoot {
		cs = append(cs, CallerRoot)
	}
	if sameTree {
		cs = append(cs, Worktree)
	}
	if declaredHit {
		cs = append(cs, WorkingSet)
	}
	if touchedHit {
		cs = append(cs, Touched)
	}
	if len(cs) == 0 {
		return Found{}, false
	}
	cs = cs[:len(cs):len(cs)]
	if cap(cl.clauses)-len(cl.clauses) >= len(cs) {
		cl.clauses = cl.clauses[:len(cl.clauses)+len(cs)]
	}
	f := Found{Brain: brain, A: a, B: b, Clauses: cs, Paths: paths}
	// Name first the shared worktree, else the shared caller_root, else
	// the first overlapping path.
	switch {
	case sameTree:
		f.Place = va.worktree
	case sameRoot:
		f.Place = va.callerRoot
	default:
		f.Place = paths[0]
	}
	return f, true
}

// Bound is what Within lists of the pairs it counts.
type Bound struct {
	// Max is the most pairs listed on each brain: the first in Within's
	// order. 0 lists every pair.
	Max int
	// Focus, when set, is a presence_id: only the pairs it is a side of
	// are counted and listed, by one pass that compares each party with
	// the focus alone (see focus.go).
	Focus string
	// Degrees asks for each party's number of pairs (Tally.Degrees); with
	// a focus, only the focus's records are counted.
	Degrees bool
}

// Tally is what Within counted, listed or not.
type Tally struct {
	Pairs int // the colliding pairs in scope (the focus's, with one)
	// Degrees holds, by roster index, the pairs each party is a side of,
	// when Bound.Degrees asked for them (0 for a party out of scope).
	Degrees []int32
}

// Within counts the collisions among the n parties of a roster on brain,
// or on every brain when brain is "", and returns those the bound lists,
// each made into a C by as. party returns the party at an index; it is
// called once per index (with a focus, up to three times). The order is deterministic: by brain, then the
// sides' ids (as the Key "a~b" orders), then the sides' indexes; with a
// bound, a brain lists its first Max pairs by the sides' ids, A's then
// B's (the Key order too, unless one id is a proper prefix of another,
// which ids as presence.ID makes them never are).
//
// Neither the time nor the memory grows with the pairs beyond the bound
// when they share a caller_root or a worktree: those are counted from the
// sizes of the places' classes. Pairs that overlap by working set alone
// are walked one by one, and cost their number (see pairs.go). A brain's
// sort costs that brain's n·log n, and no work spans two brains. With a
// focus, the cost is one comparison of each party with the focus.
func Within[C any](brain string, n int, party func(i int) Party, b Bound, as func(Found) C) ([]C, Tally) {
	if b.Focus != "" {
		return withinFocus(brain, n, party, b, as)
	}
	sw := sweeps.Get().(*sweep)
	defer sw.release()
	sw.run(brain, n, party, b)
	t := Tally{Pairs: sw.total}
	if b.Degrees {
		t.Degrees = make([]int32, n)
		for r, i := range sw.recs {
			t.Degrees[i] += sw.deg[r]
		}
	}
	if len(sw.pairs) == 0 {
		return nil, t
	}
	// Most collisions carry one or two clauses and one or two paths: the
	// collider's arrays start at that and grow with what is left.
	cl := collider{paths: make([]string, 0, len(sw.pairs)), open: sw.overlapOpen}
	defer func() { sw.overlapOpen = cl.open }() // before release: deferred later, run first
	out := make([]C, 0, len(sw.pairs))
	for k, p := range sw.pairs {
		if cap(cl.clauses)-len(cl.clauses) < 4 {
			cl.clauses = make([]Clause, 0, 2*(len(sw.pairs)-k)+1)
		}
		a, b := p[0], p[1]
		if f, ok := cl.between(sw.brainName(a), int(sw.recs[a]), int(sw.recs[b]), &sw.views[a], &sw.views[b]); ok {
			out = append(out, as(f))
		}
	}
	if len(out) == 0 {
		return nil, t
	}
	return out, t
}

func cleanOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	return cleanPath(p)
}
