//lint:file-ignore SA1019 MCP roots are deprecated as of protocol 2026-07-28 (SEP-2577) but stay functional for at least a year; the Hall reads a client's roots to default caller_root, and passing paths as tool parameters (caller_root, brain) already works alongside.

package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
	"github.com/hall-dev/hall/internal/presence"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from what the tools answer")

// TestToolsList: the five tools, each with an object input schema and an
// output schema; the reading ones say they only read.
func TestToolsList(t *testing.T) {
	cs := connect(t, Config{Client: newLocalHall(t).client()}, mcptest.Client{})
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		in, _ := tool.InputSchema.(map[string]any)
		out, _ := tool.OutputSchema.(map[string]any)
		if in["type"] != "object" || out["type"] != "object" || tool.Description == "" {
			t.Errorf("%s: input schema %v, output schema %v, description %q", tool.Name, in, out, tool.Description)
		}
		readOnly := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
		if want := tool.Name != "handshake" && tool.Name != "leave"; readOnly != want {
			t.Errorf("%s: read-only hint %v, want %v", tool.Name, readOnly, want)
		}
	}
	slices.Sort(names)
	if want := []string{"check", "cockpit", "handshake", "leave", "north", "presences", "snapshots"}; !slices.Equal(names, want) {
		t.Errorf("tools: got %v, want %v", names, want)
	}
	props := res.Tools[slices.IndexFunc(res.Tools, func(t *sdk.Tool) bool { return t.Name == "handshake" })].InputSchema.(map[string]any)["properties"].(map[string]any)
	for _, f := range []string{"agent_id", "brain", "caller_root", "kind", "theme", "worktree", "working_set", "task_ref", "declared_intent"} {
		if _, ok := props[f]; !ok {
			t.Errorf("handshake's input schema lacks %s", f)
		}
	}
	if _, ok := props["tool"]; ok {
		t.Error("handshake takes a tool name: a declaration could then claim an observed mutation")
	}
}

// goldenHall is a fixed roster on a fixed clock: two sessions colliding in
// one worktree (one observed, one declared through handshake), a reader in
// another worktree, and a session on another brain.
func goldenHall(t *testing.T) (*localHall, *sdk.ClientSession) {
	t.Helper()
	h := newLocalHall(t)
	beat := func(b presence.Beat) {
		t.Helper()
		h.clock.Advance(20 * time.Second)
		if _, err := h.svc.Beat(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
	beat(presence.Beat{AgentID: "claude-7d0c5e2a", Brain: "/srv/shop", CallerRoot: "/srv/shop-wt2", Worktree: "/srv/shop-wt2",
		Kind: "claude-code", Theme: "checkout refactor", WorkingSet: []string{"src/checkout"}, Tool: "Edit"})
	beat(presence.Beat{AgentID: "claude-9a1b2c3d", Brain: "/srv/shop", CallerRoot: "/srv/shop-wt3", Worktree: "/srv/shop-wt3", Theme: "read the docs", Tool: "Read"})
	beat(presence.Beat{AgentID: "m1nd-1", Brain: "/srv/other", Theme: "index"})
	h.clock.Advance(15 * time.Second)
	cs := connect(t, Config{Client: h.client(), AgentID: "codex-2", Dir: "/srv/shop-wt2"}, mcptest.Client{})
	return h, cs
}

// TestGolden fixes each tool's text, byte for byte (go test -run Golden
// -update rewrites testdata/*.golden).
func TestGolden(t *testing.T) {
	_, cs := goldenHall(t)
	steps := []struct {
		golden, tool string
		args         map[string]any
	}{
		{"handshake", "handshake", map[string]any{"brain": "/srv/shop", "theme": "fix the cart", "declared_intent": "mutate", "working_set": []string{"src/checkout/cart.go"}}},
		{"presences", "presences", nil},
		{"presences-brain", "presences", map[string]any{"brain": "/srv/shop"}},
		{"north", "north", map[string]any{"brain": "/srv/shop"}},
		{"north-other-side", "north", map[string]any{"agent_id": "claude-7d0c5e2a", "brain": "/srv/shop"}},
		{"cockpit", "cockpit", map[string]any{"brain": "/srv/shop"}},
		{"check", "check", map[string]any{"brain": "/srv/shop", "caller_root": "/srv/shop-wt2", "worktree": "/srv/shop-wt2", "paths": []string{"src/checkout/cart.go"}}},
		{"check-read-only", "check", map[string]any{"brain": "/srv/shop", "caller_root": "/srv/shop-wt2", "worktree": "/srv/shop-wt2", "paths": []string{"src/checkout/cart.go"}, "mutating": false}},
		{"leave", "leave", map[string]any{"brain": "/srv/shop"}},
		{"leave-again", "leave", map[string]any{"brain": "/srv/shop"}},
		{"north-not-live", "north", map[string]any{"brain": "/srv/shop"}},
		{"error-field", "handshake", map[string]any{"brain": "/srv/shop", "worktree": "shop-wt2"}},
		{"error-unknown-brain", "cockpit", map[string]any{"brain": "/srv/nowhere"}},
	}
	for _, st := range steps {
		got := mcptest.Text(t, mcptest.Call(t, cs, st.tool, st.args))
		path := filepath.Join("testdata", st.golden+".golden")
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (run with -update to create it)", st.golden, err)
		}
		if got != string(want) {
			t.Errorf("%s: text differs from %s\n got:\n%s\nwant:\n%s", st.golden, path, got, want)
		}
	}
}

// TestCockpitIsTheStrip: the cockpit tool's text is exactly the strip the
// cockpit endpoint renders for the same roster.
func TestCockpitIsTheStrip(t *testing.T) {
	h, cs := goldenHall(t)
	for _, brain := range []string{"", "/srv/shop"} {
		snap, err := h.svc.Snapshot(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		want := contract.CockpitFor(snap.ForBrain(brain), brain).String()
		res := mcptest.Call(t, cs, "cockpit", map[string]any{"brain": brain})
		var out CockpitOut
		mcptest.Structured(t, res, &out)
		if got := mcptest.Text(t, res); got != want || out.Text != want {
			t.Errorf("brain %q: text %q, structured %q\nwant %q", brain, got, out.Text, want)
		}
	}
}

// TestOutputsMatchTheirSchemas: every structured answer validates against
// the output schema its tool lists.
func TestOutputsMatchTheirSchemas(t *testing.T) {
	_, cs := goldenHall(t)
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		schemas[tool.Name] = r
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"handshake", map[string]any{"brain": "/srv/shop", "declared_intent": "mutate"}},
		{"presences", nil},
		{"north", map[string]any{"brain": "/srv/shop"}},
		{"cockpit", nil},
		{"leave", map[string]any{"brain": "/srv/shop"}},
	} {
		res := mcptest.Call(t, cs, c.tool, c.args)
		var v any
		mcptest.Structured(t, res, &v)
		if err := schemas[c.tool].Validate(v); err != nil {
			t.Errorf("%s: %v\n%s", c.tool, err, wireJSON(t, res))
		}
	}
}

