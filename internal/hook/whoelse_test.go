package hook

import (
	"testing"

	"github.com/hall-dev/hall/internal/contract"
)

// TestWhoElse: the warning's first sentence names what lies between the
// sides told, each kind once; a pushed branch is no agent.
func TestWhoElse(t *testing.T) {
	o := func(across string) contract.Overlap { return contract.Overlap{Across: across} }
	for _, tc := range []struct {
		in   []contract.Overlap
		want string
	}{
		{[]contract.Overlap{o("")}, "another agent, in another worktree,"},
		{[]contract.Overlap{o(contract.AcrossWorktree), o(contract.AcrossWorktree)}, "another agent, in another worktree,"},
		{[]contract.Overlap{o(contract.AcrossClone)}, "another agent, in another clone,"},
		{[]contract.Overlap{o(contract.AcrossHost), o(contract.AcrossClone)}, "another agent, in another clone or on another machine,"},
		{[]contract.Overlap{o(contract.AcrossPushed)}, "a branch pushed to the remote"},
		{[]contract.Overlap{o(contract.AcrossPushed), o(contract.AcrossWorktree)}, "another agent, in another worktree, or a branch pushed to the remote"},
	} {
		if got := whoElse(tc.in); got != tc.want {
			t.Errorf("whoElse(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
