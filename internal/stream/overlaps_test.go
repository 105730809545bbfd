package stream

import (
	"slices"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
)

func ovl(a, b, brain, verdict string) contract.Overlap {
	return contract.Overlap{OverlapID: a + "~" + b, Brain: brain, A: contract.OverlapSide{PresenceID: a}, B: contract.OverlapSide{PresenceID: b},
		Verdict: verdict, Merge: "unknown", Basis: "git", Files: []contract.OverlapFile{{Path: "src/a.go", A: []string{"observed"}, B: []string{"git"}}},
		FilesTotal: 1, Conflicts: []string{}}
}

func ovls(os ...contract.Overlap) map[string]contract.Overlap {
	m := map[string]contract.Overlap{}
	for _, o := range os {
		m[o.OverlapID] = o
	}
	return m
}

func ovIDs(os []contract.Overlap) []string {
	var out []string
	for _, o := range os {
		out = append(out, o.OverlapID)
	}
	return out
}

// TestOverlapDiffs: an overlap opening, turning into a conflict and
// closing, as each filter's diff carries it, and as a View rebuilt from
// those diffs tells it.
func TestOverlapDiffs(t *testing.T) {
	const b1, b2 = "/b1", "/b2"
	steps := []struct {
		what                    string
		next                    map[string]contract.Overlap
		counts                  map[string]int
		wantOpen                []string // owner-wide overlaps_opened
		wantClosed              []string
		viewOpened              []string // what a View tells: opened, changed, closed
		viewChanged, viewClosed []string
		unlisted                int // more overlaps p1 is a side of, past the brain's bound
	}{
		{"one opens on b1", ovls(ovl("p1", "p2", b1, "overlap")), map[string]int{b1: 1},
			[]string{"p1~p2"}, nil, []string{"p1~p2"}, nil, nil, 0},
		{"it becomes a conflict, another opens on b2", ovls(ovl("p1", "p2", b1, "conflict"), ovl("p3", "p4", b2, "overlap")), map[string]int{b1: 1, b2: 1},
			[]string{"p1~p2", "p3~p4"}, nil, []string{"p3~p4"}, []string{"p1~p2"}, nil, 0},
		{"nothing changes", ovls(ovl("p1", "p2", b1, "conflict"), ovl("p3", "p4", b2, "overlap")), map[string]int{b1: 1, b2: 1},
			nil, nil, nil, nil, nil, 0},
		{"p1 has two more on b1, past the bound: listed none of them", ovls(ovl("p1", "p2", b1, "conflict"), ovl("p3", "p4", b2, "overlap")), map[string]int{b1: 3, b2: 1},
			nil, nil, nil, nil, nil, 2},
		{"the conflict closes", ovls(ovl("p3", "p4", b2, "overlap")), map[string]int{b2: 1},
			nil, []string{"p1~p2"}, nil, nil, []string{"p1~p2"}, 0},
	}
	var prev roster
	var views = map[string]*View{"owner": {}, "b1": {}, "p1": {}}
	filters := map[string]Filter{"owner": {}, "b1": {Brain: b1}, "p1": {PresenceID: "p1"}}
	for _, v := range views {
		v.Apply(Event{ID: "0", Snapshot: &contract.PresencesResponse{Presences: []contract.Presence{}, Collisions: []contract.Collision{}, Overlaps: []contract.Overlap{}}})
	}
	for i, s := range steps {
		// Every presence's count of all its overlaps: the listed ones, and
		// p1's unlisted.
		own := map[string]ownTotal{}
		for _, o := range s.next {
			for _, id := range []string{o.A.PresenceID, o.B.PresenceID} {
				own[id] = ownTotal{brain: o.Brain, n: own[id].n + 1}
			}
		}
		if s.unlisted > 0 {
			own["p1"] = ownTotal{brain: b1, n: own["p1"].n + s.unlisted}
		}
		next := roster{overlaps: s.next, ovCounts: s.counts, ovOwn: own}
		c := diffRosters(prev, next)
		prev = next
		if got := ovIDs(c.ovOpened); !slices.Equal(got, s.wantOpen) {
			t.Errorf("%s: opened %v, want %v", s.what, got, s.wantOpen)
		}
		if got := ovIDs(c.ovClosed); !slices.Equal(got, s.wantClosed) {
			t.Errorf("%s: closed %v, want %v", s.what, got, s.wantClosed)
		}
		if c.empty() != (len(s.wantOpen)+len(s.wantClosed) == 0 && s.unlisted == 0) {
			t.Errorf("%s: empty %v", s.what, c.empty())
		}
		c.seq = uint64(i + 1)
		for name, f := range filters {
			d, keep := f.diff(c)
			v := views[name]
			if !keep {
				continue
			}
			for _, o := range append(append([]contract.Overlap{}, d.OverlapsOpened...), d.OverlapsClosed...) {
				if !f.keepsOverlap(o) {
					t.Errorf("%s: filter %s got %s", s.what, name, o.OverlapID)
				}
			}
			ch := v.Apply(Event{ID: "x", Diff: &d})
			if name == "owner" {
				for _, w := range []struct {
					got, want []string
					what      string
				}{{ovIDs(ch.OverlapsOpened), s.viewOpened, "opened"}, {ovIDs(ch.OverlapsChanged), s.viewChanged, "changed"}, {ovIDs(ch.OverlapsClosed), s.viewClosed, "closed"}} {
					if !slices.Equal(w.got, w.want) {
						t.Errorf("%s: the view tells %s %v, want %v", s.what, w.what, w.got, w.want)
					}
				}
			}
		}
		// Each view rebuilt from the diffs holds what its filter asks for.
		for name, f := range filters {
			var want []string
			total := 0
			for _, o := range s.next {
				if f.keepsOverlap(o) {
					want = append(want, o.OverlapID)
				}
			}
			slices.Sort(want)
			switch name {
			case "owner":
				total = s.counts[b1] + s.counts[b2]
			case "b1":
				total = s.counts[b1]
			case "p1":
				total = len(want) + s.unlisted
			}
			r := views[name].Response()
			if got := ovIDs(r.Overlaps); !slices.Equal(got, want) || r.OverlapsTotal != total {
				t.Errorf("%s: view %s holds %v (total %d), want %v (total %d)", s.what, name, got, r.OverlapsTotal, want, total)
			}
		}
	}
}
