package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/lockedbuf"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
	"github.com/hall-dev/hall/internal/presence"
)

// stdioMCP runs `hall mcp args…` in process over two pipes, as an agent
// runs it, and connects the SDK's own client to it. The command must end
// with exit 0 once the client closes its stdin.
func stdioMCP(t *testing.T, c mcptest.Client, args ...string) *sdk.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &lockedbuf.Buffer{}
	done := make(chan int, 1)
	go func() {
		code := run(context.WithoutCancel(t.Context()), append([]string{"mcp"}, args...), inR, outW, stderr)
		_ = outW.Close()
		done <- code
	}()
	cs := mcptest.Connect(t, &sdk.IOTransport{Reader: outR, Writer: inW}, c)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = inW.Close()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("hall mcp: exit %d, stderr %q", code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Errorf("hall mcp did not end once its stdin closed")
		}
	})
	return cs
}

// httpMCP connects the SDK's client to a Hall's /mcp, sending the bearer
// token when set.
func httpMCP(t *testing.T, base, token string, c mcptest.Client) *sdk.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: bearer{token: token}}
	cs := mcptest.Connect(t, &sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc, MaxRetries: -1}, c)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// callTool calls a tool, failing on a protocol error (not on a tool error),
// and returns the result with its text.
func callTool(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (*sdk.CallToolResult, string) {
	t.Helper()
	res := mcptest.Call(t, cs, tool, args)
	return res, mcptest.Text(t, res)
}

// structuredAs decodes a successful result's structured content.
func structuredAs[T any](t *testing.T, res *sdk.CallToolResult) T {
	t.Helper()
	var out T
	mcptest.Structured(t, res, &out)
	return out
}

type handshakeOut struct {
	PresenceID string   `json:"presence_id"`
	AgentID    string   `json:"agent_id"`
	Stored     bool     `json:"stored"`
	North      []string `json:"north"`
}

// gitWorktree makes a real repository with a linked worktree and returns
// the main worktree (the brain) and the linked one, symlinks resolved.
func gitWorktree(t *testing.T) (repo, wt string) {
	t.Helper()
	repo = gittest.TempDir(t)
	gittest.Init(t, repo)
	gittest.CommitAll(t, repo, "x")
	wt = filepath.Join(gittest.TempDir(t), "wt2")
	gittest.Worktree(t, repo, wt, "wt2", "main")
	return repo, wt
}

// mcpTransports are the two ways an agent reaches the tools: `hall mcp`
// over stdio pipes against a running Hall, and the Hall's own /mcp.
func mcpTransports(t *testing.T, m *Main, token string) map[string]func(mcptest.Client) *sdk.ClientSession {
	return map[string]func(mcptest.Client) *sdk.ClientSession{
		"stdio": func(c mcptest.Client) *sdk.ClientSession {
			return stdioMCP(t, c, "--hall", m.URL(), "--token", token, "--timeout", "5s")
		},
		"http": func(c mcptest.Client) *sdk.ClientSession { return httpMCP(t, m.URL(), token, c) },
	}
}

// TestMCPAgainstHall: over stdio and over HTTP, with the SDK's own client,
// against a real Hall on :0 and a real git worktree: tools/list names the
// five tools with schemas; a handshake shows on GET /api/presences with its
// declarations; two sessions in one worktree declaring intents each see the
// other in their north; bad input is a tool error naming the field and
// writes nothing; cockpit is the endpoint's text; leave ends the presence.
func TestMCPAgainstHall(t *testing.T) {
	for _, name := range []string{"stdio", "http"} {
		t.Run(name, func(t *testing.T) {
			m := MustOpenHall(t, Config{Token: "s3cret"})
			open := mcpTransports(t, m, "s3cret")[name]
			repo, wt := gitWorktree(t)
			a := open(mcptest.Client{Name: "Claude Code", Roots: []string{wt}})
			b := open(mcptest.Client{Name: "codex", Roots: []string{wt}})

			list, err := a.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
				if tool.InputSchema == nil || tool.OutputSchema == nil {
					t.Errorf("%s: no input or output schema", tool.Name)
				}
			}
			slices.Sort(names)
			if want := []string{"check", "cockpit", "handshake", "leave", "north", "presences", "snapshots"}; !slices.Equal(names, want) {
				t.Errorf("tools/list: got %v, want %v", names, want)
			}

			ra, _ := callTool(t, a, "handshake", map[string]any{"theme": "checkout refactor", "kind": "executor",
				"working_set": []string{"src/checkout"}, "declared_intent": "mutate", "task_ref": "msn_1"})
			ha := structuredAs[handshakeOut](t, ra)
			if !ha.Stored || len(ha.North) != 0 || !strings.HasPrefix(ha.AgentID, "claude-code-") {
				t.Errorf("first handshake: %+v", ha)
			}
			var roster contract.PresencesResponse
			getJSON(t, m.URL()+"/api/presences", &roster)
			if len(roster.Presences) != 1 {
				t.Fatalf("roster after a handshake: %+v", roster.Presences)
			}
			p := roster.Presences[0]
			if p.PresenceID != ha.PresenceID || p.Brain != repo || p.Worktree != wt || p.CallerRoot != wt || p.Theme != "checkout refactor" ||
				p.Kind != "executor" || p.TaskRef != "msn_1" || !slices.Equal(p.WorkingSet, []string{"src/checkout"}) ||
				p.Mutation.DeclaredIntent != "mutate" || p.MutationLevel != "declared" {
				t.Errorf("the handshake's presence: %+v", p)
			}

			rb, _ := callTool(t, b, "handshake", map[string]any{"declared_intent": "mutate", "working_set": []string{"src/checkout/cart.go"}})
			hb := structuredAs[handshakeOut](t, rb)
			if len(hb.North) != 1 || !strings.Contains(hb.North[0], ha.AgentID) || !strings.Contains(hb.North[0], "same_worktree") {
				t.Errorf("second handshake's north: %v, want a line naming %s", hb.North, ha.AgentID)
			}
			for _, side := range []struct {
				cs    *sdk.ClientSession
				other string
			}{{a, hb.AgentID}, {b, ha.AgentID}} {
				res, text := callTool(t, side.cs, "north", nil)
				north := structuredAs[struct{ North []string }](t, res)
				if len(north.North) != 1 || !strings.Contains(north.North[0], side.other) || !strings.Contains(text, side.other) {
					t.Errorf("north: %v / %q, want one line naming %s", north.North, text, side.other)
				}
			}

			before := rosterJSON(t, m.URL())
			for field, args := range map[string]map[string]any{
				"theme":    {"theme": strings.Repeat("x", presence.MaxThemeLen+1)},
				"worktree": {"worktree": "relative/wt"},
				"agent_id": {"agent_id": "a\tb"},
			} {
				res, text := callTool(t, b, "handshake", args)
				if !res.IsError || !strings.Contains(text, field) {
					t.Errorf("bad %s: got isError %v %q, want a tool error naming it", field, res.IsError, text)
				}
			}
			if after := rosterJSON(t, m.URL()); after != before {
				t.Errorf("bad input changed the roster:\n%s\n%s", before, after)
			}

			res, text := callTool(t, a, "cockpit", map[string]any{"brain": repo})
			if want := getText(t, m.URL()+"/api/cockpit?brain="+repo); res.IsError || text != want {
				t.Errorf("cockpit: got %q, want the endpoint's %q", text, want)
			}
			res, text = callTool(t, a, "presences", nil)
			if res.IsError || !strings.Contains(text, "2 presences · all brains ⚠ 1 collision") {
				t.Errorf("presences: %q", text)
			}

			if res, text := callTool(t, b, "leave", nil); res.IsError || !strings.Contains(text, hb.PresenceID+" left") {
				t.Errorf("leave: %q", text)
			}
			getJSON(t, m.URL()+"/api/presences", &roster)
			if len(roster.Presences) != 1 || len(roster.Collisions) != 0 {
				t.Errorf("after leave: %d presences, %d collisions, want 1 and 0", len(roster.Presences), len(roster.Collisions))
			}
		})
	}
}

