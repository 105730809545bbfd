package hall_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hall"
)

// mainBeater is the Hall as main had it before say-it-once: the hook
// sends no hook part, so every answer tells the collisions in full.
type mainBeater struct{ h *hall.Hall }

func (m mainBeater) Beat(ctx context.Context, req contract.BeatRequest) (contract.BeatResponse, error) {
	req.Hook = nil
	return m.h.Beat(ctx, req)
}
func (m mainBeater) Leave(ctx context.Context, id string) error { return m.h.Leave(ctx, id) }

// tokens counts a text as a model's tokenizer roughly does: 4 characters
// a token.
func tokens(s string) int { return (len(s) + 3) / 4 }

// sessionScript plays 100 hook calls of one Claude Code session in a
// collision (a Codex session edited cart.go in the same worktree), 6 s
// apart: reads, greps and shell commands, edits of its own search.go, and
// two edits of the contested cart.go (calls 30 and 90). It returns what
// the model read at each call.
func sessionScript(t *testing.T, b func(h *hall.Hall) hall.Beater) []string {
	t.Helper()
	h, clock, _ := newHall(t)
	s := newShop(t)
	cart := filepath.Join(s.wt2, "src", "cart.go")
	search := filepath.Join(s.wt2, "src", "search.go")
	hook := func(agent string, body []byte) string {
		ans, err := hall.Hook(context.Background(), b(h), hall.HookRequest{Agent: agent, Payload: body, Mutating: h.Mutating})
		if err != nil {
			t.Fatal(err)
		}
		return modelText(t, agent, ans.Output)
	}
	other := func() { hook("codex", editPayload("codex", "0ther-5e55-1on", s.wt2, cart)) }
	other()
	me := "5e1f-5e55-1on"
	said := make([]string, 100)
	for i := range said {
		clock.Advance(6 * time.Second)
		if i%10 == 0 {
			other() // the other session keeps working (and stays live)
		}
		var body []byte
		switch {
		case i == 0:
			body = payload("claude", me, s.wt2, "SessionStart", "", nil)
		case i == 30 || i == 90:
			body = editPayload("claude", me, s.wt2, cart)
		case i%10 == 1:
			body = editPayload("claude", me, s.wt2, search)
		case i%10 == 5:
			body = shellPayload("claude", me, s.wt2, "go test ./...")
		case i%2 == 0:
			body = payload("claude", me, s.wt2, "PreToolUse", "Read", map[string]any{"file_path": search})
		default:
			body = payload("claude", me, s.wt2, "PostToolUse", "Grep", map[string]any{"pattern": "Total"})
		}
		said[i] = hook("claude", body)
	}
	return said
}

// TestSayOnce100 measures the tokens a session in a collision is told
// over 100 scripted calls, as main told them (in full at every call) and
// as the Hall tells them now, and holds the second to its bound: twice a
// single warning, plus one warning for each contested edit.
func TestSayOnce100(t *testing.T) {
	before := sessionScript(t, func(h *hall.Hall) hall.Beater { return mainBeater{h} })
	after := sessionScript(t, func(h *hall.Hall) hall.Beater { return h })

	full := "another agent is changing the same place"
	single, beforeTokens, afterTokens := 0, 0, 0
	var fulls, reminders []int
	for i := range after {
		beforeTokens += tokens(before[i])
		afterTokens += tokens(after[i])
		switch {
		case strings.Contains(after[i], full):
			fulls = append(fulls, i)
			single = max(single, tokens(after[i]))
		case strings.Contains(after[i], "reminder"):
			reminders = append(reminders, i)
		case i == 0 && strings.Contains(after[i], "not yours to revert"):
			// The session starts: whose changes are here, once.
		case after[i] != "":
			t.Errorf("call %d: the model reads %q; want nothing", i, after[i])
		}
	}
	const contested = 2
	t.Logf("100 calls in a collision: before %d tokens (%d calls told), after %d tokens; a single warning %d tokens; told in full at calls %v, reminded at %v",
		beforeTokens, told(before), afterTokens, single, fulls, reminders)
	if single == 0 {
		t.Fatal("the session was never told of its collision")
	}
	if bound := (2 + contested) * single; afterTokens > bound {
		t.Errorf("after: %d tokens, bound %d (2 warnings + %d contested edits)", afterTokens, bound, contested)
	}
	// In full: when the collision opened (the first edit), and before
	// each edit of the contested file; one reminder line RemindEvery
	// (50 calls) after the full telling at call 30.
	if len(fulls) != 3 || fulls[0] != 1 || fulls[1] != 30 || fulls[2] != 90 {
		t.Errorf("told in full at calls %v; want 1 (the first edit), 30 and 90", fulls)
	}
	if len(reminders) != 1 || reminders[0] != 80 {
		t.Errorf("reminded at %v; want once, at call 80", reminders)
	}
	if beforeTokens <= afterTokens {
		t.Errorf("before %d tokens, after %d: said once should say less", beforeTokens, afterTokens)
	}
}

