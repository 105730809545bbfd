package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/hooktest"
)

// TestSessionStartTellsThePersonThePage: a Claude Code session's
// SessionStart, through hall-hook and through hall beat --hook, is
// answered with the page's address in systemMessage (the person's, never
// the model's); its next events say nothing of it.
func TestSessionStartTellsThePersonThePage(t *testing.T) {
	m := MustOpenHall(t, Config{})
	repo := hooktest.GitRepo(t)
	start := hooktest.Moved(t, hooktest.ClaudeCode, "session-start.json", repo.Worktree, "")
	prompt := hooktest.Moved(t, hooktest.ClaudeCode, "user-prompt-submit.json", repo.Worktree, "")
	want := m.URL() + "/"

	for name, run := range map[string]func(payload string) string{
		"hall-hook": func(payload string) string {
			out, _ := hallHook(t, payload, "claude", "--hall", m.URL())
			return out
		},
		"hall beat --hook": func(payload string) string {
			_, out, _ := runCLI(t, payload, "beat", "--hook", "claude", "--hall", m.URL())
			return out
		},
	} {
		var answer struct {
			SystemMessage      string          `json:"systemMessage"`
			HookSpecificOutput json.RawMessage `json:"hookSpecificOutput"`
		}
		out := run(start)
		if err := json.Unmarshal([]byte(out), &answer); err != nil {
			t.Fatalf("%s: SessionStart answered %q: %v", name, out, err)
		}
		if !strings.Contains(answer.SystemMessage, want) || answer.HookSpecificOutput != nil {
			t.Errorf("%s: SessionStart answered %q; want the page %s in systemMessage alone", name, out, want)
		}
		if out := run(prompt); strings.Contains(out, want) {
			t.Errorf("%s: UserPromptSubmit answered %q; the page is told at the start only", name, out)
		}
	}
}

// pageNoticeOnly reports whether a hook's answer tells the person the
// page's address and nothing else (nothing for the model).
func pageNoticeOnly(out []byte, page string) bool {
	var answer map[string]any
	if json.Unmarshal(out, &answer) != nil {
		return false
	}
	msg, _ := answer["systemMessage"].(string)
	delete(answer, "systemMessage")
	delete(answer, "suppressOutput")
	return len(answer) == 0 && msg == hook.PageNotice(page)
}
