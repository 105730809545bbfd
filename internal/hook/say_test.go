package hook

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract/contracttest"
	"github.com/hall-dev/hall/internal/hooktest"
)

func TestShellCommand(t *testing.T) {
	for _, tc := range []struct {
		tool, input, want string
	}{
		{"Bash", `{"command":"git add -A && git commit -m wip"}`, "git add -A && git commit -m wip"},
		{"shell", `{"command":["bash","-lc","git stash"]}`, "git stash"},
		{"shell", `{"command":["git","commit","-m","two words"]}`, "git commit -m 'two words'"},
		{"local_shell", `{"command":"rm -rf src"}`, "rm -rf src"},
		{"Edit", `{"command":"git stash"}`, ""}, // not a shell tool
		{"Bash", `{"cmd":"git stash"}`, ""},
		{"Bash", `{"command":42}`, ""},
		{"Bash", `not json`, ""},
		{"Bash", `{"command":"echo \"a\tb\" \u00e9"}`, "echo \"a\tb\" é"},
		{"Bash", `{"command":"ls","command":"git stash"}`, "ls"}, // no agent writes a key twice: the first is read
		{"Bash", `{"command.x":"ls"}`, ""},
		{"Bash", `{"description":"the command","command":"git add -A"}`, "git add -A"},
		{"shell", `{"command":["git",1]}`, ""},
		{"shell", `{"command":[]}`, ""},
		{"Bash", `{"command":null}`, ""},
	} {
		if got := shellCommand(tc.tool, json.RawMessage(tc.input)); got != tc.want {
			t.Errorf("%s %s: got %q, want %q", tc.tool, tc.input, got, tc.want)
		}
	}
}

// TestEventMoments: each adapter says which events start a session or
// a prompt, which fire before a tool, and the shell command about to run.
func TestEventMoments(t *testing.T) {
	type want struct {
		start, before bool
		command       string
	}
	for _, tc := range []struct {
		ad      Adapter
		folder  string
		name    string
		payload string
		want    want
	}{
		{claude, hooktest.ClaudeCode, "session-start.json", "", want{start: true}},
		{claude, hooktest.ClaudeCode, "user-prompt-submit.json", "", want{start: true}},
		{claude, hooktest.ClaudeCode, "pre-tool-use-write.json", "", want{before: true}},
		{claude, hooktest.ClaudeCode, "post-tool-use-edit.json", "", want{}},
		{claude, "", "", `{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git reset --hard"}}`, want{before: true, command: "git reset --hard"}},
		{codex, hooktest.Codex, "post-tool-use-bash.json", "", want{}},
		{codex, "", "", `{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git add ."}}`, want{before: true, command: "git add ."}},
		{cursor{}, hooktest.Cursor, "session-start.json", "", want{start: true}},
		{cursor{}, hooktest.Cursor, "before-submit-prompt.json", "", want{start: true}},
		{cursor{}, hooktest.Cursor, "before-shell-execution.json", "", want{before: true, command: "go test ./src/checkout/..."}},
		{cursor{}, hooktest.Cursor, "before-read-file.json", "", want{before: true}},
		{cursor{}, hooktest.Cursor, "after-file-edit.json", "", want{}},
	} {
		p := tc.payload
		if p == "" {
			p = hooktest.Payload(t, tc.folder, tc.name)
		}
		ev, err := tc.ad.Parse([]byte(p))
		if err != nil {
			t.Fatalf("%s %s: %v", tc.ad.Agent(), tc.name, err)
		}
		if got := (want{ev.Start, ev.Before, ev.Command}); got != tc.want {
			t.Errorf("%s %s%s: got %+v, want %+v", tc.ad.Agent(), tc.name, tc.payload, got, tc.want)
		}
	}
}

