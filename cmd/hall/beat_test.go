package main

import (
	"bytes"
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/presence"
)

// runCLI runs the hall command line as a process would, capturing output.
func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	return hooktest.Payload(t, hooktest.ClaudeCode, name)
}

func TestBeatCommandAgainstHall(t *testing.T) {
	m := MustOpenHall(t, Config{Token: "s3cret"})
	wt := t.TempDir()
	code, _, stderr := runCLI(t, "", "beat", "--hall", m.URL(), "--token", "s3cret", "--agent-id", "claude-7",
		"--brain", "/srv/shop", "--caller-root", wt, "--worktree", wt, "--tool", "Edit", "--theme", "checkout")
	if code != 0 || stderr != "" {
		t.Fatalf("first beat: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "beat", "--hall", m.URL(), "--token", "s3cret", "--agent-id", "codex-2",
		"--brain", "/srv/shop", "--caller-root", wt, "--worktree", wt, "--intent", "mutate")
	if code != 0 || !strings.Contains(stderr, "hall: collision: claude-7") {
		t.Fatalf("second beat: exit %d, stderr %q, want a north line naming claude-7", code, stderr)
	}
	var roster contract.PresencesResponse
	getJSON(t, m.URL()+"/api/presences", &roster)
	if len(roster.Presences) != 2 || len(roster.Collisions) != 1 {
		t.Fatalf("roster: got %d presences and %d collisions, want 2 and 1", len(roster.Presences), len(roster.Collisions))
	}

	// A bad token is the script's mistake: exit 1 with the Hall's words.
	code, _, stderr = runCLI(t, "", "beat", "--hall", m.URL(), "--token", "nope", "--agent-id", "x", "--brain", "/srv/shop")
	if code != 1 || !strings.Contains(stderr, "401") {
		t.Errorf("bad token: exit %d, stderr %q, want exit 1 naming 401", code, stderr)
	}

	code, _, stderr = runCLI(t, "", "leave", "--hall", m.URL(), "--token", "s3cret", "--agent-id", "codex-2", "--brain", "/srv/shop")
	if code != 0 {
		t.Fatalf("leave: exit %d, stderr %q", code, stderr)
	}
	getJSON(t, m.URL()+"/api/presences", &roster)
	if len(roster.Presences) != 1 || len(roster.Collisions) != 0 {
		t.Errorf("after leave: got %d presences and %d collisions, want 1 and 0", len(roster.Presences), len(roster.Collisions))
	}
}

// TestBeatCommandFailOpen: an unreachable Hall never fails the hook.
func TestBeatCommandFailOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	for _, args := range [][]string{
		{"beat", "--hall", dead, "--agent-id", "a", "--brain", "/srv/shop"},
		{"beat", "--hall", dead, "--hook", "claude"},
		{"leave", "--hall", dead, "--agent-id", "a", "--brain", "/srv/shop"},
	} {
		code, _, stderr := runCLI(t, fixture(t, "post-tool-use-edit.json"), args...)
		if code != 0 || !strings.Contains(stderr, "warning") || !strings.Contains(stderr, "unreachable") {
			t.Errorf("%v: exit %d, stderr %q, want exit 0 and a warning", args, code, stderr)
		}
	}
	// A hook payload that is not JSON: a warning, exit 0.
	code, _, stderr := runCLI(t, "not json", "beat", "--hall", dead, "--hook", "claude")
	if code != 0 || !strings.Contains(stderr, "warning") {
		t.Errorf("garbage payload: exit %d, stderr %q", code, stderr)
	}
	// Without --hook, a missing agent is a usage error.
	if code, _, _ := runCLI(t, "", "beat", "--hall", dead, "--brain", "/srv/shop"); code != 2 {
		t.Errorf("missing --agent-id: exit %d, want 2", code)
	}
}

// TestBeatCommandClaudeHookDirect replays recorded Claude Code hook
// payloads straight into a temp registry through the same store code.
func TestBeatCommandClaudeHookDirect(t *testing.T) {
	root := t.TempDir()
	hook := func(name string) {
		t.Helper()
		code, _, stderr := runCLI(t, fixture(t, name), "beat", "--hook", "claude", "--registry-root", root, "--theme", "checkout refactor")
		if code != 0 || strings.Contains(stderr, "warning") {
			t.Fatalf("%s: exit %d, stderr %q", name, code, stderr)
		}
	}
	store := dirstore.New(root)
	id := presence.ID(hooktest.AgentID(hooktest.ClaudeCode, ""), "/home/ana/shop-wt2")

	hook("session-start.json")
	r, err := store.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("after SessionStart: %v", err)
	}
	if r.CallerRoot != "/home/ana/shop-wt2" || r.Kind != "claude-code" || r.Theme != "checkout refactor" || r.Mutating() {
		t.Errorf("after SessionStart: got %+v", r)
	}

	hook("post-tool-use-read.json")
	if r, _ = store.Get(t.Context(), id); r.Mutating() || r.QueryCount != 2 {
		t.Errorf("after Read: got mutating=%v query_count=%d, want not mutating and 2", r.Mutating(), r.QueryCount)
	}
	hook("post-tool-use-edit.json")
	if r, _ = store.Get(t.Context(), id); r.Mutation.Level() != presence.LevelObserved || r.QueryCount != 3 {
		t.Errorf("after Edit: got level %s query_count=%d, want observed and 3", r.Mutation.Level(), r.QueryCount)
	}

	// A second session writing in the same cwd collides; its hook says so
	// in the model's context (stdout), not on stderr.
	other := strings.ReplaceAll(fixture(t, "pre-tool-use-write.json"), "7d0c5e2a-4b1f", "99990000-4b1f")
	code, stdout, stderr := runCLI(t, other, "beat", "--hook", "claude", "--registry-root", root)
	var out struct {
		HookSpecificOutput struct{ HookEventName, AdditionalContext string }
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != 0 || stderr != "" {
		t.Fatalf("second session: exit %d, stdout %q (%v), stderr %q", code, stdout, err, stderr)
	}
	if ctx := out.HookSpecificOutput.AdditionalContext; out.HookSpecificOutput.HookEventName != "PreToolUse" ||
		!strings.Contains(ctx, "collision: "+hooktest.AgentID(hooktest.ClaudeCode, "")) || !strings.Contains(ctx, "same_caller_root") {
		t.Errorf("second session: got %+v, want PreToolUse context naming the first session and the clause", out)
	}

	hook("session-end.json")
	if _, err := store.Get(t.Context(), id); presence.ErrorCode(err) != presence.ENOTFOUND {
		t.Errorf("after SessionEnd: got err %v, want the presence gone", err)
	}
}
