package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
)

// Streamer serves one live stream of the roster; *stream.Hub in
// production. It is called once the request is known to be good.
type Streamer interface {
	ServeStream(w http.ResponseWriter, r *http.Request, f stream.Filter)
	Stats() stream.Stats
}

// HandlePresencesStream serves GET /api/presences/stream: the contract
// pushed over Server-Sent Events. Query parameters: brain (one brain's
// roster; an unknown brain is 404 before any stream opens, as on GET
// /api/presences), presence_id (the agent's view: its own join, updates and
// leave, and its own collisions), collisions_only=1 (collisions opening and
// closing, no presences), last_event_id (Last-Event-ID for clients that
// cannot set the header). Bad input is a 400 and opens nothing.
func (h *Handler) HandlePresencesStream(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := stream.Filter{PresenceID: q.Get("presence_id")}
	if f.PresenceID != "" {
		if err := presence.CheckID(f.PresenceID); err != nil {
			return contract.FromDomain(err, "invalid_presence_id")
		}
	}
	switch q.Get("collisions_only") {
	case "", "0", "false":
	case "1", "true":
		f.CollisionsOnly = true
	default:
		return contract.Refuse(http.StatusBadRequest, "invalid_collisions_only", "collisions_only is %q: use 1 or 0", q.Get("collisions_only"))
	}
	if h.Stream == nil {
		return contract.Refuse(http.StatusServiceUnavailable, "stream_unavailable", "this Hall serves no live stream")
	}
	// An unknown brain is a 404 before any stream opens; an unreadable
	// registry is not: the stream opens and says so, as GET
	// /api/presences answers 200 with an error.
	if raw := q.Get("brain"); raw != "" {
		v, err := h.App.View(r.Context(), raw)
		if err != nil {
			return err
		}
		f.Brain = v.Brain
	}
	h.Stream.ServeStream(w, r, f)
	return nil
}