// TestBadInputNamesTheField: a handshake the Hall would refuse is a tool
// error naming the field, and writes nothing.
func TestBadInputNamesTheField(t *testing.T) {
	h := newLocalHall(t)
	cs := connect(t, Config{Client: h.client(), AgentID: "codex-2", Dir: "/srv/shop"}, mcptest.Client{})
	long := func(n int) string { return strings.Repeat("x", n) }
	many := make([]string, presence.MaxWorkingSetLen+1)
	for i := range many {
		many[i] = "src"
	}
	cases := []struct {
		name  string
		args  map[string]any
		field string
	}{
		{"theme too long", map[string]any{"theme": long(presence.MaxThemeLen + 1)}, "theme"},
		{"intent too long", map[string]any{"declared_intent": long(presence.MaxThemeLen + 1)}, "declared_intent"},
		{"agent_id too long", map[string]any{"agent_id": long(presence.MaxIDLen + 1)}, "agent_id"},
		{"control character", map[string]any{"kind": "a\nb"}, "kind"},
		{"relative worktree", map[string]any{"worktree": "shop-wt2"}, "worktree"},
		{"relative brain", map[string]any{"brain": "srv/shop"}, "brain"},
		{"relative caller_root", map[string]any{"caller_root": "shop"}, "caller_root"},
		{"working set too long", map[string]any{"working_set": many}, "working_set"},
		{"working set entry too long", map[string]any{"working_set": []string{"/" + long(presence.MaxPathLen)}}, "working_set[0]"},
		{"wrong type", map[string]any{"theme": 7}, "theme"},
		{"a tool name", map[string]any{"tool": "Edit"}, "tool"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := mcptest.Call(t, cs, "handshake", tc.args)
			if got := mcptest.Text(t, res); !res.IsError || !strings.Contains(got, tc.field) {
				t.Errorf("got isError %v %q, want a tool error naming %s", res.IsError, got, tc.field)
			}
			if files := h.files(t); len(files) != 0 {
				t.Errorf("bad input wrote %v", files)
			}
		})
	}
	for _, args := range []map[string]any{{"presence_id": "prs_NOTHEX00000"}, {"brain": "rel"}} {
		for _, tool := range []string{"north", "leave"} {
			if res := mcptest.Call(t, cs, tool, args); !res.IsError {
				t.Errorf("%s %v: got %q, want a tool error", tool, args, mcptest.Text(t, res))
			}
		}
	}
	if res := mcptest.Call(t, cs, "presences", map[string]any{"brain": "rel"}); !res.IsError || !strings.Contains(mcptest.Text(t, res), "invalid_brain") {
		t.Errorf("presences of a relative brain: got %q", mcptest.Text(t, res))
	}
}

