package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
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
	if h.Stream == nil {
		return contract.Refuse(contract.KindUnavailable, "stream_unavailable", "this Hall serves no live stream")
	}
	f, err := h.App.StreamFilter(r.Context(), q.Get("brain"), q.Get("presence_id"), q.Get("collisions_only"))
	if err != nil {
		return err
	}
	h.Stream.ServeStream(w, r, f)
	return nil
}