// rosterJSON is the contract without its clock, for "nothing changed".
func rosterJSON(t *testing.T, base string) string {
	t.Helper()
	var r contract.PresencesResponse
	getJSON(t, base+"/api/presences", &r)
	r.ServedAtMs, r.Cursor = 0, ""
	b, _ := json.Marshal(r)
	return string(b)
}

func getText(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestMCPHTTPRules: /mcp follows the Hall's rules: reads open, the writing
// tools need the token when the Hall has one (a tool error otherwise,
// nothing written), a Host that is not loopback is refused (DNS
// rebinding), and a browser page of another origin cannot post.
func TestMCPHTTPRules(t *testing.T) {
	m := MustOpenHall(t, Config{Token: "s3cret"})
	anon := httpMCP(t, m.URL(), "", mcptest.Client{})
	for _, tool := range []string{"presences", "cockpit"} {
		if res, text := callTool(t, anon, tool, nil); res.IsError {
			t.Errorf("%s without a token: %q, want an answer (reads stay open)", tool, text)
		}
	}
	for _, tool := range []string{"handshake", "leave"} {
		res, text := callTool(t, anon, tool, map[string]any{"brain": "/srv/shop"})
		if !res.IsError || !strings.Contains(text, "unauthorized") {
			t.Errorf("%s without the token: got %q, want a tool error saying unauthorized", tool, text)
		}
	}
	wrong := httpMCP(t, m.URL(), "nope", mcptest.Client{})
	if res, text := callTool(t, wrong, "handshake", map[string]any{"brain": "/srv/shop"}); !res.IsError {
		t.Errorf("handshake with a wrong token: %q", text)
	}
	if got := rosterJSON(t, m.URL()); !strings.Contains(got, `"presences":[]`) {
		t.Errorf("refused writes wrote: %s", got)
	}
	ok := httpMCP(t, m.URL(), "s3cret", mcptest.Client{})
	if res, text := callTool(t, ok, "handshake", map[string]any{"brain": "/srv/shop"}); res.IsError {
		t.Errorf("handshake with the token: %q", text)
	}

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"loopback", nil, http.StatusOK},
		{"rebound host", map[string]string{"Host": "evil.example"}, http.StatusMisdirectedRequest},
		{"cross-site page", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, m.URL()+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		if h, ok := tc.header["Host"]; ok {
			req.Host = h
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s: got %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
	}
}

// TestMCPHallDown: a Hall that cannot be reached, or that never answers,
// is a tool error with a clear message within the timeout, never a crash
// or a hung call; the server keeps serving.
func TestMCPHallDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()

	mute, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		mute.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := mute.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()

	for _, tc := range []struct{ name, hall, want string }{
		{"refused", dead, "unreachable"},
		{"silent", "http://" + mute.Addr().String(), "did not answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := stdioMCP(t, mcptest.Client{}, "--hall", tc.hall, "--timeout", "300ms", "--agent-id", "a-1")
			for _, tool := range []string{"handshake", "presences", "north", "cockpit", "leave", "presences"} {
				res, text := callTool(t, cs, tool, map[string]any{})
				if !res.IsError || !strings.Contains(text, tc.want) || !strings.Contains(text, tc.hall) {
					t.Errorf("%s: got isError %v %q, want a tool error saying the Hall at %s %s", tool, res.IsError, text, tc.hall, tc.want)
				}
			}
		})
	}
}

