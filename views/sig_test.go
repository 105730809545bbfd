package views

import (
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/contracttest"
)

// TestPresenceSigSeesWhatRowsShow: a change to any wire field of a
// presence changes its row's signature and the roster's, but for the
// fields no row shows (rowNotShown), which change neither; a field added
// to the contract fails here until it is written or named.
func TestPresenceSigSeesWhatRowsShow(t *testing.T) {
	base := contract.Presence{PresenceID: "prs_a", AgentID: "a", Brain: "/b", WorkingSet: []string{"x"},
		Touched: []contract.Touch{{Path: "f", AtMs: 1}}, MutationLevel: contract.LevelObserved}
	changed, err := contracttest.EachFieldChanged(base)
	if err != nil {
		t.Fatal(err)
	}
	roster := func(p contract.Presence) string {
		return RosterSig(contract.PresencesResponse{Presences: []contract.Presence{p}})
	}
	seen := map[string]bool{}
	for _, c := range changed {
		seen[c.Field] = true
		shown := !rowNotShown[c.Field]
		if got := PresenceSig(c.Value, false) != PresenceSig(base, false); got != shown {
			t.Errorf("a change to %s: row signature changed %v, want %v", c.Field, got, shown)
		}
		if got := roster(c.Value) != roster(base); got != shown {
			t.Errorf("a change to %s: roster signature changed %v, want %v", c.Field, got, shown)
		}
	}
	for f := range rowNotShown {
		if !seen[f] {
			t.Errorf("rowNotShown names %s, which contract.Presence does not have", f)
		}
	}
	if PresenceSig(base, true) == PresenceSig(base, false) {
		t.Error("a row's signature does not say whether it collides")
	}
}

// TestRosterSigSeesEveryCollisionField: a change to any field of a
// collision, or to why the roster was dropped, changes the roster's
// signature.
func TestRosterSigSeesEveryCollisionField(t *testing.T) {
	base := contract.PresencesResponse{Collisions: []contract.Collision{{CollisionID: "a~b", Brain: "/b",
		Clauses: []string{contract.ClauseWorktree}, Paths: []string{"/b/wt"}}}}
	changed, err := contracttest.EachFieldChanged(base.Collisions[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changed {
		if RosterSig(contract.PresencesResponse{Collisions: []contract.Collision{c.Value}}) == RosterSig(base) {
			t.Errorf("a change to collision %s leaves the roster's signature", c.Field)
		}
	}
	for _, d := range []contract.PresencesResponse{{Error: contract.RegistryUnreadable}, {Detail: "gone"}, {}} {
		if RosterSig(d) == RosterSig(base) {
			t.Errorf("%+v: same signature as a roster with a collision", d)
		}
	}
	// The boundary between fields is kept: moving a letter from one
	// field to the next is a change.
	if RosterSig(contract.PresencesResponse{Error: "ab"}) == RosterSig(contract.PresencesResponse{Error: "a", Detail: "b"}) {
		t.Error("fields run into each other")
	}
}

// TestRosterSigSeesEveryOverlapField: a change to any field of an
// overlap (it became a conflict, a file joined, a side's branch moved),
// or to how many there are, changes the roster's signature: a quiet
// stream that missed it is found out.
func TestRosterSigSeesEveryOverlapField(t *testing.T) {
	base := contract.PresencesResponse{Overlaps: []contract.Overlap{{OverlapID: "a~b", Brain: "/b", Verdict: contract.VerdictOverlap,
		Files: []contract.OverlapFile{{Path: "x.go", A: []string{"observed"}, B: []string{"git"}}}, Conflicts: []string{}}}, OverlapsTotal: 1}
	changed, err := contracttest.EachFieldChanged(base.Overlaps[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changed {
		if RosterSig(contract.PresencesResponse{Overlaps: []contract.Overlap{c.Value}, OverlapsTotal: 1}) == RosterSig(base) {
			t.Errorf("a change to overlap %s leaves the roster's signature", c.Field)
		}
	}
	if RosterSig(contract.PresencesResponse{Overlaps: base.Overlaps, OverlapsTotal: 2}) == RosterSig(base) {
		t.Error("a change to overlaps_total leaves the roster's signature")
	}
}
