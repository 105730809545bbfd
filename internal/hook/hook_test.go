package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/hooktest"
)

// The agent ids of the recorded sessions.
var (
	claudeID = hooktest.AgentID(hooktest.ClaudeCode, "")
	codexID  = hooktest.AgentID(hooktest.Codex, "")
	cursorID = hooktest.AgentID(hooktest.Cursor, "")
	geminiID = hooktest.AgentID(hooktest.GeminiCLI, "")
)

const (
	wt   = "/home/ana/shop-wt2"
	cart = wt + "/src/checkout/cart.go"
	// Gemini CLI's payloads were recorded in another worktree.
	gwt = "/home/ana/shop-wt3"
)

// TestParseRecordedPayloads reads every recorded payload of each agent and
// checks the event it makes.
func TestParseRecordedPayloads(t *testing.T) {
	type want struct {
		agent, parent, tool string
		touched             []string
		leave, gate         bool
	}
	cases := map[string]map[string]want{
		hooktest.ClaudeCode: {
			"session-start.json":              {agent: claudeID},
			"user-prompt-submit.json":         {agent: claudeID},
			"pre-tool-use-write.json":         {agent: claudeID, tool: "Write", touched: []string{cart}, gate: true},
			"post-tool-use-edit.json":         {agent: claudeID, tool: "Edit", touched: []string{cart}},
			"post-tool-use-read.json":         {agent: claudeID, tool: "Read"},
			"pre-tool-use-notebook-edit.json": {agent: claudeID, tool: "NotebookEdit", touched: []string{wt + "/notes/totals.ipynb"}, gate: true},
			"stop.json":                       {agent: claudeID},
			"session-end.json":                {agent: claudeID, leave: true},
			"subagent-start.json":             {agent: claudeID + "/a3f9c1d2e4b5", parent: claudeID},
			"subagent-pre-tool-use-edit.json": {agent: claudeID + "/a3f9c1d2e4b5", parent: claudeID, tool: "Edit", touched: []string{cart}, gate: true},
			"subagent-stop.json":              {agent: claudeID + "/a3f9c1d2e4b5", parent: claudeID, leave: true},
		},
		hooktest.Codex: {
			"session-start.json":                     {agent: codexID},
			"user-prompt-submit.json":                {agent: codexID},
			"pre-tool-use-apply-patch.json":          {agent: codexID, tool: "apply_patch", touched: []string{cart, wt + "/src/checkout/sum.go"}}, // Codex honours no ask: nothing gates
			"post-tool-use-apply-patch.json":         {agent: codexID, tool: "apply_patch", touched: []string{cart, wt + "/src/checkout/total.go", wt + "/src/checkout/old_total.go"}},
			"post-tool-use-bash.json":                {agent: codexID, tool: "Bash"},
			"stop.json":                              {agent: codexID},
			"subagent-pre-tool-use-apply-patch.json": {agent: codexID + "/0199a1f3-0b7d-7e10-8c2f-3d4e5f607182", parent: codexID, tool: "apply_patch", touched: []string{cart}},
			"subagent-stop.json":                     {agent: codexID + "/0199a1f3-0b7d-7e10-8c2f-3d4e5f607182", parent: codexID, leave: true},
		},
		hooktest.Cursor: {
			"session-start.json":          {agent: cursorID},
			"before-submit-prompt.json":   {agent: cursorID},
			"pre-tool-use-write.json":     {agent: cursorID, tool: "Write", touched: []string{cart}, gate: true},
			"post-tool-use-write.json":    {agent: cursorID, tool: "Write", touched: []string{cart}},
			"before-shell-execution.json": {agent: cursorID, tool: "Shell", gate: true},
			"before-mcp-execution.json":   {agent: cursorID, tool: "apply", gate: true},
			"before-read-file.json":       {agent: cursorID, tool: "Read", gate: true},
			"after-file-edit.json":        {agent: cursorID, touched: []string{cart}},
			"stop.json":                   {agent: cursorID},
			"session-end.json":            {agent: cursorID, leave: true},
		},
		hooktest.GeminiCLI: {
			"session-start.json":             {agent: geminiID},
			"before-agent.json":              {agent: geminiID},
			"before-tool-replace.json":       {agent: geminiID, tool: "replace", touched: []string{gwt + "/src/checkout/cart.go"}}, // no ask honoured: nothing gates
			"before-tool-shell-git-add.json": {agent: geminiID, tool: "run_shell_command"},
			"after-tool-write-file.json":     {agent: geminiID, tool: "write_file", touched: []string{gwt + "/src/checkout/decimal.go"}},
			"session-end.json":               {agent: geminiID, leave: true},
		},
	}
	adapterOf := map[string]Adapter{hooktest.ClaudeCode: claude, hooktest.Codex: codex, hooktest.Cursor: cursor{}, hooktest.GeminiCLI: gemini{}}
	for folder, byName := range cases {
		ad := adapterOf[folder]
		// Every recorded payload has a case, so a new one cannot go untested.
		for _, name := range hooktest.Names(t, folder) {
			if _, ok := byName[name]; !ok {
				t.Errorf("%s/%s: no case", folder, name)
			}
		}
		for name, w := range byName {
			ev, err := ad.Parse([]byte(hooktest.Payload(t, folder, name)))
			if err != nil {
				t.Errorf("%s/%s: %v", folder, name, err)
				continue
			}
			b := ev.Beat
			if b.AgentID != w.agent || b.ParentAgentID != w.parent || b.Tool != w.tool || ev.Leave != w.leave || ev.Gate != w.gate ||
				!slices.Equal(b.Touched, w.touched) || b.CallerRoot != hooktest.RecordedWorktreeOf(folder) || b.Kind != ad.Kind() {
				t.Errorf("%s/%s: got agent %q parent %q tool %q touched %q leave %v gate %v caller_root %q kind %q, want %+v",
					folder, name, b.AgentID, b.ParentAgentID, b.Tool, b.Touched, ev.Leave, ev.Gate, b.CallerRoot, b.Kind, w)
			}
			if b.Brain != "" || b.Worktree != "" {
				t.Errorf("%s/%s: the adapter set brain %q or worktree %q: the caller derives them", folder, name, b.Brain, b.Worktree)
			}
		}
	}
}

