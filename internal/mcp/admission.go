package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// sessionHeader names an MCP session on streamable HTTP.
const sessionHeader = "Mcp-Session-Id"

// errFull is a new session refused: every session held is busy (a request
// in flight), or held by the token's clients and the newcomer has none.
var errFull = errors.New("every MCP session is busy")

// admission holds the HTTP sessions to their cap, exactly: a new session
// takes a slot before the SDK opens it (so concurrent initializes cannot
// all pass one count), and a full Hall makes room by ending its oldest
// idle session rather than refusing the newcomer. Sessions opened by a
// client the Hall's write rule lets write (its token) are ended only for
// another such client: clients without it cannot crowd out the one that
// may write. A session
// with a request in flight (a call, an open notification stream) is never
// ended.
//
// It also ends the sessions idle (no request in flight) for longer than
// idle, looking at most every idle/5 as requests come: the SDK's own
// timeout counts only POSTs, and would end a client listening on its
// notification stream.
type admission struct {
	max int
	// authorize is the Hall's write rule (Config.AuthorizeWrite); nil when
	// every client may write, and no session is told apart.
	authorize func(authorization string) error
	idle      time.Duration    // SessionTimeout; none ended so when 0
	now       func() time.Time // time.Now when nil

	mu        sync.Mutex
	pending   int                     // slots taken by initializes in flight
	held      map[string]*heldSession // by session id
	lastSweep time.Time
}

// heldSession is what admission knows of one session.
type heldSession struct {
	authed   bool      // opened by a client the write rule lets write
	active   int       // requests in flight
	lastSeen time.Time // when its last request ended
}

// admit takes a slot for r when it opens a session (a POST without a
// session id), ending the oldest idle session when the Hall is full; it
// returns errFull when none may end. The returned done must be called
// once the request was served: it records the session the SDK opened, or
// frees the slot. live lists the ids of the sessions the SDK still holds,
// for the slots of sessions that ended on their own (idle timeout, failed
// initialize); evict ends one.
func (a *admission) admit(r *http.Request, live func() map[string]bool, evict func(id string)) (done func(w http.ResponseWriter), err error) {
	for _, id := range a.sweep() {
		evict(id)
	}
	id := r.Header.Get(sessionHeader)
	if id != "" {
		a.mu.Lock()
		s := a.held[id]
		if s != nil {
			s.active++
		}
		a.mu.Unlock()
		return func(http.ResponseWriter) { a.release(id, s, r.Method == http.MethodDelete) }, nil
	}
	if r.Method != http.MethodPost || !opensSession(r) {
		// The SDK refuses it, or serves it without a session (a probe of
		// a newer protocol) or with one it closes at once (any other
		// method): nothing a slot is held for.
		return func(http.ResponseWriter) {}, nil
	}
	authed := a.authorize != nil && a.authorize(r.Header.Get("Authorization")) == nil
	a.mu.Lock()
	if a.pending+len(a.held) >= a.max {
		a.pruneLocked(live())
	}
	var victim string
	if a.pending+len(a.held) >= a.max {
		victim = a.oldestIdleLocked(authed)
		if victim == "" {
			a.mu.Unlock()
			return nil, errFull
		}
		delete(a.held, victim)
	}
	a.pending++
	a.mu.Unlock()
	if victim != "" {
		evict(victim)
	}
	return func(w http.ResponseWriter) {
		opened := w.Header().Get(sessionHeader)
		a.mu.Lock()
		defer a.mu.Unlock()
		a.pending--
		if opened != "" {
			if a.held == nil {
				a.held = map[string]*heldSession{}
			}
			a.held[opened] = &heldSession{authed: authed, lastSeen: a.clock()}
		}
	}, nil
}

// release ends one request of session id, which began on s (nil when
// the session was not held then); a DELETE ends the session.
func (a *admission) release(id string, s *heldSession, ended bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s != nil {
		s.active--
		s.lastSeen = a.clock()
	}
	if ended && a.held[id] == s {
		delete(a.held, id)
	}
}

func (a *admission) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
}

// sweep forgets, and returns for ending, the sessions idle for longer
// than a.idle; it looks at most every idle/5.
func (a *admission) sweep() []string {
	if a.idle <= 0 {
		return nil
	}
	now := a.clock()
	a.mu.Lock()
	defer a.mu.Unlock()
	if now.Sub(a.lastSweep) < a.idle/5 {
		return nil
	}
	a.lastSweep = now
	var idle []string
	for id, s := range a.held {
		if s.active == 0 && now.Sub(s.lastSeen) > a.idle {
			idle = append(idle, id)
			delete(a.held, id)
		}
	}
	return idle
}

// pruneLocked frees the slots of sessions the SDK no longer holds.
func (a *admission) pruneLocked(live map[string]bool) {
	for id := range a.held {
		if !live[id] {
			delete(a.held, id)
		}
	}
}

// maxPeek bounds what is read of a request without a session to learn
// whether it is an initialize, the one that opens a session: one is a few
// hundred bytes.
const maxPeek = 64 << 10

// opensSession reports whether r, a POST without a session id, is an
// initialize: the request that opens a session the SDK keeps. It reads at
// most maxPeek bytes of the body and puts them back. A body past maxPeek is
// taken for an initialize (a slot is held for it, and it may end an idle
// session): no request can open a session around the cap by its size.
func opensSession(r *http.Request) bool {
	if r.Body == nil {
		return false
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, maxPeek+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil {
		return false // the SDK fails to read it too
	}
	if len(head) > maxPeek {
		return true
	}
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(head, &msg) == nil && msg.Method == "initialize"
}

// oldestIdleLocked is the session to end for a newcomer: the idle one
// seen longest ago, among those opened without the token first, and among
// the token's only for a newcomer with it. "" when none may end.
func (a *admission) oldestIdleLocked(authed bool) string {
	var best string
	var bestS *heldSession
	for id, s := range a.held {
		if s.active > 0 || (s.authed && !authed) {
			continue
		}
		if bestS == nil || (bestS.authed && !s.authed) || (bestS.authed == s.authed && s.lastSeen.Before(bestS.lastSeen)) {
			best, bestS = id, s
		}
	}
	return best
}