// TestSayText: what the model reads, part by part, and nothing when there
// is nothing to say.
func TestSayText(t *testing.T) {
	north := []string{"collision: codex-2 (prs_7b1f00a2c9e3) also mutating at /shop [same_worktree]", "collision: cursor-3 (prs_000000000003) also mutating at /shop [same_worktree]"}
	guard := []string{"shell guard: `git stash` would stash away the uncommitted work of \"codex-2\": \"src/cart.go\" (modified)"}
	others := []string{"The Hall: other live sessions have uncommitted changes in this worktree (…): \"codex-2\": \"src/cart.go\"", "Leave them alone; they are not yours to revert, commit or stop for."}
	for _, tc := range []struct {
		name   string
		say    Say
		wants  []string
		absent []string
	}{
		{"nothing", Say{}, nil, nil},
		{"full", Say{North: north}, []string{"another agent is changing the same place", north[0], north[1]}, []string{"reminder"}},
		{"reminder", Say{North: north, Reminder: true}, []string{"reminder", north[0], "(+1 more)"}, []string{north[1], "another agent is changing"}},
		{"guard only", Say{Guard: guard}, []string{guard[0]}, []string{"collision:"}},
		{"start", Say{Others: others, North: north}, []string{others[0], others[1], north[0]}, nil},
	} {
		got := tc.say.Text("claude-1")
		if tc.say.Empty() != (got == "") {
			t.Errorf("%s: Empty %v but text %q", tc.name, tc.say.Empty(), got)
		}
		for _, w := range tc.wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(got, a) {
				t.Errorf("%s: %q holds %q", tc.name, got, a)
			}
		}
		if len(tc.say.Guard) > 0 && !strings.Contains(tc.say.Reason(), "git stash") {
			t.Errorf("%s: the ask reason %q does not name the guarded command", tc.name, tc.say.Reason())
		}
	}
	// Every adapter answers nothing when the Hall says nothing.
	for _, ad := range []Adapter{claude, codex, cursor{}} {
		ev := Event{Name: "PreToolUse", Before: true}
		if ad.Agent() == "cursor" {
			ev.Name = "beforeShellExecution"
		}
		if out := ad.Answer(ev, Say{}); out != nil {
			t.Errorf("%s: answers %s to nothing", ad.Agent(), out)
		}
		if out := ad.Answer(ev, Say{Guard: guard}); !strings.Contains(string(out), "shell guard") {
			t.Errorf("%s: answers %s to the guard's line", ad.Agent(), out)
		}
	}
}

// TestGuardHeardAfterTheRun: where the model reads a pre-tool answer only
// once the tool ran (Codex's PreToolUse), the guard's lines say they came
// before the run; Claude Code reads them before it, as they are.
func TestGuardHeardAfterTheRun(t *testing.T) {
	say := Say{Guard: []string{"shell guard: `git stash` would stash the uncommitted work of \"claude-1\": \"a.go\" (modified)"}}
	payload := []byte(`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git stash"}}`)
	for _, tc := range []struct {
		ad   Adapter
		want bool
	}{{codex, true}, {claude, false}} {
		ev, err := tc.ad.Parse(payload)
		if err != nil {
			t.Fatal(err)
		}
		var a claudeAnswer
		if err := json.Unmarshal(tc.ad.Answer(ev, say), &a); err != nil {
			t.Fatal(err)
		}
		text := a.HookSpecificOutput.AdditionalContext
		if got := strings.HasPrefix(text, BeforeRunHeading+"\n"+say.Guard[0]); got != tc.want {
			t.Errorf("%s: %q; want the heading %v", tc.ad.Agent(), text, tc.want)
		}
		if !strings.Contains(text, say.Guard[0]) {
			t.Errorf("%s: %q; want the guard's line", tc.ad.Agent(), text)
		}
	}
}

// TestSayReportsOthersTextOnlyInTheBlock: a collision line carrying an
// order reaches the model only inside the reported block, told in full
// and as a reminder (issue 40 item 12: the reminder quoted it outside).
func TestSayReportsOthersTextOnlyInTheBlock(t *testing.T) {
	north := []string{"collision: codex-2 (prs_7b1f00a2c9e3) also mutating at /shop [same_worktree] paths " + contracttest.Injection}
	for name, say := range map[string]Say{"full": {North: north}, "reminder": {North: append(north, north[0]), Reminder: true}} {
		contracttest.OnlyReported(t, name, say.Text("claude-1"), contracttest.InjectionMark)
	}
}