// TestMCPRegistryDirect: `hall mcp --registry-root` writes the sidecar
// folder through the same store code, and a beat the throttle held is
// written when the agent goes.
func TestMCPRegistryDirect(t *testing.T) {
	root := t.TempDir()
	_, wt := gitWorktree(t)
	cs := stdioMCP(t, mcptest.Client{Roots: []string{wt}}, "--registry-root", root, "--agent-id", "codex-2")
	res, _ := callTool(t, cs, "handshake", map[string]any{"theme": "fix the cart"})
	h := structuredAs[handshakeOut](t, res)
	store := dirstore.New(root)
	r, err := store.Get(t.Context(), h.PresenceID)
	if err != nil || r.AgentID != "codex-2" || r.Theme != "fix the cart" || r.Worktree != wt {
		t.Fatalf("the record written: %+v, %v", r, err)
	}
	res, _ = callTool(t, cs, "handshake", map[string]any{"theme": "fix the cart"})
	if again := structuredAs[handshakeOut](t, res); again.Stored {
		t.Fatalf("a repeated handshake within the throttle window: %+v, want held", again)
	}
	res, text := callTool(t, cs, "presences", nil)
	if res.IsError || !strings.Contains(text, "codex-2 · fix the cart") {
		t.Errorf("presences: %q", text)
	}
	_ = cs.Close() // the agent goes: hall mcp ends and flushes
	eventually.True(t, wait, "the held beat to be written", func() bool {
		r, err := store.Get(t.Context(), h.PresenceID)
		return err == nil && r.QueryCount == 2
	})
}

// TestMCPLinesUpWithClaudeHooks: Claude Code starts its stdio MCP servers
// with CLAUDECODE=1 and CLAUDE_CODE_SESSION_ID, the session_id its hooks
// get; `hall mcp` then beats as the hooks do, claude-<8 hex of the
// session id's SHA-256>, on the brain both measure from the same directory: one
// presence, declared through MCP and observed through the hook.
func TestMCPLinesUpWithClaudeHooks(t *testing.T) {
	m := MustOpenHall(t, Config{})
	repo, wt := gitWorktree(t)
	payload := strings.ReplaceAll(fixture(t, "post-tool-use-edit.json"), "/home/ana/shop-wt2", wt)
	if code, _, stderr := runCLI(t, payload, "beat", "--hook", "claude", "--hall", m.URL()); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("hook: exit %d, stderr %q", code, stderr)
	}
	t.Setenv("CLAUDECODE", "1")
	t.Setenv("CLAUDE_CODE_SESSION_ID", "7d0c5e2a-4b1f-4a52-9c33-1f0e8a6b2c41")
	t.Setenv("HALL_AGENT_ID", "") // no --agent-id: the session's own
	cs := stdioMCP(t, mcptest.Client{Name: "claude-code", Roots: []string{wt}}, "--hall", m.URL())
	res, _ := callTool(t, cs, "handshake", map[string]any{"theme": "checkout refactor", "declared_intent": "mutate"})
	h := structuredAs[handshakeOut](t, res)
	if want := presence.ID(hooktest.AgentID(hooktest.ClaudeCode, ""), repo); h.PresenceID != want || h.AgentID != hooktest.AgentID(hooktest.ClaudeCode, "") {
		t.Errorf("handshake: %+v, want the hooks' presence %s", h, want)
	}
	var roster contract.PresencesResponse
	getJSON(t, m.URL()+"/api/presences", &roster)
	if len(roster.Presences) != 1 {
		t.Fatalf("hook and MCP made %d presences, want one: %+v", len(roster.Presences), roster.Presences)
	}
	p := roster.Presences[0]
	if p.PresenceID != h.PresenceID || p.Kind != "claude-code" || p.Theme != "checkout refactor" ||
		p.Mutation.ObservedAtMs == 0 || p.Mutation.DeclaredIntent != "mutate" || p.MutationLevel != "observed" || p.QueryCount != 2 {
		t.Errorf("the one presence: %+v, want the hook's observation and the handshake's declarations", p)
	}
}