// TestDefaultAgentID: without an agent_id, a session beats as its
// client's name and 8 hex digits of the session, the same on every call of
// the session and another in the next session; Config.AgentID overrides
// it (hall mcp sets it from the Claude Code session).
func TestDefaultAgentID(t *testing.T) {
	h := newLocalHall(t)
	cfg := Config{Client: h.client(), Dir: "/srv/shop"}
	agentOf := func(cs *sdk.ClientSession) string {
		var out HandshakeOut
		mcptest.Structured(t, mcptest.Call(t, cs, "handshake", nil), &out)
		return out.AgentID
	}
	one := connect(t, cfg, mcptest.Client{Name: "Claude Code"})
	first := agentOf(one)
	if !regexp.MustCompile(`^claude-code-[0-9a-f]{8}$`).MatchString(first) {
		t.Errorf("default agent_id: got %q, want claude-code-<8 hex>", first)
	}
	if again := agentOf(one); again != first {
		t.Errorf("same session: got %q then %q", first, again)
	}
	if other := agentOf(connect(t, cfg, mcptest.Client{Name: "Claude Code"})); other == first {
		t.Errorf("another session got the same agent_id %q", other)
	}
	cfg.AgentID = "claude-7d0c5e2a"
	if got := agentOf(connect(t, cfg, mcptest.Client{Name: "Claude Code"})); got != "claude-7d0c5e2a" {
		t.Errorf("configured agent_id: got %q", got)
	}
	for name, want := range map[string]string{"": "mcp", "Cursor": "cursor", "  Codex CLI (beta) ": "codex-cli-beta", "日本": "mcp",
		strings.Repeat("ab", 40): strings.Repeat("ab", 16), strings.Repeat("a", 31) + "-b": strings.Repeat("a", 31)} {
		if got := clientSlug(name); got != want {
			t.Errorf("clientSlug(%q): got %q, want %q", name, got, want)
		}
	}
}

// TestRootsPlaceTheSession: a client's first root is the caller root, and
// the worktree and brain are measured there by git, as hall beat measures
// them; on the protocol every client speaks today (the server asks) and on
// the newest (the client is asked through the call). Without roots, the
// server's directory; in the Hall (no directory), brain is required.
func TestRootsPlaceTheSession(t *testing.T) {
	repo := gittest.TempDir(t)
	gittest.Init(t, repo)
	gittest.CommitAll(t, repo, "x")
	wt := filepath.Join(gittest.TempDir(t), "wt2")
	gittest.Worktree(t, repo, wt, "wt2", "main")
	sub := filepath.Join(wt, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := gittest.TempDir(t)

	for _, tc := range []struct {
		name     string
		roots    []string
		dir      string
		protocol string
		want     [3]string // caller_root, worktree, brain
	}{
		{"roots, server asks", []string{sub, elsewhere}, elsewhere, "2025-11-25", [3]string{sub, wt, repo}},
		{"roots, client asked in the call", []string{sub}, elsewhere, "", [3]string{sub, wt, repo}},
		{"no roots", nil, wt, "2025-11-25", [3]string{wt, wt, repo}},
		{"no roots, newest protocol", nil, repo, "", [3]string{repo, repo, repo}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newLocalHall(t)
			cs := connect(t, Config{Client: h.client(), AgentID: "a-1", Dir: tc.dir}, mcptest.Client{Roots: tc.roots, Protocol: tc.protocol})
			var out HandshakeOut
			mcptest.Structured(t, mcptest.Call(t, cs, "handshake", map[string]any{"theme": "x"}), &out)
			snap, err := h.svc.Snapshot(t.Context())
			if err != nil || len(snap.Live) != 1 {
				t.Fatalf("roster: %v %v", snap.Live, err)
			}
			r := snap.Live[0]
			if got := [3]string{r.CallerRoot, r.Worktree, r.Brain}; got != tc.want || r.PresenceID != out.PresenceID {
				t.Errorf("got caller_root, worktree, brain %q (id %s)\nwant %q (id %s)", got, r.PresenceID, tc.want, out.PresenceID)
			}
		})
	}

	t.Run("no roots, no directory", func(t *testing.T) {
		h := newLocalHall(t)
		cs := connect(t, Config{Client: h.client(), AgentID: "a-1"}, mcptest.Client{Protocol: "2025-11-25"})
		res := mcptest.Call(t, cs, "handshake", nil)
		if !res.IsError || !strings.Contains(mcptest.Text(t, res), "brain is required") {
			t.Errorf("got %q, want a tool error asking for brain", mcptest.Text(t, res))
		}
		res = mcptest.Call(t, cs, "handshake", map[string]any{"brain": "/srv/shop"})
		if res.IsError {
			t.Errorf("with brain: %s", mcptest.Text(t, res))
		}
	})

	t.Run("roots changed", func(t *testing.T) {
		h := newLocalHall(t)
		st, ct := sdk.NewInMemoryTransports()
		ss, err := NewServer(Config{Client: h.client(), AgentID: "a-1", Log: quiet()}).Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil)
		c.AddRoots(&sdk.Root{URI: "file://" + sub})
		cs, err := c.Connect(t.Context(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cs.Close(); _ = ss.Wait() }()
		var first, second HandshakeOut
		mcptest.Structured(t, mcptest.Call(t, cs, "handshake", nil), &first)
		c.RemoveRoots("file://" + sub)
		c.AddRoots(&sdk.Root{URI: "file://" + elsewhere})
		eventually.True(t, 10*time.Second, "the new root to be used", func() bool {
			mcptest.Structured(t, mcptest.Call(t, cs, "handshake", nil), &second)
			return second.PresenceID != first.PresenceID
		})
		if want := presence.ID("a-1", elsewhere); second.PresenceID != want {
			t.Errorf("after the roots changed: presence %s, want %s (a-1 on %s)", second.PresenceID, want, elsewhere)
		}
	})
}

