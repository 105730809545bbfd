package shellguard

import "testing"

// TestActionNames: each action's verb phrase (the renderer's) and stable
// code, from the one table; an action outside it is "touch", "unknown".
func TestActionNames(t *testing.T) {
	for _, tc := range []struct {
		a          Action
		verb, code string
	}{
		{Stage, "stage", "stage"},
		{Commit, "commit", "commit"},
		{Discard, "discard", "discard"},
		{Stash, "stash away", "stash"},
		{Unstage, "unstage", "unstage"},
		{Overwrite, "overwrite", "overwrite"},
		{Move, "move away", "move"},
		{Delete, "delete", "delete"},
		{MoveBranch, "move the branch under", "move_branch"},
		{Run, "touch", "run"},
		{0, "touch", "unknown"},
		{Run + 1, "touch", "unknown"},
		{255, "touch", "unknown"},
	} {
		if got := tc.a.String(); got != tc.verb {
			t.Errorf("Action(%d).String() = %q, want %q", tc.a, got, tc.verb)
		}
		if got := tc.a.Code(); got != tc.code {
			t.Errorf("Action(%d).Code() = %q, want %q", tc.a, got, tc.code)
		}
	}
}
