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