// TestFailOpen: a registry that can be neither read nor written breaks no
// tool: the reads answer, saying the roster is unreadable; a handshake
// answers stored false with the reason; no call is a tool error.
func TestFailOpen(t *testing.T) {
	h := newLocalHall(t)
	cs := connect(t, Config{Client: h.client(), AgentID: "codex-2", Dir: "/srv/shop"}, mcptest.Client{})
	dir := h.store.Dir()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	var hs HandshakeOut
	mcptest.Structured(t, mcptest.Call(t, cs, "handshake", map[string]any{"theme": "x"}), &hs)
	if hs.Stored || hs.Reason == "" {
		t.Errorf("handshake: %+v, want stored false with the reason", hs)
	}
	var ps PresencesOut
	mcptest.Structured(t, mcptest.Call(t, cs, "presences", nil), &ps)
	if ps.Error != "registry_unreadable" || ps.Detail == "" || len(ps.Presences) != 0 {
		t.Errorf("presences: %+v, want registry_unreadable and no roster", ps)
	}
	var n NorthOut
	mcptest.Structured(t, mcptest.Call(t, cs, "north", nil), &n)
	if n.Error != "registry_unreadable" || len(n.North) != 0 {
		t.Errorf("north: %+v", n)
	}
	if got := mcptest.Text(t, mcptest.Call(t, cs, "cockpit", nil)); got != contract.UnreadableCockpit(errors.New("unreadable"), "") {
		t.Errorf("cockpit: %q", got)
	}
}

// TestToolErrorsSayTheRefusalNeverTheCause: a tool error says a refusal by
// its code and detail, a domain error under its code, and a failure the
// Hall did not foresee as internal: its cause (which may name a user's
// files) is logged at Error, once, and never sent to the client.
func TestToolErrorsSayTheRefusalNeverTheCause(t *testing.T) {
	secret := errors.New("open /home/ana/.hall/registry/prs_0123456789ab.json: input/output error")
	for _, tc := range []struct {
		name   string
		err    error
		text   string
		logged bool
	}{
		{"a refusal", contract.Refuse(contract.KindInvalid, "invalid_brain", "brain %q: want an absolute path", "rel"), `invalid_brain: brain "rel": want an absolute path`, false},
		{"a domain error", presence.Errorf(presence.ENOTFOUND, "no presence prs_x"), presence.ENOTFOUND + ": no presence prs_x", false},
		{"an internal cause", fmt.Errorf("read record: %w", secret), presence.EINTERNAL + ": ", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			s := &server{log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))}
			res := s.errorResult("north", tc.err)
			got := res.Content[0].(*sdk.TextContent).Text
			if !res.IsError || !strings.HasPrefix(got, tc.text) {
				t.Errorf("sent %q (isError %v), want it to start %q", got, res.IsError, tc.text)
			}
			if strings.Contains(got, "input/output error") || strings.Contains(got, "/home/ana") {
				t.Errorf("the cause reached the client: %q", got)
			}
			if n := strings.Count(log.String(), "level=ERROR"); n != map[bool]int{true: 1}[tc.logged] {
				t.Errorf("logged at Error %d times, want once for an internal cause and never otherwise:\n%s", n, log.String())
			}
			if tc.logged && !strings.Contains(log.String(), "input/output error") {
				t.Errorf("the log lost the cause: %s", log.String())
			}
		})
	}
}
