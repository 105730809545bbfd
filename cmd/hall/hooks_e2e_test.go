package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/hookforward"
	"github.com/hall-dev/hall/internal/hooktest"
)

// hookPath runs one hook payload through one surface: the command (`hall
// beat --hook`), the lean command (hall-hook, package hookforward) or the
// HTTP hook (POST /api/hooks/{agent}), and returns the agent's output.
type hookPath struct {
	name string
	call func(t *testing.T, m *Main, agent, payload, policy string) []byte
}

var hookPaths = []hookPath{
	{"command", func(t *testing.T, m *Main, agent, payload, policy string) []byte {
		t.Helper()
		code, stdout, stderr := runCLI(t, payload, "beat", "--hook", agent, "--hall", m.URL(), "--on-collision", policy)
		if code != 0 || stderr != "" {
			t.Fatalf("hall beat --hook %s: exit %d, stderr %q", agent, code, stderr)
		}
		return []byte(stdout)
	}},
	{"hall-hook", func(t *testing.T, m *Main, agent, payload, policy string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		hookforward.Main(t.Context(), []string{agent, "--hall", m.URL(), "--on-collision", policy}, strings.NewReader(payload), &stdout, &stderr)
		if stderr.Len() != 0 {
			t.Fatalf("hall-hook %s: stderr %q", agent, stderr.String())
		}
		return stdout.Bytes()
	}},
	{"http", func(t *testing.T, m *Main, agent, payload, policy string) []byte {
		t.Helper()
		resp, err := http.Post(m.URL()+"/api/hooks/"+agent+"?on_collision="+policy, "application/json", strings.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /api/hooks/%s: %d %s", agent, resp.StatusCode, body)
		}
		if string(bytes.TrimSpace(body)) == "{}" {
			return nil // nothing to say: the command prints nothing
		}
		return body
	}},
}

// told reads what an agent's output says to the model, and whether it asks.
func told(t *testing.T, agent string, out []byte) (text string, ask bool) {
	t.Helper()
	if len(bytes.TrimSpace(out)) == 0 {
		return "", false
	}
	var a struct {
		HookSpecificOutput struct {
			AdditionalContext  string `json:"additionalContext"`
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
		Permission        string `json:"permission"`
		AgentMessage      string `json:"agent_message"`
		AdditionalContext string `json:"additional_context"`
		SystemMessage     string `json:"systemMessage"` // Gemini CLI's BeforeTool: the person reads it
	}
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("%s output %q: %v", agent, out, err)
	}
	if bytes.Contains(out, []byte(`"allow"`)) || bytes.Contains(out, []byte(`"deny"`)) {
		t.Errorf("%s output decides for the person: %s", agent, out)
	}
	if agent == "cursor" {
		return a.AgentMessage + a.AdditionalContext, a.Permission == "ask"
	}
	if agent == "gemini" && a.HookSpecificOutput.AdditionalContext == "" {
		return a.SystemMessage, false
	}
	return a.HookSpecificOutput.AdditionalContext, a.HookSpecificOutput.PermissionDecision == "ask"
}