func told(said []string) int {
	n := 0
	for _, s := range said {
		if s != "" {
			n++
		}
	}
	return n
}

// TestSayOnceRacingHooks: several hooks of one session racing on the
// same new collision tell it in full once between them.
func TestSayOnceRacingHooks(t *testing.T) {
	h, _, _ := newHall(t)
	s := newShop(t)
	ctx := context.Background()
	hook := func(agent string, body []byte) string {
		ans, err := h.Hook(ctx, hall.HookRequest{Agent: agent, Payload: body})
		if err != nil {
			t.Error(err)
			return ""
		}
		return modelText(t, agent, ans.Output)
	}
	cart := filepath.Join(s.wt2, "src", "cart.go")
	hook("codex", editPayload("codex", "0ther-5e55-1on", s.wt2, cart))
	me := "5e1f-5e55-1on"
	if got := hook("claude", editPayload("claude", me, s.wt2, filepath.Join(s.wt2, "src", "search.go"))); !strings.Contains(got, "another agent is changing") {
		t.Fatalf("the collision opening: the model reads %q; want it in full", got)
	}
	// A third session joins: the collisions changed.
	hook("cursor", editPayload("cursor", "th1rd-5e55-1on", s.wt2, filepath.Join(s.wt2, "src", "other.go")))
	const racers = 8
	said := make(chan string, racers)
	var wg sync.WaitGroup
	for range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			said <- hook("claude", payload("claude", me, s.wt2, "PostToolUse", "Grep", map[string]any{"pattern": "x"}))
		}()
	}
	wg.Wait()
	close(said)
	full := 0
	for s := range said {
		if strings.Contains(s, "another agent is changing") {
			full++
		} else if s != "" {
			t.Errorf("a racing hook: the model reads %q; want nothing or the full text", s)
		}
	}
	if full != 1 {
		t.Errorf("%d racing hooks told the new collision in full; want exactly 1", full)
	}
}

