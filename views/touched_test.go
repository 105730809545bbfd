package views

import (
	"slices"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
)

func TestRosterRows(t *testing.T) {
	ps := []contract.Presence{
		{PresenceID: "sub1", ParentPresenceID: "s"},
		{PresenceID: "other"},
		{PresenceID: "orphan", ParentPresenceID: "gone"}, // its session is not live: it keeps its place
		{PresenceID: "s"},
		{PresenceID: "sub2", ParentPresenceID: "s"},
		{PresenceID: "late"},
	}
	for _, tc := range []struct {
		name      string
		colliding []string
		want      []string
	}{
		{"none colliding: subagents under their session", nil, []string{"other", "orphan", "s", "sub1", "sub2", "late"}},
		{"a colliding row leads", []string{"late"}, []string{"late", "other", "orphan", "s", "sub1", "sub2"}},
		{"a colliding subagent brings its team first", []string{"sub2"}, []string{"s", "sub1", "sub2", "other", "orphan", "late"}},
		{"colliders keep the contract's order", []string{"late", "orphan"}, []string{"orphan", "late", "other", "s", "sub1", "sub2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			colliding := map[string]bool{}
			for _, id := range tc.colliding {
				colliding[id] = true
			}
			var got []string
			for _, p := range RosterRows(ps, colliding) {
				got = append(got, p.PresenceID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("RosterRows = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTouchedText(t *testing.T) {
	for _, tc := range []struct {
		p    contract.Presence
		want string
	}{
		{contract.Presence{}, ""},
		{contract.Presence{Touched: []contract.Touch{{Path: "/w/src/cart.go", AtMs: 2}}}, "changed cart.go"},
		{contract.Presence{Touched: []contract.Touch{{Path: "/w/a.go", AtMs: 2}, {Path: "/w/b.go", AtMs: 1}}, TouchedOmitted: 3}, "changed a.go +4"},
	} {
		if got := TouchedText(tc.p); got != tc.want {
			t.Errorf("TouchedText(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	if got := ClauseLabel("touched_overlap"); got != "both changed these files" {
		t.Errorf("ClauseLabel(touched_overlap) = %q", got)
	}
}