func TestParseRefusesUnusablePayloads(t *testing.T) {
	for _, ad := range []Adapter{claude, codex, cursor{}, gemini{}} {
		for _, p := range []string{"", "not json", "[]", `{"hook_event_name":"PreToolUse"}`, `{"session_id":7}`, strings.Repeat(" ", MaxPayload+1)} {
			if _, err := ad.Parse([]byte(p)); err == nil {
				t.Errorf("%s: Parse(%.40q) accepted it", ad.Agent(), p)
			}
		}
	}
}

var north = []string{"collision: codex-0199a1f2 (prs_7b1f00a2c9e3) also mutating at /home/ana/shop-wt2 [same_worktree, touched_overlap] paths /home/ana/shop-wt2/src/checkout/cart.go"}

// TestAnswers checks each agent's output on the events that carry it, and
// silence where they do not or when there is nothing to say.
func TestAnswers(t *testing.T) {
	type answer map[string]any
	parse := func(t *testing.T, b []byte) answer {
		t.Helper()
		var a answer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("answer %s is not JSON: %v", b, err)
		}
		return a
	}
	for _, tc := range []struct {
		ad     Adapter
		folder string
		name   string
		ask    bool
		check  func(t *testing.T, a answer)
	}{
		{claude, hooktest.ClaudeCode, "pre-tool-use-write.json", false, func(t *testing.T, a answer) {
			h := a["hookSpecificOutput"].(map[string]any)
			if h["hookEventName"] != "PreToolUse" || !strings.Contains(h["additionalContext"].(string), "codex-0199a1f2") || h["permissionDecision"] != nil {
				t.Errorf("got %v", a)
			}
		}},
		{claude, hooktest.ClaudeCode, "pre-tool-use-write.json", true, func(t *testing.T, a answer) {
			h := a["hookSpecificOutput"].(map[string]any)
			if h["permissionDecision"] != "ask" || !strings.Contains(h["permissionDecisionReason"].(string), "codex-0199a1f2") {
				t.Errorf("got %v", a)
			}
		}},
		{claude, hooktest.ClaudeCode, "session-start.json", false, func(t *testing.T, a answer) {
			h := a["hookSpecificOutput"].(map[string]any)
			if h["hookEventName"] != "SessionStart" || h["additionalContext"] == nil {
				t.Errorf("got %v", a)
			}
		}},
		{claude, hooktest.ClaudeCode, "post-tool-use-edit.json", false, func(t *testing.T, a answer) {
			if a["hookSpecificOutput"].(map[string]any)["hookEventName"] != "PostToolUse" {
				t.Errorf("got %v", a)
			}
		}},
		// Codex takes an ask for a failed hook and loses the warning: under
		// the ask policy it is warned, never asked.
		{codex, hooktest.Codex, "pre-tool-use-apply-patch.json", true, func(t *testing.T, a answer) {
			h := a["hookSpecificOutput"].(map[string]any)
			if h["permissionDecision"] != nil || !strings.Contains(h["additionalContext"].(string), "cart.go") {
				t.Errorf("got %v", a)
			}
		}},
		{gemini{}, hooktest.GeminiCLI, "session-start.json", false, func(t *testing.T, a answer) {
			h := a["hookSpecificOutput"].(map[string]any)
			if h["hookEventName"] != "SessionStart" || !strings.Contains(h["additionalContext"].(string), "codex-0199a1f2") || a["systemMessage"] != nil {
				t.Errorf("got %v", a)
			}
		}},
		{gemini{}, hooktest.GeminiCLI, "before-agent.json", true, func(t *testing.T, a answer) {
			h := a["hookSpecificOutput"].(map[string]any)
			if h["hookEventName"] != "BeforeAgent" || !strings.Contains(h["additionalContext"].(string), "codex-0199a1f2") {
				t.Errorf("got %v", a)
			}
		}},
		{gemini{}, hooktest.GeminiCLI, "after-tool-write-file.json", false, func(t *testing.T, a answer) {
			h := a["hookSpecificOutput"].(map[string]any)
			if h["hookEventName"] != "AfterTool" || !strings.Contains(h["additionalContext"].(string), "codex-0199a1f2") {
				t.Errorf("got %v", a)
			}
		}},
		// BeforeTool takes no context: the person reads it, once (the
		// message suppressed from Gemini CLI's log, which would repeat
		// it), and nothing is decided, under ask as under warn.
		{gemini{}, hooktest.GeminiCLI, "before-tool-replace.json", true, func(t *testing.T, a answer) {
			if len(a) != 2 || !strings.Contains(a["systemMessage"].(string), "codex-0199a1f2") || a["suppressOutput"] != true {
				t.Errorf("got %v", a)
			}
		}},
		{cursor{}, hooktest.Cursor, "pre-tool-use-write.json", false, func(t *testing.T, a answer) {
			if _, ok := a["permission"]; ok || !strings.Contains(a["agent_message"].(string), "codex-0199a1f2") || a["user_message"] == nil {
				t.Errorf("got %v", a)
			}
		}},
		{cursor{}, hooktest.Cursor, "pre-tool-use-write.json", true, func(t *testing.T, a answer) {
			if a["permission"] != "ask" || a["agent_message"] == nil {
				t.Errorf("got %v", a)
			}
		}},
		{cursor{}, hooktest.Cursor, "before-shell-execution.json", false, func(t *testing.T, a answer) {
			if _, ok := a["permission"]; ok || a["agent_message"] == nil {
				t.Errorf("got %v", a)
			}
		}},
		{cursor{}, hooktest.Cursor, "session-start.json", false, func(t *testing.T, a answer) {
			if !strings.Contains(a["additional_context"].(string), "codex-0199a1f2") {
				t.Errorf("got %v", a)
			}
		}},
		{cursor{}, hooktest.Cursor, "post-tool-use-write.json", false, func(t *testing.T, a answer) {
			if a["additional_context"] == nil {
				t.Errorf("got %v", a)
			}
		}},
	} {
		t.Run(tc.ad.Agent()+"/"+tc.name, func(t *testing.T) {
			ev, err := tc.ad.Parse([]byte(hooktest.Payload(t, tc.folder, tc.name)))
			if err != nil {
				t.Fatal(err)
			}
			out := tc.ad.Answer(ev, Say{North: north, Ask: tc.ask})
			if out == nil {
				t.Fatal("no answer")
			}
			tc.check(t, parse(t, out))
			if tc.ad.Answer(ev, Say{}) != nil {
				t.Errorf("an answer with nothing to say")
			}
		})
	}
	// Events that carry no output stay silent however much there is to say.
	for _, tc := range []struct {
		ad     Adapter
		folder string
		names  []string
	}{
		{claude, hooktest.ClaudeCode, []string{"stop.json", "session-end.json", "subagent-stop.json"}},
		{codex, hooktest.Codex, []string{"stop.json", "subagent-stop.json"}},
		{cursor{}, hooktest.Cursor, []string{"stop.json", "after-file-edit.json", "before-submit-prompt.json", "before-read-file.json", "session-end.json"}},
		{gemini{}, hooktest.GeminiCLI, []string{"session-end.json"}},
	} {
		for _, name := range tc.names {
			ev, err := tc.ad.Parse([]byte(hooktest.Payload(t, tc.folder, name)))
			if err != nil {
				t.Fatal(err)
			}
			if out := tc.ad.Answer(ev, Say{North: north, Ask: true}); out != nil {
				t.Errorf("%s/%s: answered %s, want silence", tc.ad.Agent(), name, out)
			}
		}
	}
}

