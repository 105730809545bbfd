package importgraph

import (
	"slices"
	"strings"
	"testing"
)

// TestReach: a package reached through another is found, with a
// shortest chain from the package walked.
func TestReach(t *testing.T) {
	got, err := Reach(".")
	if err != nil {
		t.Fatal(err)
	}
	const self = "github.com/hall-dev/hall/internal/importgraph"
	if chain := got["os/exec"]; !slices.Equal(chain, []string{self, "os/exec"}) {
		t.Errorf("os/exec by %v, want imported directly", chain)
	}
	if chain := got["internal/godebug"]; len(chain) < 3 || chain[0] != self {
		t.Errorf("internal/godebug by %v, want reached through another package", chain)
	}
	if _, ok := got[self]; ok {
		t.Error("the package walked is in its own reach")
	}
}

// TestRuleCheck: a forbidden package is found however deep, with its
// chain, and the walk stops there; a known package is not walked
// through, and one that leads to nothing forbidden is a finding; the
// module's packages outside Allowed are findings.
func TestRuleCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		rule Rule
		want []string // each a finding's prefix
	}{
		{"direct", Rule{Forbidden: []string{"os/exec"}}, []string{"reaches os/exec (github.com/hall-dev/hall/internal/importgraph → os/exec)"}},
		{"deep", Rule{Forbidden: []string{"internal/godebug"}}, []string{"reaches internal/godebug (github.com/hall-dev/hall/internal/importgraph → "}},
		// context is reached through os/exec alone.
		{"through another package", Rule{Forbidden: []string{"context"}}, []string{"reaches context (github.com/hall-dev/hall/internal/importgraph → os/exec → context)"}},
		{"through a known package", Rule{Forbidden: []string{"context"}, Known: map[string]string{"os/exec": "why"}}, nil},
		{"a known package leading nowhere forbidden", Rule{Forbidden: []string{"context"}, Known: map[string]string{"os/exec": "why", "unicode": "why"}}, []string{"reaches nothing forbidden through unicode any more"}},
		{"outside the allowed list", Rule{Module: "os", Allowed: []string{"os/user"}}, []string{"reaches os, not in its allowed list", "reaches os/exec, not in its allowed list"}},
		{"nothing", Rule{Forbidden: []string{"net/http"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.rule.Check(".")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("findings %q, want %d: %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("finding %q, want it to begin %q", got[i], w)
				}
			}
		})
	}
}
