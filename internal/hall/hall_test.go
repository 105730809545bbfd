package hall_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hallclient"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/internal/web"
)

// newHall is the Hall's operations over a real sidecar store in a temp
// dir, on a settable clock.
func newHall(t *testing.T) (*hall.Hall, *presencetest.Clock, string) {
	t.Helper()
	store := dirstoretest.Open(t)
	clock := presencetest.NewClock(presencetest.T0)
	svc := presence.NewService(store, presence.Config{Now: clock.Now, Logger: slog.New(slog.DiscardHandler)})
	return &hall.Hall{Service: svc}, clock, store.Dir()
}

// overHTTP is h behind the Hall's real route table, reached as `hall beat`
// reaches a running Hall.
func overHTTP(t *testing.T, h *hall.Hall) *hallclient.HTTP {
	t.Helper()
	wh := &web.Handler{App: h, StoreKind: "dir", Log: slog.New(slog.DiscardHandler)}
	mux := http.NewServeMux()
	for _, rt := range wh.Routes() {
		mux.HandleFunc(rt.Method+" "+rt.Path, rt.Handler)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &hallclient.HTTP{Base: srv.URL}
}

func code(err error) string {
	var e *contract.Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err == nil {
		return ""
	}
	return "not a refusal: " + err.Error()
}

func TestWhoID(t *testing.T) {
	want := presence.ID("claude-1", "/srv/shop")
	for _, tc := range []struct {
		name string
		who  hall.Who
		id   string
		code string
	}{
		{"by id", hall.Who{PresenceID: want}, want, ""},
		{"by agent and brain", hall.Who{AgentID: "claude-1", Brain: "/srv/shop"}, want, ""},
		{"brain cleaned", hall.Who{AgentID: "claude-1", Brain: "/srv/shop/"}, want, ""},
		{"nothing", hall.Who{}, "", "missing_presence"},
		{"agent alone", hall.Who{AgentID: "claude-1"}, "", "missing_presence"},
		{"relative brain", hall.Who{AgentID: "claude-1", Brain: "shop"}, "", "invalid_brain"},
		{"control character in agent", hall.Who{AgentID: "a\x07b", Brain: "/srv/shop"}, "", "invalid_agent_id"},
		{"upper-case id", hall.Who{PresenceID: "prs_ABCDEF012345"}, "", "invalid_presence_id"},
		{"a path for an id", hall.Who{PresenceID: "../../etc/passwd"}, "", "invalid_presence_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := hall.WhoID(tc.who)
			if id != tc.id || code(err) != tc.code {
				t.Errorf("got %q, %s; want %q, %q", id, code(err), tc.id, tc.code)
			}
		})
	}
}

func TestEventsLimit(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want int
		code string
	}{
		{"", hall.DefaultEventsLimit, ""},
		{"1", 1, ""},
		{"1000", hall.MaxEventsLimit, ""},
		{"0", 0, "invalid_limit"},
		{"1001", 0, "invalid_limit"},
		{"ten", 0, "invalid_limit"},
	} {
		got, err := hall.EventsLimit(tc.raw)
		if got != tc.want || code(err) != tc.code {
			t.Errorf("EventsLimit(%q) = %d, %s; want %d, %q", tc.raw, got, code(err), tc.want, tc.code)
		}
	}
}

// TestReadsRefuseAlike: every read that takes a brain refuses a bad one
// and an unknown one with the same code, because they share one Scope
// and one View.
func TestReadsRefuseAlike(t *testing.T) {
	h, _, _ := newHall(t)
	ctx := t.Context()
	reads := map[string]func(brain string) error{
		"presences": func(b string) error { _, err := h.Presences(ctx, b); return err },
		"cockpit":   func(b string) error { _, err := h.Cockpit(ctx, b); return err },
		"events":    func(b string) error { _, err := h.Events(ctx, b, 10); return err },
		"view":      func(b string) error { _, err := h.View(ctx, b); return err },
	}
	for name, read := range reads {
		for brain, want := range map[string]string{
			"":                "",
			"shop":            "invalid_brain",
			"/srv/\u202eshop": "invalid_brain",
			"/srv/nowhere":    "unknown_brain",
		} {
			if got := code(read(brain)); got != want {
				t.Errorf("%s(%q): got %s, want %q", name, brain, got, want)
			}
		}
	}
}

