package hall_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
)

// TestShellRunRescansTheWorktree (issue 33, row 6): A edits cart.go and
// the Hall's scanner (real git, the test's clock, an interval of an hour)
// lists it, so B's `git add -A` is warned of it. A then discards it with
// `git checkout .` through its shell tool: that tool's after-tool hook has
// the scanner look again at once, though the interval has not ended (the
// clock never moves), and B's next `git add -A` is told nothing of it.
func TestShellRunRescansTheWorktree(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "gemini"} {
		t.Run(agent, func(t *testing.T) {
			h, _, _ := newHall(t)
			s := newShop(t)
			sc := quietScanner(t)
			h.Git = sc
			hook := func(payload []byte) string {
				t.Helper()
				ans, err := h.Hook(t.Context(), hall.HookRequest{Agent: agent, Payload: payload})
				if err != nil {
					t.Fatal(err)
				}
				if agent == "gemini" && !strings.Contains(string(ans.Output), "additionalContext") {
					return personText(t, ans.Output) // BeforeTool: the person reads it first
				}
				return modelText(t, agent, ans.Output)
			}
			listed := func(want bool) func() bool {
				return func() bool {
					res, ok := sc.Result(s.wt2)
					return ok && slices.Contains(res.Changes.Files, "src/cart.go") == want
				}
			}
			const a, b = "a1a2-5e55-1on", "b1b2-5e55-1on"
			cart := filepath.Join(s.wt2, "src", "cart.go")
			gittest.WriteFile(t, cart, "package src\n\nfunc Total() int { return 2 }\n")
			hook(editPayload(agent, a, s.wt2, cart))
			eventually.True(t, 30*time.Second, "git lists cart.go", listed(true))
			if got := hook(shellPayload(agent, b, s.wt2, "git add -A")); !strings.Contains(got, `"src/cart.go" (modified)`) {
				t.Fatalf("B's git add -A reads %q; want A's cart.go named", got)
			}

			gittest.Git(t, s.wt2, "checkout", ".")
			ev := agentEvents[agent]
			after := map[string]string{"claude": "PostToolUse", "codex": "PostToolUse", "gemini": "AfterTool"}[agent]
			hook(payload(agent, a, s.wt2, after, ev.shellTool, map[string]any{"command": "git checkout ."}))
			eventually.True(t, 30*time.Second, "the scanner's answer without the discarded cart.go", listed(false))
			if got := hook(shellPayload(agent, b, s.wt2, "git add -A")); strings.Contains(got, "src/cart.go") {
				t.Errorf("after A discarded cart.go, B's git add -A reads %q; want it not named", got)
			}
			if st := sc.Stats(); st.Scans != 2 {
				t.Errorf("scans = %d, want 2: the edit's, then the shell's", st.Scans)
			}
		})
	}
}
