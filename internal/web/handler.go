package web

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/static"
)

// Handler serves every surface of the Hall. Its fields are its
// dependencies; set them before serving.
type Handler struct {
	// App is the Hall's operations (internal/hall): every handler decodes,
	// calls it and encodes.
	App        *hall.Hall
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

// History is what the page shows of the Hall's past: the recent events
// and when each open collision opened; *stream.Hub in production.
type History interface {
	hall.History
	CollisionsOpened(ids []string) map[string]stream.Opened
}

// refusalDetail is what a client reads of err: its detail on the wire.
func refusalDetail(err error) string {
	e, _ := contract.Refusal(err)
	return e.Detail
}
