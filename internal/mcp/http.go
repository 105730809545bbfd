package mcp

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// DefaultMaxSessions bounds the MCP sessions the Hall holds at once: a
// client asking for one more ends the oldest idle session, or gets 503
// when every session is busy (see admission).
const DefaultMaxSessions = 256

// SessionTimeout ends an HTTP session with no request in flight for that
// long (an open notification stream is one): its client left without a
// word. A client that comes back later opens a new one (its presence
// stays, under the same agent_id when it names one).
const SessionTimeout = 5 * time.Minute

// HTTPHandler serves the tools over MCP's streamable HTTP transport (the
// Hall's /mcp): stateful sessions (their id is what a session's default
// agent_id is made from) and at most maxSessions sessions. The Host check
// (DNS rebinding, --allowed-host) and the cross-origin and JSON rules are
// the Hall's edge's, applied to /mcp as to every route (internal/web), so
// the SDK's own loopback Host check is off: it would refuse a host the
// Hall was told to allow. Close ends every open
// request at once, so the Hall's shutdown never waits on a client's stream.
//
// The server, its tools and their schemas are built on the first request,
// not by NewHTTPHandler: a Hall no MCP client speaks to never holds them
// (0.65 MB allocated at start, 1.2 MB of an idle Hall's resident memory:
// docs/performance.md).
type HTTPHandler struct {
	cfg         Config
	maxSessions int
	ctx         context.Context
	cancel      context.CancelFunc

	mu    sync.Mutex
	built *httpServer // nil until the first request
}

// httpServer is the MCP server and the SDK's HTTP handler over it.
type httpServer struct {
	srv  *sdk.Server
	next http.Handler
	adm  *admission
}

// NewHTTPHandler returns the /mcp handler over cfg's Hall, holding at most
// maxSessions sessions (DefaultMaxSessions when not positive). It builds
// nothing yet: the first request does.
func NewHTTPHandler(cfg Config, maxSessions int) *HTTPHandler {
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &HTTPHandler{cfg: cfg, maxSessions: maxSessions, ctx: ctx, cancel: cancel}
}

// server returns the MCP server, building it on the first call (concurrent
// first requests wait for one build); nil once Close was called and none
// was built.
func (h *HTTPHandler) server() *httpServer {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.built == nil && h.ctx.Err() == nil {
		srv := NewServer(h.cfg)
		h.built = &httpServer{srv: srv, adm: &admission{max: h.maxSessions, authorize: h.cfg.AuthorizeWrite, idle: SessionTimeout}, next: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{
			Logger:                     h.cfg.Log,
			DisableLocalhostProtection: true,
		})}
	}
	return h.built
}

// builtServer returns the MCP server if a request built it, else nil.
func (h *HTTPHandler) builtServer() *httpServer {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.built
}

// ServeHTTP serves one MCP request.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	srv := h.server()
	if srv == nil || h.ctx.Err() != nil {
		refuse(w, contract.KindUnavailable, "shutting_down", "the Hall is shutting down")
		return
	}
	done, err := srv.adm.admit(r, srv.liveIDs, srv.end)
	if err != nil {
		w.Header().Set("Retry-After", "60")
		refuse(w, contract.KindUnavailable, "too_many_sessions", fmt.Sprintf("the Hall holds %d MCP sessions, its most, none of them idle: end one, or retry later", h.maxSessions))
		return
	}
	defer done(w)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(h.ctx, cancel)
	defer stop()
	srv.next.ServeHTTP(w, r.WithContext(ctx))
}

// sessions counts the sessions held: those initialized (a request that
// opens none, as a client's probe of a newer protocol, holds none once
// answered).
func (s *httpServer) sessions() int {
	n := 0
	for ss := range s.srv.Sessions() {
		if ss.InitializeParams() != nil {
			n++
		}
	}
	return n
}

// liveIDs lists the ids of the sessions the SDK holds.
func (s *httpServer) liveIDs() map[string]bool {
	ids := map[string]bool{}
	for ss := range s.srv.Sessions() {
		ids[ss.ID()] = true
	}
	return ids
}

// end closes the session with id, to make room for a newcomer.
func (s *httpServer) end(id string) {
	for ss := range s.srv.Sessions() {
		if ss.ID() == id {
			_ = ss.Close()
			return
		}
	}
}

// refuse answers through the Hall's one error writer.
func refuse(w http.ResponseWriter, kind contract.Kind, code, detail string) {
	httpwire.WriteError(w, nil, contract.Refuse(kind, code, "%s", detail))
}

// closeWait bounds Close: a session's Close waits for its calls in flight,
// and a call stuck in a filesystem or a store would hold the Hall's
// shutdown past its grace (it did: SIGTERM never finished).
const closeWait = time.Second

// Close ends every request in flight (open streams included) and every
// session, and refuses new ones. It builds nothing: a server no request
// built holds no session. It returns within closeWait: the sessions are
// closed at once, each in its own goroutine, and one still closing then
// (a tool call that does not return) is left to end with the process.
func (h *HTTPHandler) Close() {
	h.cancel()
	srv := h.builtServer()
	if srv == nil {
		return
	}
	var wg sync.WaitGroup
	for ss := range srv.srv.Sessions() {
		wg.Go(func() { _ = ss.Close() })
	}
	closed := make(chan struct{})
	go func() { wg.Wait(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(closeWait):
		if h.cfg.Log != nil {
			h.cfg.Log.Warn("mcp sessions still closing at shutdown: left to the process's exit", "waited", closeWait)
		}
	}
}
