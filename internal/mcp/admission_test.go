package mcp

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// bearerRule is a write rule as the Hall's: the bearer token, or refused.
func bearerRule(token string) func(authorization string) error {
	return func(authorization string) error {
		if authorization != "Bearer "+token {
			return errors.New("unauthorized")
		}
		return nil
	}
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// initialize is an initialize request without a session.
func initialize() *http.Request {
	return httptest.NewRequest(http.MethodPost, "/", strings.NewReader(initializeBody))
}

// TestAdmissionOnlyInitializes: only an initialize takes a slot (or ends a
// session for one); any other request without a session passes, and reads
// its whole body as sent.
func TestAdmissionOnlyInitializes(t *testing.T) {
	busy := map[string]*heldSession{"a": {active: 1}}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`,
		`not json`,
	} {
		a := &admission{max: 1, held: busy}
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		done, err := a.admit(r, func() map[string]bool { return map[string]bool{"a": true} }, func(string) { t.Fatal("a session ended") })
		if err != nil {
			t.Fatalf("%s: %v, want it passed", body, err)
		}
		done(httptest.NewRecorder())
		if got, _ := io.ReadAll(r.Body); string(got) != body || a.pending != 0 {
			t.Errorf("%s: body read on as %q, pending %d", body, got, a.pending)
		}
	}
	big := &admission{max: 1, held: busy}
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat(" ", maxPeek)+initializeBody))
	if _, err := big.admit(r, func() map[string]bool { return map[string]bool{"a": true} }, func(string) {}); !errors.Is(err, errFull) {
		t.Errorf("an initialize past maxPeek: got %v, want it held to the cap", err)
	}
}

// TestAdmission: which session a full Hall ends for a newcomer, if any.
func TestAdmission(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name   string
		held   map[string]*heldSession
		pend   int
		authed bool
		want   string // the session ended; "" none
		full   bool   // refused
	}{
		{"room left", map[string]*heldSession{"a": {}}, 0, false, "", false},
		{"oldest idle", map[string]*heldSession{"a": {lastSeen: t0.Add(2)}, "b": {lastSeen: t0.Add(1)}, "c": {lastSeen: t0.Add(3)}}, 0, false, "b", false},
		{"busy are kept", map[string]*heldSession{"a": {lastSeen: t0, active: 1}, "b": {lastSeen: t0.Add(1)}, "c": {lastSeen: t0.Add(2), active: 2}}, 0, false, "b", false},
		{"all busy", map[string]*heldSession{"a": {active: 1}, "b": {active: 1}, "c": {active: 1}}, 0, true, "", true},
		{"initializes in flight count", map[string]*heldSession{"a": {active: 1}, "b": {active: 1}}, 1, false, "", true},
		{"token's kept from the token-less", map[string]*heldSession{"a": {authed: true}, "b": {authed: true}, "c": {authed: true}}, 0, false, "", true},
		{"token-less ended first", map[string]*heldSession{"a": {authed: true, lastSeen: t0}, "b": {lastSeen: t0.Add(5)}, "c": {authed: true, lastSeen: t0.Add(1)}}, 0, true, "b", false},
		{"the token's own oldest", map[string]*heldSession{"a": {authed: true, lastSeen: t0.Add(1)}, "b": {authed: true, lastSeen: t0}, "c": {authed: true, lastSeen: t0.Add(2)}}, 0, true, "b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &admission{max: 3, authorize: bearerRule("tok"), held: tc.held, pending: tc.pend}
			live := func() map[string]bool {
				m := map[string]bool{}
				for id := range tc.held {
					m[id] = true
				}
				return m
			}
			var ended string
			r := initialize()
			if tc.authed {
				r.Header.Set("Authorization", "Bearer tok")
			}
			done, err := a.admit(r, live, func(id string) { ended = id })
			if tc.full != errors.Is(err, errFull) || ended != tc.want {
				t.Fatalf("got ended %q, err %v; want %q, full %v", ended, err, tc.want, tc.full)
			}
			if err != nil {
				return
			}
			w := httptest.NewRecorder()
			w.Header().Set(sessionHeader, "new")
			done(w)
			if a.pending != tc.pend || a.held["new"] == nil || a.held["new"].authed != tc.authed {
				t.Errorf("after the initialize: pending %d, new %+v; want %d, held, authed %v", a.pending, a.held["new"], tc.pend, tc.authed)
			}
		})
	}
}

// TestAdmissionPrunes: the slots of sessions the SDK ended on its own
// (idle timeout) are freed before anything is ended or refused.
func TestAdmissionPrunes(t *testing.T) {
	a := &admission{max: 2, held: map[string]*heldSession{"gone": {active: 1}, "b": {active: 1}}}
	ended := ""
	_, err := a.admit(initialize(), func() map[string]bool { return map[string]bool{"b": true} }, func(id string) { ended = id })
	if err != nil || ended != "" || a.held["gone"] != nil {
		t.Fatalf("got err %v, ended %q, held %v; want a free slot from the gone session", err, ended, a.held)
	}
}

// TestAdmissionEndsIdleSessions: a session with no request in flight for
// longer than the idle timeout is ended as requests come (at most every
// fifth of it); one with a request in flight (an open notification
// stream) is kept however long.
func TestAdmissionEndsIdleSessions(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	now := t0
	a := &admission{max: 8, idle: 5 * time.Minute, now: func() time.Time { return now }, held: map[string]*heldSession{
		"gone":      {lastSeen: t0.Add(-6 * time.Minute)},
		"listening": {lastSeen: t0.Add(-time.Hour), active: 1},
		"recent":    {lastSeen: t0.Add(-4 * time.Minute)},
	}}
	var ended []string
	request := func() {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set(sessionHeader, "recent")
		done, err := a.admit(r, nil, func(id string) { ended = append(ended, id) })
		if err != nil {
			t.Fatal(err)
		}
		done(httptest.NewRecorder())
	}
	request()
	if len(ended) != 1 || ended[0] != "gone" || a.held["gone"] != nil {
		t.Fatalf("ended %v, want the idle session alone", ended)
	}
	now = now.Add(2 * time.Minute) // "recent" was seen by the request at t0
	request()
	if len(ended) != 1 {
		t.Fatalf("ended %v within the timeout", ended)
	}
	now = now.Add(10 * time.Minute)
	a.held["recent"].lastSeen = t0
	ended = nil
	a.lastSweep = time.Time{}
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(initializeBody))
	if _, err := a.admit(r, func() map[string]bool { return nil }, func(id string) { ended = append(ended, id) }); err != nil {
		t.Fatal(err)
	}
	if len(ended) != 1 || ended[0] != "recent" || a.held["listening"] == nil {
		t.Errorf("ended %v, want \"recent\" alone, the listening session kept", ended)
	}
}