// TestNeverAllowNorDeny: whatever the event and policy, no adapter's
// answer grants or refuses a permission.
func TestNeverAllowNorDeny(t *testing.T) {
	for _, folder := range []string{hooktest.ClaudeCode, hooktest.Codex, hooktest.Cursor, hooktest.GeminiCLI} {
		ad, _ := For(map[string]string{hooktest.ClaudeCode: "claude", hooktest.Codex: "codex", hooktest.Cursor: "cursor", hooktest.GeminiCLI: "gemini"}[folder])
		for _, name := range hooktest.Names(t, folder) {
			ev, err := ad.Parse([]byte(hooktest.Payload(t, folder, name)))
			if err != nil {
				t.Fatal(err)
			}
			for _, ask := range []bool{false, true} {
				checkWitness(t, ad.Answer(ev, Say{North: north, Ask: ask}))
			}
		}
	}
}

// checkWitness fails on an answer holding "allow" or "deny" as a decision.
func checkWitness(t testing.TB, out []byte) {
	t.Helper()
	if out == nil {
		return
	}
	var a map[string]any
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("answer %q is not a JSON object: %v", out, err)
	}
	decisions := []any{a["permission"], a["decision"]}
	if h, ok := a["hookSpecificOutput"].(map[string]any); ok {
		decisions = append(decisions, h["permissionDecision"], h["decision"])
	}
	for _, d := range decisions {
		if d != nil && d != "ask" {
			t.Errorf("answer %s decides %v: the Hall only warns or asks", out, d)
		}
	}
	if _, ok := a["continue"]; ok {
		t.Errorf("answer %s sets continue", out)
	}
}

