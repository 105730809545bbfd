package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/hooktest"
)

// shellHook is an agent's pre-event of its shell tool running line, in
// the agent's own payload shape.
func shellHook(agent, session, cwd, line string) string {
	var p map[string]any
	switch agent {
	case "cursor":
		p = map[string]any{"hook_event_name": "beforeShellExecution", "conversation_id": session, "workspace_roots": []string{cwd}, "cwd": cwd, "command": line}
	case "gemini":
		p = map[string]any{"hook_event_name": "BeforeTool", "session_id": session, "cwd": cwd, "tool_name": "run_shell_command", "tool_input": map[string]any{"command": line}}
	default:
		p = map[string]any{"hook_event_name": "PreToolUse", "session_id": session, "cwd": cwd, "tool_name": "Bash", "tool_input": map[string]any{"command": line}}
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// TestHooksShellGuard plays, for each agent and through each path (the
// command, the lean command, the HTTP hook), two sessions of that agent in
// one real git worktree: A edits the cart; B starts and hears whose
// changes those are; B's guarded command (git add -A && git commit) gets
// the guard's warning naming A and the file; its harmless one (go test)
// gets none.
func TestHooksShellGuard(t *testing.T) {
	for _, s := range []struct {
		agent, folder, start, edit, aID string
	}{
		{"claude", hooktest.ClaudeCode, "session-start.json", "post-tool-use-edit.json", "claude-7d0c5e2a"},
		{"codex", hooktest.Codex, "session-start.json", "pre-tool-use-apply-patch.json", "codex-0199a1f2"},
		{"cursor", hooktest.Cursor, "session-start.json", "after-file-edit.json", "cursor-c5b1e0d2"},
		{"gemini", hooktest.GeminiCLI, "session-start.json", "before-tool-replace.json", "gemini-5f2c9e1a"},
	} {
		for _, path := range hookPaths {
			t.Run(s.agent+"/"+path.name, func(t *testing.T) {
				m := MustOpenHall(t, Config{})
				repo := hooktest.GitRepo(t)
				const bSession = "b1b2b3b4-0000-4000-8000-000000000000"
				path.call(t, m, s.agent, hooktest.Moved(t, s.folder, s.edit, repo.Worktree, ""), "warn")

				start, _ := told(t, s.agent, path.call(t, m, s.agent, hooktest.Moved(t, s.folder, s.start, repo.Worktree, bSession), "warn"))
				for _, want := range []string{s.aID, "src/checkout/cart.go", "not yours to revert, commit or stop for"} {
					if !strings.Contains(start, want) {
						t.Errorf("B's start: the model reads %q; want %q", start, want)
					}
				}
				guarded, _ := told(t, s.agent, path.call(t, m, s.agent, shellHook(s.agent, bSession, repo.Worktree, "git add -A && git commit -m wip"), "warn"))
				for _, want := range []string{"shell guard: `git add -A` would stage", s.aID, `"src/checkout/cart.go"`} {
					if !strings.Contains(guarded, want) {
						t.Errorf("B's guarded command: %q; want %q", guarded, want)
					}
				}
				harmless, _ := told(t, s.agent, path.call(t, m, s.agent, shellHook(s.agent, bSession, repo.Worktree, "go test ./..."), "warn"))
				if strings.Contains(harmless, "shell guard") {
					t.Errorf("B's harmless command: %q; want no guard line", harmless)
				}
			})
		}
	}
}
