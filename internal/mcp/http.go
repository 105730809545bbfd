package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
)

// DefaultMaxSessions bounds the MCP sessions the Hall holds at once: a
// client asking for one more gets 503 until one ends (a DELETE, or
// SessionTimeout of silence).
const DefaultMaxSessions = 256

// SessionTimeout ends an HTTP session its client left without a word.
const SessionTimeout = 30 * time.Minute

// HTTPHandler serves the tools over MCP's streamable HTTP transport (the
// Hall's /mcp): stateful sessions (their id is what a session's default
// agent_id is made from) and at most maxSessions sessions. The Host check
// (DNS rebinding, --allowed-host) and the cross-origin and JSON rules are
// the Hall's edge's, applied to /mcp as to every route (internal/web), so
// the SDK's own loopback Host check is off: it would refuse a host the
// Hall was told to allow. Close ends every open
// request at once, so the Hall's shutdown never waits on a client's stream.
type HTTPHandler struct {
	srv         *sdk.Server
	maxSessions int
	next        http.Handler
	ctx         context.Context
	cancel      context.CancelFunc
}

// NewHTTPHandler returns the /mcp handler over cfg's Hall, holding at most
// maxSessions sessions (DefaultMaxSessions when not positive).
func NewHTTPHandler(cfg Config, maxSessions int) *HTTPHandler {
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	srv := NewServer(cfg)
	sh := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{
		Logger:                     cfg.Log,
		SessionTimeout:             SessionTimeout,
		DisableLocalhostProtection: true,
	})
	ctx, cancel := context.WithCancel(context.Background())
	return &HTTPHandler{srv: srv, maxSessions: maxSessions, next: sh, ctx: ctx, cancel: cancel}
}

// ServeHTTP serves one MCP request.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.ctx.Err() != nil {
		refuse(w, http.StatusServiceUnavailable, "shutting_down", "the Hall is shutting down")
		return
	}
	if r.Header.Get("Mcp-Session-Id") == "" && r.Method == http.MethodPost && h.sessions() >= h.maxSessions {
		w.Header().Set("Retry-After", "60")
		refuse(w, http.StatusServiceUnavailable, "too_many_sessions", fmt.Sprintf("the Hall holds %d MCP sessions, its most: end one, or retry later", h.maxSessions))
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(h.ctx, cancel)
	defer stop()
	h.next.ServeHTTP(w, r.WithContext(ctx))
}

// sessions counts the sessions held: those initialized (a request that
// opens none, as a client's probe of a newer protocol, holds none once
// answered).
func (h *HTTPHandler) sessions() int {
	n := 0
	for ss := range h.srv.Sessions() {
		if ss.InitializeParams() != nil {
			n++
		}
	}
	return n
}

func refuse(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(contract.ErrorResponse{Error: code, Detail: detail})
}

// Close ends every request in flight (open streams included) and every
// session, and refuses new ones.
func (h *HTTPHandler) Close() {
	h.cancel()
	for ss := range h.srv.Sessions() {
		_ = ss.Close()
	}
}
