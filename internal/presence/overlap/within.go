package overlap

import (
	"cmp"
	"slices"
)

// Tally is what Within counted, listed or not.
type Tally struct {
	Pairs int // overlapping pairs, every brain in scope
	// Brains counts the pairs on each side's brain, a pair of two brains
	// (two clones) on both, listed or not (brains with none left out; nil
	// when there are no pairs).
	Brains map[string]int
	// Degrees counts, by index into the parties given, the overlapping
	// pairs each party is a side of, listed or not (parties with none
	// left out; nil when there are no pairs).
	Degrees map[int]int
}

// Within derives the overlaps among parties on brain, or on every brain
// when brain is "" (then two clones' parties, of two brains and one
// repository, meet too: SameRepository): every one counted, at most
// Bound.MaxPairs listed per brain (side A's), in order of brain, then
// the sides' ids (the Key order).
//
// Pairs are not compared one by one: each party's paths go into an index
// by path, and a party meets only the parties holding one of its paths or
// a directory above one, so the cost is the paths times their depth plus
// the pairs that share a path, not the square of the roster.
func Within(brain string, parties []Party, merges Merges, b Bound) ([]Found, Tally) {
	maxFiles := orDefault(b.MaxFiles)
	var idx []int // eligible parties in scope
	for i := range parties {
		p := &parties[i]
		if (brain == "" || p.Brain == brain) && eligible(p) {
			idx = append(idx, i)
		}
	}
	sides := make(map[int]*side, len(idx))
	byPath := map[string][]int{}    // every party with an entry at the path
	changedAt := map[string][]int{} // … whose entry there is a change
	for _, i := range idx {
		s := sideOf(&parties[i])
		sides[i] = &s
		for p, m := range s.entries {
			byPath[p] = append(byPath[p], i)
			if m&mChanged != 0 {
				changedAt[p] = append(changedAt[p], i)
			}
		}
	}
	// Candidates: pairs with an entry at or above one of the other's,
	// one of the two a change (between keeps no pair of two declarations:
	// a brain of presences declaring the same folders in their own
	// worktrees was paired, sorted and compared pair by pair for nothing).
	cand := map[[2]int]struct{}{}
	for _, i := range idx {
		for p, m := range sides[i].entries {
			at := changedAt
			if m&mChanged != 0 {
				at = byPath
			}
			ancestors(p, func(q string) bool {
				for _, j := range at[q] {
					if j != i && pairable(&parties[i], &parties[j]) {
						cand[order(parties, i, j)] = struct{}{}
					}
				}
				return true
			})
		}
	}
	pairs := make([][2]int, 0, len(cand))
	for k := range cand {
		pairs = append(pairs, k)
	}
	slices.SortFunc(pairs, func(x, y [2]int) int {
		a, b := &parties[x[0]], &parties[y[0]]
		if c := cmp.Compare(a.Brain, b.Brain); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		if c := cmp.Compare(parties[x[1]].ID, parties[y[1]].ID); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
	var out []Found
	var t Tally
	listed, lastBrain := 0, ""
	for _, k := range pairs {
		pa, pb := &parties[k[0]], &parties[k[1]]
		if pa.Brain != lastBrain {
			listed, lastBrain = 0, pa.Brain
		}
		f, ok := between(pa, pb, sides[k[0]], sides[k[1]], merges, maxFiles)
		if !ok {
			continue // two declarations only
		}
		t.Pairs++
		if t.Degrees == nil {
			t.Degrees, t.Brains = map[int]int{}, map[string]int{}
		}
		t.Brains[pa.Brain]++
		if pb.Brain != pa.Brain {
			t.Brains[pb.Brain]++
		}
		t.Degrees[k[0]]++
		t.Degrees[k[1]]++
		if b.MaxPairs > 0 && listed >= b.MaxPairs {
			continue
		}
		f.A, f.B = k[0], k[1]
		out = append(out, f)
		listed++
	}
	return out, t
}

// order returns a pair with the smaller id first (then the smaller
// index, for two records of one id).
func order(parties []Party, i, j int) [2]int {
	if c := cmp.Compare(parties[i].ID, parties[j].ID); c > 0 || (c == 0 && i > j) {
		return [2]int{j, i}
	}
	return [2]int{i, j}
}
