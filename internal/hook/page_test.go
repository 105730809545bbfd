package hook

import (
	"encoding/json"
	"testing"
)

// TestPageToldToThePersonAtTheStart: the page's address rides on a
// session's SessionStart answer, where the agent shows the person and
// never the model (Claude Code's and Codex's systemMessage; Gemini CLI's,
// with suppressOutput so it is shown once), beside whatever the model is
// told; on any other event, or for an agent with no such place (Cursor),
// it is not said.
func TestPageToldToThePersonAtTheStart(t *testing.T) {
	const page = "http://127.0.0.1:7433/"
	notice := PageNotice(page)
	north := []string{"COLLISION: x"}
	for _, tc := range []struct {
		name    string
		ad      Adapter
		ev      Event
		north   []string
		message string // the systemMessage wanted, "" for none
		context bool   // whether the model is told something too
		quiet   bool   // suppressOutput wanted
	}{
		{"claude start", claude, Event{Name: "SessionStart", Start: true, Opened: true}, nil, notice, false, false},
		{"claude start with a collision", claude, Event{Name: "SessionStart", Start: true, Opened: true}, north, notice, true, false},
		{"claude prompt", claude, Event{Name: "UserPromptSubmit", Start: true}, nil, "", false, false},
		{"claude tool", claude, Event{Name: "PostToolUse"}, north, "", true, false},
		{"codex start", codex, Event{Name: "SessionStart", Start: true, Opened: true}, nil, notice, false, false},
		{"codex start with a collision", codex, Event{Name: "SessionStart", Start: true, Opened: true}, north, notice, true, false},
		{"codex prompt", codex, Event{Name: "UserPromptSubmit", Start: true}, nil, "", false, false},
		{"cursor start", cursor{}, Event{Name: "sessionStart", Start: true, Opened: true}, nil, "", false, false},
		{"gemini start", gemini{}, Event{Name: "SessionStart", Start: true, Opened: true}, nil, notice, false, true},
		{"gemini start with a collision", gemini{}, Event{Name: "SessionStart", Start: true, Opened: true}, north, notice, true, true},
		{"gemini prompt", gemini{}, Event{Name: "BeforeAgent", Start: true}, nil, "", false, false},
	} {
		out := tc.ad.Answer(tc.ev, Say{North: tc.north, Page: page})
		if tc.message == "" && !tc.context {
			if out != nil {
				t.Errorf("%s: answer %s, want none", tc.name, out)
			}
			continue
		}
		var got struct {
			HookSpecificOutput *struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
			SystemMessage  string `json:"systemMessage"`
			SuppressOutput bool   `json:"suppressOutput"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v: %s", tc.name, err, out)
		}
		if got.SystemMessage != tc.message || got.SuppressOutput != tc.quiet {
			t.Errorf("%s: systemMessage %q suppressOutput %v; want %q, %v", tc.name, got.SystemMessage, got.SuppressOutput, tc.message, tc.quiet)
		}
		if told := got.HookSpecificOutput != nil && got.HookSpecificOutput.AdditionalContext != ""; told != tc.context {
			t.Errorf("%s: the model told something: %v, want %v (%s)", tc.name, told, tc.context, out)
		}
	}
	if out := claude.Answer(Event{Name: "SessionStart", Opened: true}, Say{}); out != nil {
		t.Errorf("no page, nothing to say: answer %s", out)
	}
}
