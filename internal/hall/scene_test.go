package hall

import (
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/shellguard"
)

// TestSceneSourceOf: a hook answer reads the live roster only at a
// session's start and before a shell command, the partners from its own
// beat only before a file change while colliding, and nothing more on
// every other call.
func TestSceneSourceOf(t *testing.T) {
	edit := contract.BeatRequest{Touched: []string{"/srv/shop/cart.go"}}
	colliding := []string{"collision: codex-2 (prs_0d5c63d0ce54) also mutating at /srv/shop [same_worktree]"}
	for _, tc := range []struct {
		name  string
		hb    contract.HookBeat
		req   contract.BeatRequest
		north []string
		want  sceneSource
	}{
		{"start", contract.HookBeat{Moment: contract.MomentStart}, contract.BeatRequest{}, nil, sceneOfRoster},
		{"a shell command", contract.HookBeat{Moment: contract.MomentBefore, Command: "git add -A"}, contract.BeatRequest{}, nil, sceneOfRoster},
		{"a shell command too long to send", contract.HookBeat{Moment: contract.MomentBefore, CommandCut: true}, contract.BeatRequest{}, nil, sceneOfRoster},
		{"an edit while colliding", contract.HookBeat{Moment: contract.MomentBefore}, edit, colliding, sceneOfPartners},
		{"an edit alone", contract.HookBeat{Moment: contract.MomentBefore}, edit, nil, noScene},
		{"a read while colliding", contract.HookBeat{Moment: contract.MomentBefore}, contract.BeatRequest{}, colliding, noScene},
		{"after a tool", contract.HookBeat{Moment: contract.MomentAfter, Command: "git add -A"}, edit, colliding, noScene},
	} {
		if got := sceneSourceOf(&tc.hb, tc.req, tc.north); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestStateOf: what the guard is told of a file another presence was seen
// changing, from git's answer: git's own state where it lists the file,
// committed where it lists it only as committed on the branch or not at
// all, and "seen" where git has not answered or its list stops short.
func TestStateOf(t *testing.T) {
	changes := gitscan.Changes{
		Files:  []string{"both.go", "committed-then-edited.go", "committed.go", "modified.go", "new.go", "staged.go"}, // sorted, as git's
		States: []gitscan.FileState{gitscan.Staged | gitscan.Modified, gitscan.Committed | gitscan.Modified, gitscan.Committed, gitscan.Modified, gitscan.Untracked, gitscan.Staged},
		Total:  6,
	}
	bounded := changes
	bounded.Total = 9 // three more changed than listed
	cut := changes
	cut.Cut = true
	for _, tc := range []struct {
		name    string
		changes *gitscan.Changes
		file    string
		want    shellguard.State
	}{
		{"git unknown", nil, "modified.go", shellguard.Seen},
		{"modified", &changes, "modified.go", shellguard.Modified},
		{"staged", &changes, "staged.go", shellguard.Staged},
		{"staged and modified again", &changes, "both.go", shellguard.StagedModified},
		{"untracked", &changes, "new.go", shellguard.Untracked},
		{"committed on the branch", &changes, "committed.go", shellguard.Committed},
		{"committed, then modified", &changes, "committed-then-edited.go", shellguard.Modified},
		{"not listed by a complete list", &changes, "other.go", shellguard.Committed},
		{"not listed by a bounded list", &bounded, "other.go", shellguard.Seen},
		{"not listed by a cut list", &cut, "other.go", shellguard.Seen},
		{"listed by a bounded list", &bounded, "staged.go", shellguard.Staged},
	} {
		if got := stateOf(tc.changes, tc.file); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