func TestDecide(t *testing.T) {
	gate := Event{Name: "PreToolUse", Gate: true}
	gateTouch := gate
	gateTouch.Beat.Touched = []string{cart}
	post := Event{Name: "PostToolUse"}
	for _, tc := range []struct {
		name     string
		p        Policy
		ev       Event
		mutating bool
		north    []string
		ask      bool
	}{
		{"ask, gate, mutating, colliding", Ask, gate, true, north, true},
		{"ask, gate, touched files, colliding", Ask, gateTouch, false, north, true},
		{"warn never asks", Warn, gate, true, north, false},
		{"no collision", Ask, gate, true, nil, false},
		{"not mutating", Ask, gate, false, north, false},
		{"not a gate", Ask, post, true, north, false},
	} {
		say := Decide(tc.p, tc.ev, tc.mutating, tc.north)
		if say.Ask != tc.ask || !slices.Equal(say.North, tc.north) {
			t.Errorf("%s: got %+v, want ask %v", tc.name, say, tc.ask)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	for in, want := range map[string]Policy{"": Warn, "warn": Warn, "ask": Ask} {
		if got, err := ParsePolicy(in); err != nil || got != want {
			t.Errorf("ParsePolicy(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"allow", "deny", "ASK", " ask"} {
		if _, err := ParsePolicy(in); err == nil {
			t.Errorf("ParsePolicy(%q) accepted it", in)
		}
	}
}

func TestPatchFiles(t *testing.T) {
	for _, tc := range []struct {
		patch string
		want  []string
	}{
		{"no patch here", nil},
		{"*** Begin Patch\n*** Add File: a.go\n+x\n*** Update File: b/c.go\n*** Move to: b/d.go\n*** Delete File: e.go\n*** End Patch\n", []string{"a.go", "b/c.go", "b/d.go", "e.go"}},
		{"apply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Update File:   spaced.go  \r\n*** End Patch\r\n*** Add File: after-end.go\n", []string{"spaced.go"}},
		{"*** Begin Patch\n*** Add File: \n+ +*** Add File: not-a-marker.go\n", nil},
	} {
		if got := PatchFiles(tc.patch); !slices.Equal(got, tc.want) {
			t.Errorf("PatchFiles(%q) = %q, want %q", tc.patch, got, tc.want)
		}
	}
}

func TestTouchedIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	for i := range 50 {
		b.WriteString("*** Add File: f" + strings.Repeat("x", i) + ".go\n")
	}
	payload, _ := json.Marshal(map[string]any{
		"session_id": "s", "cwd": wt, "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
		"tool_input": map[string]string{"input": b.String()},
	})
	ev, err := codex.Parse(payload)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Beat.Touched) != MaxTouched || ev.Beat.Touched[MaxTouched-1] != wt+"/f"+strings.Repeat("x", 49)+".go" {
		t.Errorf("got %d touched (last %q), want the last %d", len(ev.Beat.Touched), ev.Beat.Touched[len(ev.Beat.Touched)-1], MaxTouched)
	}
}

func TestContextText(t *testing.T) {
	many := make([]string, 8)
	for i := range many {
		many[i] = "collision: agent-" + string(rune('a'+i))
	}
	got := ContextText(claudeID, many)
	if !strings.Contains(got, claudeID) || !strings.Contains(got, "agent-e") || strings.Contains(got, "agent-f") || !strings.Contains(got, "3 more") {
		t.Errorf("ContextText = %q: want the agent, the first 5 lines and the rest counted", got)
	}
}

// TestcapabilityTable: every adapter has its row, and docs/hooks.md holds
// the table as the code renders it.
func TestCapabilityTable(t *testing.T) {
	for _, agent := range Agents() {
		c, ok := CapabilityOf(agent)
		if !ok || c.Product == "" || c.ProjectFile == "" || c.UserFile == "" || len(c.ContextEvents) == 0 {
			t.Errorf("%s: row %+v", agent, c)
		}
	}
	if len(capabilities()) != len(Agents()) {
		t.Errorf("%d rows for %d adapters", len(capabilities()), len(Agents()))
	}
	if c, _ := CapabilityOf("codex"); len(c.AskEvents) != 0 || c.Trust == "" {
		t.Errorf("codex: asks on %v, trust %q; want never asked and the /hooks step", c.AskEvents, c.Trust)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "hooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), capabilityTable()) {
		t.Errorf("docs/hooks.md does not hold the capability table as the code renders it:\n%s", capabilityTable())
	}
}

// TestContextTextNamesNoFilesItDoesNotShow: a collision on a shared place
// with no file named (two sessions in one worktree, nothing declared or
// touched in common) is not told as "those files".
func TestContextTextNamesNoFilesItDoesNotShow(t *testing.T) {
	text := ContextText("codex-2", []string{"collision: claude-7 (prs_0d5c63d0ce54) also mutating at /srv/shop-wt2 [same_worktree]"})
	if strings.Contains(text, "those files") || !strings.Contains(text, "files in that place") {
		t.Errorf("got %q, want the advice about the place, not about files it never named", text)
	}
}

// TestModelHears: for each adapter and recorded event, whether the model
// reads the answer (the capability table), and that an event the model
// does not hear but the adapter answers (Gemini CLI's BeforeTool) answers
// the person only.
func TestModelHears(t *testing.T) {
	for _, tc := range []struct {
		ad     Adapter
		folder string
		name   string
		hears  bool
		late   bool // heard only after the tool ran
	}{
		{claude, hooktest.ClaudeCode, "session-start.json", true, false},
		{claude, hooktest.ClaudeCode, "pre-tool-use-write.json", true, false},
		{claude, hooktest.ClaudeCode, "stop.json", false, false},
		{claude, hooktest.ClaudeCode, "session-end.json", false, false},
		{codex, hooktest.Codex, "session-start.json", true, false},
		{codex, hooktest.Codex, "user-prompt-submit.json", true, false},
		{codex, hooktest.Codex, "pre-tool-use-apply-patch.json", true, true},
		{codex, hooktest.Codex, "post-tool-use-bash.json", true, false},
		{codex, hooktest.Codex, "stop.json", false, false},
		{cursor{}, hooktest.Cursor, "session-start.json", true, false},
		{cursor{}, hooktest.Cursor, "before-shell-execution.json", true, false},
		{cursor{}, hooktest.Cursor, "after-file-edit.json", false, false},
		{gemini{}, hooktest.GeminiCLI, "session-start.json", true, false},
		{gemini{}, hooktest.GeminiCLI, "before-agent.json", true, false},
		{gemini{}, hooktest.GeminiCLI, "before-tool-replace.json", false, false},
		{gemini{}, hooktest.GeminiCLI, "before-tool-shell-git-add.json", false, false},
		{gemini{}, hooktest.GeminiCLI, "after-tool-write-file.json", true, false},
		{gemini{}, hooktest.GeminiCLI, "session-end.json", false, false},
	} {
		ev, err := tc.ad.Parse([]byte(hooktest.Payload(t, tc.folder, tc.name)))
		if err != nil {
			t.Fatal(err)
		}
		if got := ModelHears(tc.ad, ev); got != tc.hears {
			t.Errorf("%s/%s: ModelHears %v, want %v", tc.ad.Agent(), tc.name, got, tc.hears)
		}
		if c, _ := CapabilityOf(tc.ad.Agent()); c.HeardAfterRun(ev.Name) != tc.late {
			got := !tc.late
			t.Errorf("%s/%s: heard after the run %v, want %v", tc.ad.Agent(), tc.name, got, tc.late)
		}
		out := tc.ad.Answer(ev, Say{North: north, Guard: []string{"shell guard: `git add -A` would stage"}})
		if tc.hears && out == nil {
			t.Errorf("%s/%s: heard, but nothing answered", tc.ad.Agent(), tc.name)
		}
		if !tc.hears && out != nil && !strings.Contains(string(out), `"systemMessage"`) {
			t.Errorf("%s/%s: not heard, but answered %s; want nothing, or the person's systemMessage", tc.ad.Agent(), tc.name, out)
		}
	}
}

// TestGeminiContextHasNoEntities: Gemini CLI escapes <, > and & in a
// hook's context as HTML entities, so the text going there carries their
// fullwidth forms; the person's systemMessage and the other agents' text
// are as written.
func TestGeminiContextHasNoEntities(t *testing.T) {
	say := Say{North: []string{"collision: codex-1 (prs_000000000001) also mutating at /srv/a&b [same_worktree]"},
		Guard: []string{"shell guard: `go test > out.txt && git add -A` would stage the uncommitted work of \"codex-1\": \"<x>.go\" (modified)"}}
	for _, name := range []string{"after-tool-write-file.json", "before-agent.json", "session-start.json"} {
		ev, err := gemini{}.Parse([]byte(hooktest.Payload(t, hooktest.GeminiCLI, name)))
		if err != nil {
			t.Fatal(err)
		}
		var a geminiAnswer
		if err := json.Unmarshal(gemini{}.Answer(ev, say), &a); err != nil || a.HookSpecificOutput == nil {
			t.Fatalf("%s: %v %+v", name, err, a)
		}
		text := a.HookSpecificOutput.AdditionalContext
		if strings.ContainsAny(text, "<>&") {
			t.Errorf("%s: the context holds <, > or &: %q", name, text)
		}
		for _, want := range []string{"go test ＞ out.txt ＆＆ git add -A", "＜x＞.go", "/srv/a＆b"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the context %q; want %q", name, text, want)
			}
		}
	}
	for _, ad := range []Adapter{claude, codex} {
		ev, _ := ad.Parse([]byte(`{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash"}`))
		if out := string(ad.Answer(ev, say)); !strings.Contains(out, `go test \u003e out.txt`) {
			t.Errorf("%s: %s; want the text as written (JSON escapes > itself)", ad.Agent(), out)
		}
	}
}