// TestGeminiHearsEachWarningOnce: Gemini CLI's model reads nothing of a
// BeforeTool answer (its systemMessage is the person's), so a collision
// that opens there is shown to the person, stays untold, and reaches the
// model in the AfterTool answer that follows, exactly once over the
// session; an edit of the contested file is told again, at its AfterTool.
// The text Gemini CLI's context gets holds no <, > or & (it would read
// HTML entities).
func TestGeminiHearsEachWarningOnce(t *testing.T) {
	h, clock, _ := newHall(t)
	s := newShop(t)
	cart := filepath.Join(s.wt2, "src", "cart.go")
	search := filepath.Join(s.wt2, "src", "search.go")
	hook := func(agent string, body []byte) []byte {
		t.Helper()
		ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: agent, Payload: body})
		if err != nil {
			t.Fatal(err)
		}
		return ans.Output
	}
	hook("codex", editPayload("codex", "0ther-5e55-1on", s.wt2, cart))
	const me = "9e1e-5e55-1on"
	replace := func(event, file string) []byte {
		return payload("gemini", me, s.wt2, event, "replace", map[string]any{"file_path": file, "old_string": "x", "new_string": "y"})
	}
	const full = "another agent is changing the same place"
	type step struct {
		name  string
		body  []byte
		model bool // the model reads the collision in full here
	}
	var fulls []string
	play := func(steps []step) {
		for _, st := range steps {
			clock.Advance(5 * time.Second)
			out := hook("gemini", st.body)
			model := modelText(t, "gemini", out)
			if strings.ContainsAny(model, "<>&") {
				t.Errorf("%s: Gemini's context holds <, > or &: %q", st.name, model)
			}
			if got := strings.Contains(model, full); got != st.model {
				t.Errorf("%s: the model reads the collision in full: %v, want %v (%q)", st.name, got, st.model, model)
			}
			if strings.Contains(model, full) {
				fulls = append(fulls, st.name)
			}
			if strings.Contains(model, "reminder") {
				t.Errorf("%s: a reminder %q within %v", st.name, model, hall.RemindEvery)
			}
		}
	}
	// The collision opens at the first BeforeTool: the person reads it.
	clock.Advance(5 * time.Second)
	before := hook("gemini", replace("BeforeTool", search))
	if modelText(t, "gemini", before) != "" || !strings.Contains(personText(t, before), agentIDOf(t, "codex", editPayload("codex", "0ther-5e55-1on", s.wt2, cart))) {
		t.Fatalf("the first BeforeTool answered %s; want the collision in systemMessage only", before)
	}
	play([]step{
		{"AfterTool of the first edit", replace("AfterTool", search), true},
		{"a second BeforeTool", replace("BeforeTool", search), false},
		{"its AfterTool", replace("AfterTool", search), false},
		{"a prompt", payload("gemini", me, s.wt2, "BeforeAgent", "", nil), false},
		{"a read", payload("gemini", me, s.wt2, "AfterTool", "read_file", map[string]any{"file_path": cart}), false},
	})
	if len(fulls) != 1 || fulls[0] != "AfterTool of the first edit" {
		t.Errorf("the collision reached the model at %v; want once, at the first AfterTool", fulls)
	}
	// About to edit the contested file: the person hears it before, the
	// model at the AfterTool, once.
	play([]step{
		{"BeforeTool of the contested file", replace("BeforeTool", cart), false},
		{"AfterTool of the contested file", replace("AfterTool", cart), true},
		{"the AfterTool after it", replace("AfterTool", search), false},
	})
	if len(fulls) != 2 {
		t.Errorf("the collision reached the model at %v; want the first AfterTool and the contested edit's", fulls)
	}
}

// TestOwnershipOncePerStart: a session's start and its first prompt
// (Codex's SessionStart and UserPromptSubmit, Gemini CLI's SessionStart
// and BeforeAgent, Claude Code's alike) tell whose uncommitted changes are
// in the worktree once; a new owner or file tells them again, and so does
// a prompt OwnersEvery later, or another session's start.
func TestOwnershipOncePerStart(t *testing.T) {
	for _, agent := range []string{"codex", "gemini", "claude"} {
		t.Run(agent, func(t *testing.T) {
			h, clock, _ := newHall(t)
			s := newShop(t)
			ev := agentEvents[agent]
			other := "cursor"
			hook := func(a string, body []byte) string {
				t.Helper()
				ans, err := h.Hook(context.Background(), hall.HookRequest{Agent: a, Payload: body})
				if err != nil {
					t.Fatal(err)
				}
				return modelText(t, a, ans.Output)
			}
			hook(other, editPayload(other, "0ther-5e55-1on", s.wt2, filepath.Join(s.wt2, "src", "cart.go")))
			const owned = "not yours to revert"
			count := func(session string, events ...string) (n int) {
				t.Helper()
				for _, e := range events {
					clock.Advance(time.Second)
					if strings.Contains(hook(agent, payload(agent, session, s.wt2, e, "", nil)), owned) {
						n++
					}
				}
				return n
			}
			const me = "5e1f-5e55-1on"
			if n := count(me, ev.start, ev.prompt, ev.prompt); n != 1 {
				t.Errorf("start and two prompts: the ownership lines told %d times, want once", n)
			}
			hook(other, editPayload(other, "0ther-5e55-1on", s.wt2, filepath.Join(s.wt2, "src", "search.go")))
			if n := count(me, ev.prompt, ev.prompt); n != 1 {
				t.Errorf("another file owned: told %d times over two prompts, want once", n)
			}
			clock.Advance(hall.OwnersEvery)
			hook(other, payload(other, "0ther-5e55-1on", s.wt2, "postToolUse", "Read", nil)) // the owner stays live
			if n := count(me, ev.prompt, ev.prompt); n != 1 {
				t.Errorf("%v later: told %d times over two prompts, want once", hall.OwnersEvery, n)
			}
			if n := count("an0ther-5e55-1on", ev.start, ev.prompt); n != 1 {
				t.Errorf("another session's start: told %d times, want once", n)
			}
		})
	}
}
