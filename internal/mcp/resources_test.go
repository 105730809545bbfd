package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
	"github.com/hall-dev/hall/internal/presence"
)

// legacy is the protocol every client in the field speaks today, where a
// refused subscription is an error to the call (on the SDK's newest, a
// subscription rides a stream of its own).
const legacy = "2025-11-25"

// TestLiveRoster: the rosters are resources; a subscriber to one is told
// when its collisions open and close, and reads the change; every brain's
// roster is told too.
func TestLiveRoster(t *testing.T) {
	for _, protocol := range []string{legacy, ""} {
		t.Run("protocol "+protocol, func(t *testing.T) { liveRoster(t, protocol) })
	}
}

func liveRoster(t *testing.T, protocol string) {
	h := newLocalHall(t)
	updated := make(chan string, 64)
	srv, cs := connectServer(t, Config{Client: &hall.Hall{Service: h.svc, Changes: h.svc.Changed()}}, mcptest.Client{Updated: updated, Protocol: protocol})

	res, err := cs.ListResources(t.Context(), nil)
	if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "hall://presences" {
		t.Fatalf("resources: %+v %v", res, err)
	}
	tmpl, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "hall://presences{+brain}" {
		t.Fatalf("templates: %+v %v", tmpl, err)
	}

	shop, all := "hall://presences/srv/shop", "hall://presences"
	beat := func(agent string, extra presence.Beat) {
		t.Helper()
		extra.AgentID, extra.Brain = agent, "/srv/shop"
		if _, err := h.svc.Beat(t.Context(), extra); err != nil {
			t.Fatal(err)
		}
	}
	beat("claude-7", presence.Beat{Worktree: "/srv/shop-wt2", Tool: "Edit"}) // the brain is known: its roster can be read
	for _, uri := range []string{shop, all} {
		if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	// On the newest protocol a subscription rides a stream of its own and
	// Subscribe returns before the server took it: wait until it did, or
	// the collision below would already be in the subscriber's first look.
	eventually.True(t, 10*time.Second, "the subscriptions to be taken", func() bool {
		srv.live.mu.Lock()
		defer srv.live.mu.Unlock()
		return len(srv.live.last) == 2 // what later changes are measured from
	})
	collisions := func(uri string) int {
		t.Helper()
		r, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		var out PresencesOut
		if err := json.Unmarshal([]byte(r.Contents[0].Text), &out); err != nil {
			t.Fatal(err)
		}
		return out.CollisionCount
	}
	// waitFor waits until each uri was notified and reads want collisions:
	// a read alone would see the change at once, the notification is what
	// is tested.
	waitFor := func(want int, uris ...string) {
		t.Helper()
		told := map[string]bool{}
		deadline := time.After(10 * time.Second)
		for _, uri := range uris {
			for !told[uri] || collisions(uri) != want {
				select {
				case u := <-updated:
					told[u] = true
				case <-deadline:
					t.Fatalf("%s: no update to %d collisions", uri, want)
				}
			}
		}
	}

	beat("codex-2", presence.Beat{Worktree: "/srv/shop-wt2", DeclaredIntent: "mutate"})
	waitFor(1, shop, all)
	if err := h.svc.Leave(t.Context(), presence.ID("codex-2", "/srv/shop")); err != nil {
		t.Fatal(err)
	}
	waitFor(0, shop, all)

	if protocol != legacy {
		return
	}
	for _, uri := range []string{"hall://presencesrel", "hall://presences%2", "file:///srv/shop"} {
		if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri}); err == nil {
			t.Errorf("subscribe %s: accepted", uri)
		}
	}
	if _, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "hall://presences/srv/nowhere"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("an unknown brain's roster: %v, want not found", err)
	}
}