// TestHooksEndToEnd plays, for each agent and through each path (the
// command, the lean command, the HTTP hook), two sessions in one real git worktree: A edits the cart;
// B's gate event before writing it names A, the place and the file; A's
// next hook names B; under ask B's gate event asks where the agent honours
// an ask (the capability table: not Codex, not Gemini CLI) and warns
// elsewhere; the touched file is on A's record and in the collision's
// paths. Gemini CLI's gate event (BeforeTool) tells the person; its model
// hears on the AfterTool that follows.
func TestHooksEndToEnd(t *testing.T) {
	type script struct {
		agent, folder           string
		start, edit, gate, next string
		aID, bID                string
	}
	for _, s := range []script{
		{"claude", hooktest.ClaudeCode, "session-start.json", "post-tool-use-edit.json", "pre-tool-use-write.json", "post-tool-use-read.json", hooktest.AgentID(hooktest.ClaudeCode, ""), hooktest.AgentID(hooktest.ClaudeCode, hooktest.SessionB)},
		{"codex", hooktest.Codex, "session-start.json", "pre-tool-use-apply-patch.json", "pre-tool-use-apply-patch.json", "user-prompt-submit.json", hooktest.AgentID(hooktest.Codex, ""), hooktest.AgentID(hooktest.Codex, hooktest.SessionB)},
		{"cursor", hooktest.Cursor, "session-start.json", "after-file-edit.json", "pre-tool-use-write.json", "post-tool-use-write.json", hooktest.AgentID(hooktest.Cursor, ""), hooktest.AgentID(hooktest.Cursor, hooktest.SessionB)},
		{"gemini", hooktest.GeminiCLI, "session-start.json", "before-tool-replace.json", "before-tool-replace.json", "after-tool-write-file.json", hooktest.AgentID(hooktest.GeminiCLI, ""), hooktest.AgentID(hooktest.GeminiCLI, hooktest.SessionB)},
	} {
		for _, path := range hookPaths {
			t.Run(s.agent+"/"+path.name, func(t *testing.T) {
				m := MustOpenHall(t, Config{})
				repo := hooktest.GitRepo(t)
				a := func(name string) string { return hooktest.Moved(t, s.folder, name, repo.Worktree, "") }
				b := func(name string) string {
					return hooktest.Moved(t, s.folder, name, repo.Worktree, hooktest.SessionB)
				}
				cart := repo.Worktree + "/src/checkout/cart.go"

				if out := path.call(t, m, s.agent, a(s.start), "warn"); len(out) != 0 && !pageNoticeOnly(out, m.URL()+"/") {
					t.Errorf("A alone at start: %s, want silence (or the page's address to the person alone)", out)
				}
				path.call(t, m, s.agent, a(s.edit), "warn")
				path.call(t, m, s.agent, b(s.start), "warn")

				text, ask := told(t, s.agent, path.call(t, m, s.agent, b(s.gate), "warn"))
				// North lines keep a long path's tail: the file is named by it.
				for _, want := range []string{s.aID, "shop-wt2", "same_worktree", "touched_overlap", "src/checkout/cart.go"} {
					if !strings.Contains(text, want) {
						t.Errorf("B's gate event does not name %q: %q", want, text)
					}
				}
				if ask {
					t.Error("B's gate event asked under warn")
				}
				if text, _ := told(t, s.agent, path.call(t, m, s.agent, a(s.next), "warn")); !strings.Contains(text, s.bID) {
					t.Errorf("A's next hook does not name B (%s): %q", s.bID, text)
				}
				capa, _ := hook.CapabilityOf(s.agent)
				if text, ask := told(t, s.agent, path.call(t, m, s.agent, b(s.gate), "ask")); ask != (len(capa.AskEvents) > 0) || !strings.Contains(text, s.aID) {
					t.Errorf("B's gate event under ask: ask %v (the agent honours it: %v), %q", ask, len(capa.AskEvents) > 0, text)
				}

				// The roster, touched files and touched_overlap included, is the
				// published contract.
				set := schematest.FromHall(t, m.URL(), schematest.Strict)
				var roster contract.PresencesResponse
				if err := json.Unmarshal(getChecked(t, set, m.URL(), "/api/presences", "presences"), &roster); err != nil {
					t.Fatal(err)
				}
				if len(roster.Presences) != 2 || len(roster.Collisions) != 1 {
					t.Fatalf("roster: %d presences, %d collisions, want 2 and 1", len(roster.Presences), len(roster.Collisions))
				}
				for _, p := range roster.Presences {
					if p.Brain != repo.Main || p.Worktree != repo.Worktree || p.Kind == "" {
						t.Errorf("%s: brain %q worktree %q kind %q; want the main worktree %q as brain", p.AgentID, p.Brain, p.Worktree, p.Kind, repo.Main)
					}
					if !slices.ContainsFunc(p.Touched, func(x contract.Touch) bool { return x.Path == cart }) {
						t.Errorf("%s: touched %v, want %s", p.AgentID, p.Touched, cart)
					}
				}
				c := roster.Collisions[0]
				if !slices.Contains(c.Paths, cart) || !slices.Contains(c.Clauses, "touched_overlap") {
					t.Errorf("collision: clauses %v paths %v, want touched_overlap and %s", c.Clauses, c.Paths, cart)
				}
			})
		}
	}
}