// TestThrottledOnTheWire: a second beat inside the throttle window is
// held, and says so in a typed field, not only in reason's words.
func TestThrottledOnTheWire(t *testing.T) {
	h, _, _ := newHall(t)
	req := contract.BeatRequest{AgentID: "claude-1", Brain: "/srv/shop"}
	first, err := h.Beat(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.Beat(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Stored || first.Throttled {
		t.Errorf("first beat: stored %v throttled %v, want stored", first.Stored, first.Throttled)
	}
	if second.Stored || !second.Throttled || !hall.Stored(second) {
		t.Errorf("second beat: stored %v throttled %v, want held by the throttle", second.Stored, second.Throttled)
	}
	b, _ := json.Marshal(first)
	if bytes.Contains(b, []byte(`"throttled"`)) {
		t.Errorf("a stored beat's answer names throttled: %s", b)
	}
}

// TestHookAnswersAlikeInProcessAndOverHTTP: the hook operation gives the
// same answer whether it beats into this process's Hall or one reached
// over HTTP (the route `hall beat --hook --hall` takes), for two sessions
// colliding in one real git worktree, and refuses alike.
func TestHookAnswersAlikeInProcessAndOverHTTP(t *testing.T) {
	repo := hooktest.GitRepo(t)
	for _, via := range []string{"in process", "over HTTP"} {
		t.Run(via, func(t *testing.T) {
			h, _, _ := newHall(t)
			var b hall.Beater = h
			if via == "over HTTP" {
				b = overHTTP(t, h)
			}
			hook := func(session string) hall.HookAnswer {
				t.Helper()
				ans, err := hall.Hook(t.Context(), b, hall.HookRequest{
					Agent: "claude", Mutating: h.Mutating,
					Payload: []byte(hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Worktree, session)),
				})
				if err != nil {
					t.Fatal(err)
				}
				return ans
			}
			if ans := hook("11111111-1111-4111-8111-111111111111"); ans.Output != nil || ans.Warning != "" {
				t.Fatalf("alone: got %s %q, want nothing to say", ans.Output, ans.Warning)
			}
			ans := hook("22222222-2222-4222-8222-222222222222")
			if !strings.Contains(string(ans.Output), "additionalContext") || !strings.Contains(string(ans.Output), hooktest.AgentID(hooktest.ClaudeCode, "11111111-1111-4111-8111-111111111111")) {
				t.Errorf("second session: got %s, want the collision with the first in the model's context", ans.Output)
			}
			live, err := h.Presences(t.Context(), repo.Main)
			if err != nil || len(live.Presences) != 2 || live.Presences[0].Worktree != repo.Worktree {
				t.Fatalf("roster: %+v, %v; want both sessions in %s", live.Presences, err, repo.Worktree)
			}

			for _, bad := range []struct {
				req  hall.HookRequest
				code string
			}{
				{hall.HookRequest{Agent: "vim", Payload: []byte(`{}`)}, "unknown_agent"},
				{hall.HookRequest{Agent: "claude", Policy: "deny", Payload: []byte(`{}`)}, "invalid_on_collision"},
				{hall.HookRequest{Agent: "claude", Payload: []byte(`[`)}, "invalid_payload"},
				{hall.HookRequest{Agent: "claude", Payload: []byte(strings.Replace(hooktest.Payload(t, hooktest.ClaudeCode, "post-tool-use-edit.json"), hooktest.RecordedWorktree, "rel/dir", 1))}, "invalid_payload"},
				{hall.HookRequest{Agent: "claude", Payload: bytes.Repeat([]byte(" "), hall.MaxHookPayload+1)}, "body_too_large"},
			} {
				if _, err := hall.Hook(t.Context(), b, bad.req); code(err) != bad.code {
					t.Errorf("%s / %.40q: got %s, want %s", bad.req.Agent, bad.req.Payload, code(err), bad.code)
				}
			}
		})
	}
}

// TestHookLeaveOfAGoneSessionIsFine: a session that ends after it lapsed
// (or never beat) leaves without an error, in process and over HTTP.
func TestHookLeaveOfAGoneSessionIsFine(t *testing.T) {
	repo := hooktest.GitRepo(t)
	h, _, dir := newHall(t)
	for _, b := range []hall.Beater{h, overHTTP(t, h)} {
		_, err := hall.Hook(t.Context(), b, hall.HookRequest{Agent: "claude",
			Payload: []byte(hooktest.Moved(t, hooktest.ClaudeCode, "session-end.json", repo.Worktree, ""))})
		if err != nil {
			t.Errorf("%T: leave of a presence that is not live: %v", b, err)
		}
	}
	if names := dirstoretest.Names(t, dir); len(names) != 0 {
		t.Errorf("the store holds %v after leaves alone", names)
	}
}

// TestNorthSaysWhetherThePresenceIsLive: an empty north of a presence that
// is not on the roster says so, apart from one that collides with nobody.
func TestNorthSaysWhetherThePresenceIsLive(t *testing.T) {
	h, _, _ := newHall(t)
	if _, err := h.Beat(t.Context(), contract.BeatRequest{AgentID: "claude-1", Brain: "/srv/shop"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		agent string
		live  bool
	}{{"claude-1", true}, {"claude-gone", false}} {
		resp, err := h.North(t.Context(), hall.Who{AgentID: tc.agent, Brain: "/srv/shop"})
		if err != nil || resp.Live == nil || *resp.Live != tc.live || len(resp.North) != 0 {
			t.Errorf("%s: got %+v, %v; want live %v and no lines", tc.agent, resp, err, tc.live)
		}
	}
}

// A leave by agent and brain takes the record an older Hall wrote under
// its old id too, not only the one under m1nd's id (issue 41).
func TestLeaveAgentTakesTheLegacyRecord(t *testing.T) {
	h, _, dir := newHall(t)
	root := dir[:len(dir)-len("/presences")]
	old := presencetest.Rec("claude-1", "/srv/shop", presencetest.ID(presence.LegacyID("claude-1", "/srv/shop")))
	dirstoretest.Upsert(t, root, old)
	if _, err := h.Beat(t.Context(), contract.BeatRequest{AgentID: "claude-1", Brain: "/srv/shop"}); err != nil {
		t.Fatal(err)
	}
	if err := hall.LeaveAgent(t.Context(), h, "claude-1", "/srv/shop"); err != nil {
		t.Fatalf("LeaveAgent: %v", err)
	}
	if names := dirstoretest.Names(t, dir); len(names) != 0 {
		t.Errorf("after the leave: got %v in the folder, want neither id's record", names)
	}
}
