package hall

import (
	"testing"

	"github.com/hall-dev/hall/internal/contract"
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