// TestLiveRosterKey: what a subscriber is told about is the collisions
// alone: a beat that changes a theme is no change, a collision opening is.
func TestLiveRosterKey(t *testing.T) {
	h := newLocalHall(t)
	s := &server{cfg: Config{Client: h.client(), Timeout: DefaultTimeout}}
	beat := func(agent string, b presence.Beat) {
		t.Helper()
		b.AgentID, b.Brain = agent, "/srv/shop"
		if _, err := h.svc.Beat(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
	uri := "hall://presences/srv/shop"
	if k := s.collisionsKey(t.Context(), uri); !strings.HasPrefix(k, "error:") {
		t.Errorf("an unknown brain: key %q, want an error", k)
	}
	beat("a", presence.Beat{Worktree: "/srv/wt", Tool: "Edit", Theme: "one"})
	quiet := s.collisionsKey(t.Context(), uri)
	beat("a", presence.Beat{Theme: "two"})
	beat("b", presence.Beat{Worktree: "/srv/other"})
	if k := s.collisionsKey(t.Context(), uri); k != quiet {
		t.Errorf("no collision changed, but the key did: %q → %q", quiet, k)
	}
	beat("b", presence.Beat{Worktree: "/srv/wt", DeclaredIntent: "mutate"})
	opened := s.collisionsKey(t.Context(), uri)
	if opened == quiet {
		t.Error("a collision opened, the key stayed")
	}
	beat("b", presence.Beat{WorkingSet: []string{"src"}})
	beat("a", presence.Beat{WorkingSet: []string{"src/x"}})
	if k := s.collisionsKey(t.Context(), uri); k == opened {
		t.Error("a collision gained a clause, the key stayed")
	}
}

// TestLiveForgetsOnlyTheUnsubscribed: after a look, the baselines of
// rosters nobody subscribes to go, and a roster subscribed to while the
// look ran (absent from the list the look began with) keeps its own.
func TestLiveForgetsOnlyTheUnsubscribed(t *testing.T) {
	s := &server{}
	s.sessions.m = map[*sdk.ServerSession]*sessionState{
		{}: {subs: map[string]bool{"hall://presences": true}},
		{}: {subs: map[string]bool{"hall://presences/srv/new": true}},
	}
	s.live.last = map[string]string{"hall://presences": "0", "hall://presences/srv/new": "1", "hall://presences/srv/gone": "2"}
	s.forgetUnsubscribed()
	if len(s.live.last) != 2 || s.live.last["hall://presences/srv/new"] != "1" || s.live.last["hall://presences"] != "0" {
		t.Errorf("after the look: %v; want the two subscribed rosters' baselines, the gone one dropped", s.live.last)
	}
}

// TestLiveRostersBounded: one session subscribes to at most
// maxSubsPerSession rosters and the Hall watches at most maxWatched; a
// roster of a brain the Hall does not know is refused, as is a URI that
// names no roster; each refusal carries its JSON-RPC code. (Found: one
// session took all 64 watch slots with unknown brains, and every other
// client's subscribe then failed with code 0.)
func TestLiveRostersBounded(t *testing.T) {
	h := newLocalHall(t)
	uri := func(i int) string { return fmt.Sprintf("hall://presences/srv/b%d", i) }
	for i := range maxWatched + 1 { // every brain known
		if _, err := h.svc.Beat(t.Context(), presence.Beat{AgentID: "a", Brain: fmt.Sprintf("/srv/b%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{Client: &hall.Hall{Service: h.svc}}
	code := func(err error) int64 {
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			return 0
		}
		return we.Code
	}
	cs := connect(t, cfg, mcptest.Client{Protocol: legacy})
	for _, tc := range []struct {
		uri  string
		want int64
	}{
		{"hall://presences/srv/unknown", jsonrpc.CodeInvalidParams},
		{"hall://elsewhere", jsonrpc.CodeInvalidParams},
		{"hall://presences/relative", jsonrpc.CodeInvalidParams},
	} {
		if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: tc.uri}); code(err) != tc.want {
			t.Errorf("subscribe %s: got %v (code %d), want code %d", tc.uri, err, code(err), tc.want)
		}
	}

	for i := range maxSubsPerSession {
		if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri(i)}); err != nil {
			t.Fatalf("subscription %d: %v", i, err)
		}
	}
	if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri(maxSubsPerSession)}); code(err) != codeLimit {
		t.Fatalf("one subscription more than a session's most: got %v, want code %d", err, codeLimit)
	}
	if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri(0)}); err != nil {
		t.Errorf("subscribing again to a roster the session watches: %v", err)
	}

	// Other sessions fill the Hall's watch slots, then one more is refused.
	srv := newServer(Config{Client: cfg.Client, Log: quiet()})
	subscribe := func(u string) error {
		st, ct := sdk.NewInMemoryTransports()
		ss, err := srv.srv.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := mcptest.Connect(t, ct, mcptest.Client{Protocol: legacy})
		t.Cleanup(func() { _ = c.Close(); _ = ss.Wait() })
		return c.Subscribe(t.Context(), &sdk.SubscribeParams{URI: u})
	}
	for i := range maxWatched {
		if err := subscribe(uri(i)); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	if err := subscribe(uri(maxWatched)); code(err) != codeLimit {
		t.Errorf("one roster more than the Hall watches: got %v, want code %d", err, codeLimit)
	}
	if err := subscribe(uri(0)); err != nil {
		t.Errorf("a roster the Hall watches already: %v", err)
	}
}
