package contract_test

import (
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/contracttest"
)

// TestPresenceEqualSeesEveryField: a change in any wire field of a
// presence is a difference, including fields added to the contract later.
func TestPresenceEqualSeesEveryField(t *testing.T) {
	base := contract.Presence{PresenceID: "prs_a", WorkingSet: []string{"x"}, Touched: []contract.Touch{{Path: "f", AtMs: 1}}}
	testEqualSeesEveryField(t, base, contract.Presence.Equal)
}

// TestCollisionEqualSeesEveryField: the same for a collision.
func TestCollisionEqualSeesEveryField(t *testing.T) {
	base := contract.Collision{CollisionID: "a~b", Brain: "/b", Clauses: []string{contract.ClauseWorktree}, Paths: []string{"/b/wt"}}
	testEqualSeesEveryField(t, base, contract.Collision.Equal)
}

func testEqualSeesEveryField[T any](t *testing.T, base T, equal func(T, T) bool) {
	t.Helper()
	changed, err := contracttest.EachFieldChanged(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) < 5 {
		t.Fatalf("only %d fields changed: the walk is broken", len(changed))
	}
	for _, c := range changed {
		if equal(base, c.Value) || equal(c.Value, base) {
			t.Errorf("a change to %s is not seen: Equal must compare it", c.Field)
		}
		if !equal(c.Value, c.Value) {
			t.Errorf("changed at %s, a value differs from itself", c.Field)
		}
	}
	if !equal(base, base) {
		t.Error("a value differs from itself")
	}
}
