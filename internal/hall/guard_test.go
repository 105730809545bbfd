package hall_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hallclient"
	"github.com/hall-dev/hall/internal/presence/overlap"
)

// gitIn runs the real git in dir with a fixed identity.
func gitIn(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	full := append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgSign=false"}, args...)
	out, err := exec.Command("git", full...).CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(tb testing.TB, p, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// shop is a real repository with a second worktree: main holds
// src/cart.go and src/search.go committed.
type shop struct {
	main, wt2 string
}

func newShop(t *testing.T) shop {
	t.Helper()
	dir := t.TempDir()
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := shop{main: filepath.Join(dir, "shop"), wt2: filepath.Join(dir, "shop-wt2")}
	if err := os.MkdirAll(s.main, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, s.main, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(s.main, "src", "cart.go"), "package src\n")
	writeFile(t, filepath.Join(s.main, "src", "search.go"), "package src\n")
	gitIn(t, s.main, "add", "-A")
	gitIn(t, s.main, "commit", "-q", "-m", "init")
	gitIn(t, s.main, "worktree", "add", "-q", s.wt2, "-b", "wt2", "main")
	return s
}

// gitCache is git's answer for each worktree as the background scanner
// keeps it, taken here with the real git (the hook answer reads it and
// never runs git itself).
type gitCache map[string]gitscan.Result

func (g gitCache) Result(wt string) (gitscan.Result, bool) {
	r, ok := g[filepath.Clean(wt)]
	return r, ok
}

// The scanner's steering and merge answers, which the guard never uses.
func (gitCache) Mutated(string, ...string)                  {}
func (gitCache) Track([]string)                             {}
func (gitCache) Merge(string, string) (overlap.Merge, bool) { return overlap.Merge{}, false }

func (g gitCache) scan(t *testing.T, wts ...string) {
	t.Helper()
	r, err := gitscan.NewRunner(context.Background(), gitscan.RunnerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for _, wt := range wts {
		c, err := r.Changes(context.Background(), wt, gitscan.ChangesOptions{})
		if err != nil {
			t.Fatalf("git changes of %s: %v", wt, err)
		}
		g[filepath.Clean(wt)] = gitscan.Result{Changes: c}
	}
}

// payload is one hook payload in the agent's own shape.
func payload(agent, session, cwd, event, tool string, input any) []byte {
	in, _ := json.Marshal(input)
	var p map[string]any
	switch agent {
	case "cursor":
		p = map[string]any{"hook_event_name": event, "conversation_id": session, "workspace_roots": []string{cwd}, "cwd": cwd}
		if m, ok := input.(map[string]any); ok {
			for k, v := range m {
				p[k] = v
			}
		}
		if tool != "" {
			p["tool_name"] = tool
			p["tool_input"] = json.RawMessage(in)
		}
	default:
		p = map[string]any{"session_id": session, "cwd": cwd, "hook_event_name": event}
		if tool != "" {
			p["tool_name"] = tool
			p["tool_input"] = json.RawMessage(in)
		}
	}
	b, _ := json.Marshal(p)
	return b
}

// events names each agent's hook events for the moments a test plays.
type events struct{ start, prompt, shell, shellTool, edit string }

var agentEvents = map[string]events{
	"claude": {start: "SessionStart", prompt: "UserPromptSubmit", shell: "PreToolUse", shellTool: "Bash", edit: "PreToolUse"},
	"codex":  {start: "SessionStart", prompt: "UserPromptSubmit", shell: "PreToolUse", shellTool: "Bash", edit: "PreToolUse"},
	"cursor": {start: "sessionStart", shell: "beforeShellExecution", edit: "preToolUse"},
	"gemini": {start: "SessionStart", prompt: "BeforeAgent", shell: "BeforeTool", shellTool: "run_shell_command", edit: "BeforeTool"},
}

// shellPayload is the agent's pre-event of its shell tool running line.
func shellPayload(agent, session, cwd, line string) []byte {
	ev := agentEvents[agent]
	if agent == "cursor" {
		return payload(agent, session, cwd, ev.shell, "", map[string]any{"command": line})
	}
	return payload(agent, session, cwd, ev.shell, ev.shellTool, map[string]any{"command": line})
}

// editPayload is the agent's pre-event of an edit of file.
func editPayload(agent, session, cwd, file string) []byte {
	switch agent {
	case "codex":
		rel, _ := filepath.Rel(cwd, file)
		return payload(agent, session, cwd, "PreToolUse", "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: " + rel + "\n@@\n-x\n+y\n*** End Patch\n"})
	case "cursor":
		return payload(agent, session, cwd, "preToolUse", "Write", map[string]any{"file_path": file})
	case "gemini":
		return payload(agent, session, cwd, "BeforeTool", "replace", map[string]any{"file_path": file, "old_string": "x", "new_string": "y"})
	}
	return payload(agent, session, cwd, "PreToolUse", "Edit", map[string]any{"file_path": file, "old_string": "x", "new_string": "y"})
}

// modelText is what the model reads of a hook answer: the field each
// agent puts in its context (Gemini CLI's BeforeTool takes none: there
// the person reads systemMessage, and it is that).
func modelText(t *testing.T, agent string, out []byte) string {
	t.Helper()
	if len(out) == 0 {
		return ""
	}
	var v struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
		AgentMessage      string `json:"agent_message"`
		SystemMessage     string `json:"systemMessage"`
		AdditionalContext string `json:"additional_context"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s answer %s: %v", agent, out, err)
	}
	switch agent {
	case "cursor":
		return v.AgentMessage + v.AdditionalContext
	case "gemini":
		return v.HookSpecificOutput.AdditionalContext + v.SystemMessage
	}
	return v.HookSpecificOutput.AdditionalContext
}

// transport answers one hook payload on a Hall, as one surface does.
type transport struct {
	name string
	hook func(t *testing.T, h *hall.Hall, agent string, body []byte) []byte
}

var transports = []transport{
	{"in process", func(t *testing.T, h *hall.Hall, agent string, body []byte) []byte {
		ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: agent, Payload: body})
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
		return ans.Output
	}},
	{"http hook endpoint", func(t *testing.T, h *hall.Hall, agent string, body []byte) []byte {
		c := overHTTP(t, h)
		resp, err := http.Post(c.Base+"/api/hooks/"+agent, "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var raw json.RawMessage
		if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /api/hooks/%s: %d %v", agent, resp.StatusCode, err)
		}
		if string(raw) == "{}" {
			return nil
		}
		return raw
	}},
	{"command hook over http", func(t *testing.T, h *hall.Hall, agent string, body []byte) []byte {
		// `hall beat --hook` runs the hook operation in its own process
		// and reaches the Hall through hallclient: the guard still runs
		// on the Hall's side.
		var b hall.Beater = overHTTP(t, h)
		ans, err := hall.Hook(context.Background(), b, hall.HookRequest{Agent: agent, Payload: body, Mutating: h.Mutating})
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
		return ans.Output
	}},
}

var _ hall.Beater = (*hallclient.HTTP)(nil)

// TestHookGuardAndOwnership plays two sessions of each agent kind in one
// real worktree: the other edits src/cart.go (the file really changed,
// git's answer cached), then this one starts, takes a prompt, and runs a
// guarded command and a harmless one, over each surface.
func TestHookGuardAndOwnership(t *testing.T) {
	for _, tr := range transports {
		for agent, ev := range agentEvents {
			t.Run(tr.name+"/"+agent, func(t *testing.T) {
				h, _, _ := newHall(t)
				s := newShop(t)
				git := gitCache{}
				h.Git = git
				other := "codex"
				if agent == "codex" {
					other = "claude"
				}
				cart := filepath.Join(s.wt2, "src", "cart.go")
				// The other session edits cart.go: the hook sees it, git sees it.
				tr.hook(t, h, other, editPayload(other, "0ther-5e55-1on", s.wt2, cart))
				writeFile(t, cart, "package src\n\nfunc Total() int { return 2 }\n")
				git.scan(t, s.main, s.wt2)
				otherID := other + "-0ther-5e"

				me := "5e1f-5e55-1on"
				start := modelText(t, agent, tr.hook(t, h, agent, payload(agent, me, s.wt2, ev.start, "", nil)))
				for _, want := range []string{"src/cart.go", otherID, "not yours to revert, commit or stop for", "git still lists them changed"} {
					if !strings.Contains(start, want) {
						t.Errorf("%s: the model reads %q; want it to name %q", ev.start, start, want)
					}
				}
				if ev.prompt != "" {
					prompt := modelText(t, agent, tr.hook(t, h, agent, payload(agent, me, s.wt2, ev.prompt, "", nil)))
					if !strings.Contains(prompt, "src/cart.go") || !strings.Contains(prompt, otherID) {
						t.Errorf("%s: the model reads %q; want the ownership lines", ev.prompt, prompt)
					}
				}

				guarded := modelText(t, agent, tr.hook(t, h, agent, shellPayload(agent, me, s.wt2, "git add -A && git commit -m wip")))
				for _, want := range []string{"shell guard: `git add -A`", "stage", `"src/cart.go"`, otherID} {
					if !strings.Contains(guarded, want) {
						t.Errorf("guarded command: the model reads %q; want %q", guarded, want)
					}
				}
				harmless := modelText(t, agent, tr.hook(t, h, agent, shellPayload(agent, me, s.wt2, "go test ./...")))
				if strings.Contains(harmless, "shell guard") {
					t.Errorf("harmless command: the model reads %q; want no guard line", harmless)
				}
			})
		}
	}
}

// TestGuardFollowsGit: once git no longer lists the other's file (it was
// committed), the guard no longer names it; with no git answer at all the
// file is "seen, git unknown" and guards.
func TestGuardFollowsGit(t *testing.T) {
	h, _, _ := newHall(t)
	s := newShop(t)
	git := gitCache{}
	h.Git = git
	cart := filepath.Join(s.wt2, "src", "cart.go")
	hook := func(agent string, body []byte) string {
		ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: agent, Payload: body})
		if err != nil {
			t.Fatal(err)
		}
		return modelText(t, agent, ans.Output)
	}
	hook("codex", editPayload("codex", "0ther-5e55-1on", s.wt2, cart))
	writeFile(t, cart, "package src\n\nfunc Total() int { return 2 }\n")

	unknown := hook("claude", shellPayload("claude", "5e1f-5e55-1on", s.wt2, "git stash"))
	if !strings.Contains(unknown, `"src/cart.go" (changed)`) {
		t.Errorf("no git answer: the model reads %q; want the file, seen changing, to guard", unknown)
	}
	gitIn(t, s.wt2, "add", "-A")
	gitIn(t, s.wt2, "commit", "-q", "-m", "cart")
	gitIn(t, s.main, "merge", "-q", "wt2") // on the base too: git lists nothing changed
	git.scan(t, s.wt2)
	committed := hook("claude", shellPayload("claude", "5e1f-5e55-1on", s.wt2, "git stash"))
	if strings.Contains(committed, "shell guard") {
		t.Errorf("committed work: the model reads %q; want no guard line", committed)
	}
}

// TestGuardAsk: under --on-collision ask a guarded command asks the
// person where the agent honours it (Claude Code's PreToolUse, Cursor's
// beforeShellExecution); never a deny, never an allow.
func TestGuardAsk(t *testing.T) {
	for _, agent := range []string{"claude", "cursor"} {
		t.Run(agent, func(t *testing.T) {
			h, _, _ := newHall(t)
			s := newShop(t)
			cart := filepath.Join(s.wt2, "src", "cart.go")
			if _, err := h.Hook(context.Background(), hall.HookRequest{Agent: "codex", Payload: editPayload("codex", "0ther-5e55-1on", s.wt2, cart)}); err != nil {
				t.Fatal(err)
			}
			for line, wantAsk := range map[string]bool{"git checkout -- src": true, "ls src": false} {
				ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: agent, Policy: "ask", Payload: shellPayload(agent, "5e1f-5e55-1on", s.wt2, line)})
				if err != nil {
					t.Fatal(err)
				}
				out := string(ans.Output)
				if got := strings.Contains(out, `"ask"`); got != wantAsk {
					t.Errorf("%q: ask %v, want %v: %s", line, got, wantAsk, out)
				}
				if strings.Contains(out, `"deny"`) || strings.Contains(out, `"allow"`) {
					t.Errorf("%q: %s: the Hall never denies nor allows", line, out)
				}
			}
		})
	}
}

// TestHookBeatBounds: a hook beat's own fields are refused as a beat's
// are, writing nothing.
func TestHookBeatBounds(t *testing.T) {
	h, _, dir := newHall(t)
	for name, hb := range map[string]*contract.HookBeat{
		"unknown moment":   {Moment: "whenever"},
		"command too long": {Moment: contract.MomentBefore, Command: strings.Repeat("x", contract.MaxCommand+1)},
	} {
		_, err := h.Beat(context.Background(), contract.BeatRequest{AgentID: "a", Brain: "/srv/shop", Hook: hb})
		if code(err) == "" {
			t.Errorf("%s: accepted", name)
		}
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("the store holds %d files, want none", len(names))
	}
}
