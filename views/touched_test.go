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

func TestChangedPaths(t *testing.T) {
	touched := func(paths ...string) []contract.Touch {
		out := make([]contract.Touch, len(paths))
		for i, p := range paths {
			out[i] = contract.Touch{Path: p}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		p    contract.Presence
		want []string
	}{
		{"under its worktree: relative", contract.Presence{Worktree: "/home/ana/shop-wt2", Touched: touched("/home/ana/shop-wt2/src/checkout/cart.go")}, []string{"src/checkout/cart.go"}},
		{"under its caller root when it has no worktree", contract.Presence{CallerRoot: "/home/ana/shop/", Touched: touched("/home/ana/shop/go.mod")}, []string{"go.mod"}},
		{"elsewhere: shortened", contract.Presence{Worktree: "/home/ana/shop-wt2", Touched: touched("/home/ana/shop-wt3/internal/search/index.go")}, []string{"…/search/index.go"}},
		{"a sibling with the same prefix is elsewhere", contract.Presence{Worktree: "/home/ana/shop", Touched: touched("/home/ana/shop-wt2/a/b/c.go")}, []string{"…/b/c.go"}},
		{"nothing changed", contract.Presence{Worktree: "/w"}, []string{}},
	} {
		if got := ChangedPaths(tc.p); !slices.Equal(got, tc.want) {
			t.Errorf("%s: ChangedPaths = %q, want %q", tc.name, got, tc.want)
		}
	}
}