// TestHooksSubagentsAreOneTeam: a Claude Code subagent editing the file its
// session edits never collides with it, shows its parent, and leaves with
// the session's SessionEnd; through each path.
func TestHooksSubagentsAreOneTeam(t *testing.T) {
	for _, path := range hookPaths {
		t.Run(path.name, func(t *testing.T) {
			m := MustOpenHall(t, Config{})
			repo := hooktest.GitRepo(t)
			p := func(name string) string { return hooktest.Moved(t, hooktest.ClaudeCode, name, repo.Worktree, "") }
			path.call(t, m, "claude", p("session-start.json"), "ask")
			path.call(t, m, "claude", p("post-tool-use-edit.json"), "ask")
			path.call(t, m, "claude", p("subagent-start.json"), "ask")
			if out := path.call(t, m, "claude", p("subagent-pre-tool-use-edit.json"), "ask"); len(out) != 0 {
				t.Errorf("the subagent's edit: %s, want silence", out)
			}
			if out := path.call(t, m, "claude", p("pre-tool-use-write.json"), "ask"); len(out) != 0 {
				t.Errorf("the session's write beside its subagent: %s, want silence", out)
			}
			var roster contract.PresencesResponse
			set := schematest.FromHall(t, m.URL(), schematest.Strict)
			if err := json.Unmarshal(getChecked(t, set, m.URL(), "/api/presences", "presences"), &roster); err != nil {
				t.Fatal(err)
			}
			if len(roster.Presences) != 2 || len(roster.Collisions) != 0 {
				t.Fatalf("roster: %d presences, %d collisions; want 2 and none", len(roster.Presences), len(roster.Collisions))
			}
			var parent, sub contract.Presence
			for _, x := range roster.Presences {
				if x.ParentPresenceID != "" {
					sub = x
				} else {
					parent = x
				}
			}
			if sub.AgentID != hooktest.AgentID(hooktest.ClaudeCode, "")+"/a3f9c1d2e4b5" || sub.ParentPresenceID != parent.PresenceID {
				t.Errorf("subagent %q with parent %q; session is %q", sub.AgentID, sub.ParentPresenceID, parent.PresenceID)
			}

			// Another session edits the same file: it collides with both, and
			// both hear it.
			other := hooktest.Moved(t, hooktest.ClaudeCode, "pre-tool-use-write.json", repo.Worktree, hooktest.SessionB)
			text, _ := told(t, "claude", path.call(t, m, "claude", other, "warn"))
			// One partner, one line: the team is named once and its other
			// member counted, not read as a second partner.
			if strings.Count(text, "> collision: "+hooktest.AgentID(hooktest.ClaudeCode, "")) != 1 || !strings.Contains(text, "(and 1 more of its team") {
				t.Errorf("a third session's answer: %q, want one line for the session and its subagent", text)
			}
			path.call(t, m, "claude", other[:0]+hooktest.Moved(t, hooktest.ClaudeCode, "session-end.json", repo.Worktree, hooktest.SessionB), "warn")

			path.call(t, m, "claude", p("session-end.json"), "ask")
			getJSON(t, m.URL()+"/api/presences", &roster)
			if len(roster.Presences) != 0 {
				t.Errorf("after the session's SessionEnd: %d presences left, want its subagent gone too", len(roster.Presences))
			}
		})
	}
}
