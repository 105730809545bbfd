package web

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/static"
)

// Roster is what the read surfaces need from the domain: the live roster at
// this instant.
type Roster interface {
	Snapshot(ctx context.Context) (presence.Snapshot, error)
}

// Handler serves every surface of the Hall. Its fields are its
// dependencies; set them before serving.
type Handler struct {
	Service    *presence.Service
	Roster     Roster // Service when nil; a cached live view in production
	StoreKind  string // "dir", "nats"…, shown on health
	WriteToken string // when set, beat and leave require it as a bearer token
	// ReadToken, when set, guards every route but the page's assets: a
	// bearer token (the WriteToken counts too), or the page's cookie.
	ReadToken string
	// AllowedHosts are the Host names answered besides loopback names and
	// IP addresses ("name" or "name:port"); any other is a 421.
	AllowedHosts []string
	StartedAt    time.Time
	Log          *slog.Logger

	Stream  Streamer     // serves /api/presences/stream; 503 when nil
	History History      // recent events and collision ages; none when nil
	Metrics http.Handler // serves /metrics (internal/metrics); 404 when nil

	MCP http.Handler // serves /mcp, the MCP tools (internal/mcp); 404 when nil

	Assets *static.Assets // the page's CSS and JS; the embedded ones when nil
	Page   PageConfig     // timings of the live page's script; defaults when zero

	bodies rosterBodies   // encoded contract responses of the latest cursor
	frags  fragmentBodies // rendered page fragments of the latest cursor
}

func (h *Handler) roster() Roster {
	if h.Roster != nil {
		return h.Roster
	}
	return h.Service
}

// scope resolves the brain query parameter: "" for owner-wide, else the
// canonical path. A relative path, or one that breaks the rules of shown
// text (a bidi control, a control character, over MaxPathLen), is an
// EINVALID error.
func scope(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	if err := presence.CheckText("brain", raw, presence.MaxPathLen); err != nil {
		return "", presence.Errorf(presence.EINVALID, "%s", presence.ErrorMessage(err))
	}
	return presence.CanonicalPath(raw)
}
