package web

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/presence"
)

var jsonHeader = map[string]string{"Content-Type": "application/json"}

// claudeAnswer is Claude Code's (and Codex's) hook output.
type claudeAnswer struct {
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		AdditionalContext        string `json:"additionalContext"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// TestHookEndpointTwoClaudeSessions plays two Claude Code sessions in one
// real git worktree through POST /api/hooks/claude: the brain is the
// repository's main worktree, the second session's PreToolUse answer names
// the first, the first's next answer names the second, ask asks, and
// SessionEnd leaves.
func TestHookEndpointTwoClaudeSessions(t *testing.T) {
	th := newTestHall(t, "")
	repo := hooktest.GitRepo(t)
	a := func(name string) string {
		return hooktest.Moved(t, hooktest.ClaudeCode, name, repo.Worktree, "")
	}
	b := func(name string) string {
		return hooktest.Moved(t, hooktest.ClaudeCode, name, repo.Worktree, hooktest.SessionB)
	}
	post := func(body, query string) claudeAnswer {
		t.Helper()
		r := th.do(t, "POST", "/api/hooks/claude"+query, body, jsonHeader)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("status %d, content type %q: %s", r.status, r.header.Get("Content-Type"), r.body)
		}
		var out claudeAnswer
		r.decode(t, &out)
		return out
	}

	if out := post(a("session-start.json"), ""); out.HookSpecificOutput.HookEventName != "" {
		t.Errorf("A's SessionStart alone: got %+v, want {}", out)
	}
	post(a("post-tool-use-edit.json"), "")
	snap, err := th.svc.Snapshot(t.Context())
	if err != nil || len(snap.Live) != 1 {
		t.Fatalf("after A's edit: %d live, %v", len(snap.Live), err)
	}
	rec := snap.Live[0]
	if rec.Brain != repo.Main || rec.Worktree != repo.Worktree || rec.CallerRoot != repo.Worktree || rec.Kind != "claude-code" || rec.AgentID != hooktest.AgentID(hooktest.ClaudeCode, "") {
		t.Errorf("A's record: brain %q worktree %q caller_root %q kind %q agent %q; want brain %q (the main worktree)", rec.Brain, rec.Worktree, rec.CallerRoot, rec.Kind, rec.AgentID, repo.Main)
	}

	// B is about to write where A works: B's answer names A, the place and
	// the clause, in the model's context; no permission decision under warn.
	out := post(b("pre-tool-use-write.json"), "")
	h := out.HookSpecificOutput
	if h.HookEventName != "PreToolUse" || !strings.Contains(h.AdditionalContext, hooktest.AgentID(hooktest.ClaudeCode, "")) ||
		!strings.Contains(h.AdditionalContext, repo.Worktree) || !strings.Contains(h.AdditionalContext, "same_worktree") || h.PermissionDecision != "" {
		t.Errorf("B's PreToolUse: got %+v", h)
	}
	// A's next hook hears of B.
	out = post(a("post-tool-use-read.json"), "")
	if h := out.HookSpecificOutput; h.HookEventName != "PostToolUse" || !strings.Contains(h.AdditionalContext, hooktest.AgentID(hooktest.ClaudeCode, hooktest.SessionB)) {
		t.Errorf("A's next PostToolUse: got %+v, want B named", h)
	}
	// Under ask, B's next mutating PreToolUse asks the person, naming A.
	out = post(b("pre-tool-use-write.json"), "?on_collision=ask")
	if h := out.HookSpecificOutput; h.PermissionDecision != "ask" || !strings.Contains(h.PermissionDecisionReason, hooktest.AgentID(hooktest.ClaudeCode, "")) {
		t.Errorf("B's PreToolUse under ask: got %+v", h)
	}
	// A non-mutating tool never asks, even under ask.
	read := strings.ReplaceAll(strings.ReplaceAll(b("pre-tool-use-write.json"), `"Write"`, `"Read"`), `,"content":"package checkout\n"`, "")
	if out = post(read, "?on_collision=ask"); out.HookSpecificOutput.PermissionDecision != "" {
		t.Errorf("B's Read under ask: got %+v, want no decision", out.HookSpecificOutput)
	}

	// SessionEnd leaves: B's presence is gone, and the collision with it.
	post(b("session-end.json"), "")
	snap, _ = th.svc.Snapshot(t.Context())
	if len(snap.Live) != 1 || len(snap.Collisions) != 0 || snap.Live[0].AgentID != hooktest.AgentID(hooktest.ClaudeCode, "") {
		t.Errorf("after B's SessionEnd: %d live, %d collisions", len(snap.Live), len(snap.Collisions))
	}
	// Leaving again is no error.
	post(b("session-end.json"), "")
}

func TestHookEndpointCursorNeverAllows(t *testing.T) {
	th := newTestHall(t, "")
	repo := hooktest.GitRepo(t)
	for _, session := range []string{"", "d0d1d2d3-0000-4000-8000-000000000000"} {
		for _, name := range []string{"session-start.json", "after-file-edit.json"} {
			th.do(t, "POST", "/api/hooks/cursor", hooktest.Moved(t, hooktest.Cursor, name, repo.Worktree, session), jsonHeader)
		}
	}
	for _, name := range hooktest.Names(t, hooktest.Cursor) {
		for _, q := range []string{"", "?on_collision=ask"} {
			r := th.do(t, "POST", "/api/hooks/cursor"+q, hooktest.Moved(t, hooktest.Cursor, name, repo.Worktree, ""), jsonHeader)
			if r.status != http.StatusOK {
				t.Fatalf("%s: status %d: %s", name, r.status, r.body)
			}
			var a map[string]any
			r.decode(t, &a)
			if p, ok := a["permission"]; ok && p != "ask" {
				t.Errorf("%s%s: permission %v", name, q, p)
			}
			if strings.Contains(string(r.body), "allow") {
				t.Errorf("%s%s: the answer holds allow: %s", name, q, r.body)
			}
		}
	}
	// The preToolUse of a Write while colliding asks under ask, and tells
	// the model under warn.
	r := th.do(t, "POST", "/api/hooks/cursor?on_collision=ask", hooktest.Moved(t, hooktest.Cursor, "pre-tool-use-write.json", repo.Worktree, ""), jsonHeader)
	var a struct {
		Permission   string `json:"permission"`
		AgentMessage string `json:"agent_message"`
	}
	r.decode(t, &a)
	if a.Permission != "ask" || !strings.Contains(a.AgentMessage, hooktest.AgentID(hooktest.Cursor, "d0d1d2d3-0000-4000-8000-000000000000")) {
		t.Errorf("preToolUse under ask: got %s", r.body)
	}
}

func TestHookEndpointBadInputChangesNothing(t *testing.T) {
	th := newTestHall(t, "")
	repo := hooktest.GitRepo(t)
	good := hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Worktree, "")
	for _, tc := range []struct {
		name, path, body string
		status           int
		code             string
	}{
		{"unknown agent", "/api/hooks/aider", good, 404, "unknown_agent"},
		{"bad policy", "/api/hooks/claude?on_collision=deny", good, 400, "invalid_on_collision"},
		{"not JSON", "/api/hooks/claude", "session_id=1", 400, "invalid_payload"},
		{"no session", "/api/hooks/claude", `{"cwd":"/tmp","hook_event_name":"PreToolUse"}`, 400, "invalid_payload"},
		{"relative cwd", "/api/hooks/claude", strings.ReplaceAll(good, `"cwd":"`+repo.Worktree+`"`, `"cwd":"shop"`), 400, "invalid_payload"},
		{"too big", "/api/hooks/claude", `{"session_id":"` + strings.Repeat("x", 5<<20) + `"}`, 413, "body_too_large"},
		{"agent id too long", "/api/hooks/claude", strings.ReplaceAll(good, `"hook_event_name"`, `"agent_id":"`+strings.Repeat("a", 200)+`","hook_event_name"`), 400, "field_too_large"},
	} {
		r := th.do(t, "POST", tc.path, tc.body, jsonHeader)
		var e contract.ErrorResponse
		r.decode(t, &e)
		if r.status != tc.status || e.Error != tc.code || e.Detail == "" {
			t.Errorf("%s: got %d %+v, want %d %s", tc.name, r.status, e, tc.status, tc.code)
		}
	}
	if files := th.files(t); len(files) != 0 {
		t.Errorf("bad input wrote %v", files)
	}
}

func TestHookEndpointRequiresToken(t *testing.T) {
	th := newTestHall(t, "s3cret")
	repo := hooktest.GitRepo(t)
	body := hooktest.Moved(t, hooktest.Codex, "pre-tool-use-apply-patch.json", repo.Worktree, "")
	if r := th.do(t, "POST", "/api/hooks/codex", body, jsonHeader); r.status != http.StatusUnauthorized {
		t.Errorf("no token: status %d", r.status)
	}
	if files := th.files(t); len(files) != 0 {
		t.Errorf("an unauthorized hook wrote %v", files)
	}
	h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer s3cret"}
	if r := th.do(t, "POST", "/api/hooks/codex", body, h); r.status != http.StatusOK || string(r.body) != "{}\n" {
		t.Errorf("with token: status %d body %q", r.status, r.body)
	}
	id := presence.ID(hooktest.AgentID(hooktest.Codex, ""), repo.Main)
	if _, err := th.store.Get(t.Context(), id); err != nil {
		t.Errorf("the codex presence on brain %s: %v", repo.Main, err)
	}
}

// TestHookEndpointFailOpen: a store that cannot be written still answers
// 200 with what the Hall knows.
func TestHookEndpointFailOpen(t *testing.T) {
	th := newTestHall(t, "")
	repo := hooktest.GitRepo(t)
	dir := th.store.Dir()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pre-tool-use-write.json", "session-end.json"} {
		r := th.do(t, "POST", "/api/hooks/claude", hooktest.Moved(t, hooktest.ClaudeCode, name, repo.Worktree, ""), jsonHeader)
		if name == "session-end.json" {
			// A leave the store refuses is the store's error, never a
			// block: any non-2xx is a non-blocking error to the agent.
			if r.status < 500 {
				t.Errorf("%s with the store broken: status %d body %s", name, r.status, r.body)
			}
			continue
		}
		if r.status != http.StatusOK || !json.Valid(r.body) {
			t.Errorf("%s with the store broken: status %d body %s", name, r.status, r.body)
		}
	}
}
