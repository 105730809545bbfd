package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
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
		{"claude", hooktest.ClaudeCode, "session-start.json", "post-tool-use-edit.json", hooktest.AgentID(hooktest.ClaudeCode, "")},
		{"codex", hooktest.Codex, "session-start.json", "pre-tool-use-apply-patch.json", hooktest.AgentID(hooktest.Codex, "")},
		{"cursor", hooktest.Cursor, "session-start.json", "after-file-edit.json", hooktest.AgentID(hooktest.Cursor, "")},
		{"gemini", hooktest.GeminiCLI, "session-start.json", "before-tool-replace.json", hooktest.AgentID(hooktest.GeminiCLI, "")},
	} {
		for _, path := range hookPaths {
			t.Run(s.agent+"/"+path.name, func(t *testing.T) {
				m := MustOpenHall(t, Config{})
				repo := hooktest.GitRepo(t)
				bSession := hooktest.SessionB
				// A's edit really happens, before the hook that reports it
				// (whose beat has the Hall's scanner look): git, once it
				// answers, decides whether the file still holds A's work.
				if err := os.WriteFile(filepath.Join(repo.Worktree, "src", "checkout", "cart.go"), []byte("package checkout\n\n// A's edit\n"), 0o644); err != nil {
					t.Fatal(err)
				}
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
				if s.agent == "gemini" {
					// The person read that (systemMessage); the model
					// reads the guard's lines at the AfterTool, once.
					after := strings.Replace(shellHook(s.agent, bSession, repo.Worktree, "git add -A && git commit -m wip"), `"BeforeTool"`, `"AfterTool"`, 1)
					for i, want := range []bool{true, false} {
						out := path.call(t, m, s.agent, after, "warn")
						model, _ := told(t, s.agent, out)
						if got := strings.Contains(model, "shell guard: `git add -A` would stage") && strings.Contains(string(out), "additionalContext"); got != want {
							t.Errorf("AfterTool %d: the model reads %q; want the guard's lines %v", i+1, model, want)
						}
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

// TestHooksShellGuardCommittedWork: with the Hall's own scanner, A's file
// guards while git lists it modified, and no longer once A committed it
// on its feature branch through its shell tool (git lists it only as
// committed since the merge base): B's `git add -A` is then told
// nothing, nor is its start.
func TestHooksShellGuardCommittedWork(t *testing.T) {
	m := MustOpenHall(t, Config{})
	repo := hooktest.GitRepo(t)
	call := hookPaths[0].call
	bSession := hooktest.SessionB
	cart := filepath.Join(repo.Worktree, "src", "checkout", "cart.go")
	if err := os.WriteFile(cart, []byte("package checkout\n\n// A's edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	call(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Worktree, ""), "warn")
	gitState := func(want gitscan.FileState) func() bool {
		return func() bool {
			res, ok := m.GitScan.Result(repo.Worktree)
			st, listed := res.Changes.StateOf("src/checkout/cart.go")
			return ok && listed && st == want
		}
	}
	eventually.True(t, 30*time.Second, "git lists cart.go modified", gitState(gitscan.Modified))
	guarded, _ := told(t, "claude", call(t, m, "claude", shellHook("claude", bSession, repo.Worktree, "git add -A"), "warn"))
	if !strings.Contains(guarded, `"src/checkout/cart.go" (modified)`) {
		t.Errorf("A's file modified: B's `git add -A` reads %q; want the guard naming it", guarded)
	}

	gittest.Git(t, repo.Worktree, "commit", "-q", "-am", "A's cart")
	// A committed through its shell tool: that call's PostToolUse (a
	// mutating tool naming no file) has the scanner look again. An Edit of
	// cart.go would not: git lists it already, so it waits for the slow
	// rescan (docs/worktrees.md).
	var bash map[string]any
	if err := json.Unmarshal([]byte(hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Worktree, "")), &bash); err != nil {
		t.Fatal(err)
	}
	bash["tool_name"], bash["tool_input"], bash["tool_response"] = "Bash", map[string]any{"command": "git commit -q -am \"A's cart\""}, map[string]any{"stdout": "", "stderr": ""}
	body, err := json.Marshal(bash)
	if err != nil {
		t.Fatal(err)
	}
	call(t, m, "claude", string(body), "warn")
	eventually.True(t, 30*time.Second, "git lists cart.go committed on the branch", gitState(gitscan.Committed))
	after, _ := told(t, "claude", call(t, m, "claude", shellHook("claude", bSession, repo.Worktree, "git add -A && git commit -m wip"), "warn"))
	if strings.Contains(after, "shell guard") {
		t.Errorf("A's file committed on its branch: B's command reads %q; want no guard line", after)
	}
	start, _ := told(t, "claude", call(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "session-start.json", repo.Worktree, bSession), "warn"))
	if strings.Contains(start, "uncommitted changes") {
		t.Errorf("A's file committed on its branch: B's start reads %q; want no ownership lines", start)
	}
}
