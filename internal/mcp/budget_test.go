package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
	"github.com/hall-dev/hall/internal/presence"
)

// tokens is the budget's measure: characters / 4, rounded up.
func tokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// wireJSON is the structured content as the client received it, encoded
// as the server sends it (no HTML escaping).
func wireJSON(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res.StructuredContent); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// worst is text of n bytes that costs the most once encoded: '"' is one
// character in the text and two in JSON.
func worst(n int) string { return strings.Repeat(`"`, n) }

// worstPath is an absolute path of n bytes made of worst segments.
func worstPath(tag string, n int) string {
	p := "/" + tag
	for len(p) < n-9 {
		p += "/" + worst(8)
	}
	return p[:min(len(p), n)]
}

// TestBudget fixes the budget mechanically: every tool's text and its
// structured content each stay within the cockpit's budget (800 tokens at
// characters/4) in the worst case: every field at its limit in characters
// JSON doubles, 17 presences in one worktree, caller root and working set,
// all mutating, so every pair collides: more than every cap, with "+N
// more" counts of two and three digits (more presences only cost time).
func TestBudget(t *testing.T) {
	h := newLocalHall(t)
	brain := worstPath("brain", presence.MaxPathLen)
	place := worstPath("wt", presence.MaxPathLen)
	ws := make([]string, presence.MaxWorkingSetLen)
	for i := range ws {
		ws[i] = worstPath(fmt.Sprintf("ws%02d", i), presence.MaxPathLen)
	}
	const n = 16 // presences beside the handshaking one
	agent := func(i int) string { return fmt.Sprintf("%03d", i) + worst(presence.MaxIDLen-3) }
	for i := range n {
		_, err := h.svc.Beat(t.Context(), presence.Beat{
			AgentID: agent(i), Brain: brain, CallerRoot: place, Worktree: place, WorkingSet: ws,
			Kind: worst(presence.MaxIDLen), Theme: worst(presence.MaxThemeLen), TaskRef: worst(presence.MaxIDLen),
			DeclaredIntent: worst(presence.MaxThemeLen), Tool: "Edit",
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, Config{Client: h.client(), AgentID: agent(n)}, mcptest.Client{})

	hs := mcptest.Call(t, cs, "handshake", map[string]any{
		"brain": brain, "caller_root": place, "worktree": place, "working_set": ws,
		"kind": worst(presence.MaxIDLen), "theme": worst(presence.MaxThemeLen), "task_ref": worst(presence.MaxIDLen),
		"declared_intent": "mutate", // the signal word: the others declare the longest text, which signals nothing
	})
	var out HandshakeOut
	mcptest.Structured(t, hs, &out)
	if len(out.North) != maxNorth || out.NorthMore != n-maxNorth {
		t.Fatalf("handshake north: got %d lines and %d more, want %d and %d", len(out.North), out.NorthMore, maxNorth, n-maxNorth)
	}
	results := map[string]*sdk.CallToolResult{"handshake": hs}
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"presences", "presences", nil},
		{"presences of the brain", "presences", map[string]any{"brain": brain}},
		{"north", "north", map[string]any{"presence_id": out.PresenceID}},
		{"cockpit", "cockpit", nil},
		{"check", "check", map[string]any{"brain": brain, "caller_root": place, "worktree": place, "paths": ws}},
		{"cockpit of the brain", "cockpit", map[string]any{"brain": brain}},
		{"unknown brain", "presences", map[string]any{"brain": "/" + strings.Repeat("x", 1<<20)}},
		{"leave", "leave", map[string]any{"presence_id": out.PresenceID}},
		{"snapshots", "snapshots", nil},
	} {
		results[tc.name] = mcptest.Call(t, cs, tc.tool, tc.args)
	}
	if !strings.Contains(mcptest.Text(t, results["presences"]), fmt.Sprintf("… +%d more", n+1-maxRows)) {
		t.Errorf("presences: no \"+N more\" line:\n%s", mcptest.Text(t, results["presences"]))
	}
	for name, res := range results {
		txt := mcptest.Text(t, res)
		if got := tokens(txt); got > contract.CockpitBudgetTokens {
			t.Errorf("%s: text is %d tokens, budget %d", name, got, contract.CockpitBudgetTokens)
		}
		if res.IsError {
			t.Logf("%s: error text %d tokens", name, tokens(txt))
			continue
		}
		js := wireJSON(t, res)
		if got := tokens(js); got > contract.CockpitBudgetTokens {
			t.Errorf("%s: structured content is %d tokens, budget %d", name, got, contract.CockpitBudgetTokens)
		}
		t.Logf("%s: text %d tokens, structured %d tokens", name, tokens(txt), tokens(js))
	}
}