// TestMCPLiveRoster: a subscriber to a brain's roster is told when a
// collision opens and closes through beats and leaves the Hall takes: over
// HTTP from the Hall's own hub, over stdio from the Hall's stream.
func TestMCPLiveRoster(t *testing.T) {
	for _, name := range []string{"stdio", "http"} {
		t.Run(name, func(t *testing.T) {
			m := MustOpenHall(t, Config{})
			updated := make(chan string, 64)
			// The protocol of every client in the field today: Subscribe
			// returns once the server took the subscription (internal/mcp
			// tests the newest, whose subscriptions ride their own stream).
			cs := mcpTransports(t, m, "")[name](mcptest.Client{Updated: updated, Protocol: "2025-11-25"})
			beatHall(t, m.URL(), contract.BeatRequest{AgentID: "claude-7", Brain: "/srv/shop", Worktree: "/srv/shop-wt2", Tool: "Edit"})
			uri := "hall://presences/srv/shop"
			if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			collisions := func() int {
				r, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri})
				if err != nil {
					t.Fatal(err)
				}
				var out struct {
					CollisionCount int `json:"collision_count"`
				}
				if err := json.Unmarshal([]byte(r.Contents[0].Text), &out); err != nil {
					t.Fatal(err)
				}
				return out.CollisionCount
			}
			// waitFor waits for notifications until the roster they announce
			// shows want collisions: a read alone would see the change at
			// once, the notification is what is tested.
			waitFor := func(want int) {
				t.Helper()
				eventually.Notified(t, 10*time.Second, updated, fmt.Sprintf("an update to %d collisions", want), func() bool { return collisions() == want })
			}
			b := beatHall(t, m.URL(), contract.BeatRequest{AgentID: "codex-2", Brain: "/srv/shop", Worktree: "/srv/shop-wt2", DeclaredIntent: "mutate"})
			waitFor(1)
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodDelete, m.URL()+"/api/presences/"+b.PresenceID, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			waitFor(0)
		})
	}
}

// TestMCPShutdownWithOpenSessions: the Hall stops cleanly, within its
// shutdown's 2 s, while an MCP client holds a session and its stream open.
func TestMCPShutdownWithOpenSessions(t *testing.T) {
	m := NewMain(Config{Addr: "127.0.0.1:0", RegistryRoot: t.TempDir(), TTL: presence.DefaultTTL}, slog.New(slog.DiscardHandler))
	if err := m.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, &sdk.StreamableClientTransport{Endpoint: m.URL() + "/mcp", MaxRetries: -1}, mcptest.Client{})
	defer cs.Close()
	if res, text := callTool(t, cs, "cockpit", nil); res.IsError {
		t.Fatalf("cockpit: %s", text)
	}
	if err := m.Close(); err != nil {
		t.Errorf("close with an MCP session open: %v (an open stream held the shutdown)", err)
	}
}

// TestMCPReportsItsVersion: both MCP servers, `hall mcp` over stdio and
// the Hall's /mcp, name hall's own version in the handshake's serverInfo,
// as `hall version` prints it.
func TestMCPReportsItsVersion(t *testing.T) {
	want := buildVersion()
	if want == "" {
		t.Fatal("buildVersion is empty")
	}
	m := MustOpenHall(t, Config{})
	for name, cs := range map[string]*sdk.ClientSession{
		"stdio": stdioMCP(t, mcptest.Client{}, "--registry-root", t.TempDir(), "--agent-id", "codex-2"),
		"/mcp":  httpMCP(t, m.URL(), "", mcptest.Client{}),
	} {
		if got := cs.InitializeResult().ServerInfo.Version; got != want {
			t.Errorf("%s: serverInfo.version %q, want %q", name, got, want)
		}
	}
}
