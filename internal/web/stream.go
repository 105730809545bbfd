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
func (h *Handler) HandlePresencesStream(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	brain, err := scope(q.Get("brain"))
	if err != nil {
		writeError(w, err, "invalid_brain")
		return
	}
	f := stream.Filter{Brain: brain, PresenceID: q.Get("presence_id")}
	if f.PresenceID != "" && !presence.ValidID(f.PresenceID) {
		writeError(w, presence.Errorf(presence.EINVALID, "presence_id %q is not prs_ and 12 lowercase hex digits", f.PresenceID), "invalid_presence_id")
		return
	}
	switch q.Get("collisions_only") {
	case "", "0", "false":
	case "1", "true":
		f.CollisionsOnly = true
	default:
		writeError(w, presence.Errorf(presence.EINVALID, "collisions_only is %q: use 1 or 0", q.Get("collisions_only")), "invalid_collisions_only")
		return
	}
	if h.Stream == nil {
		writeError(w, presence.Errorf(presence.EUNAVAILABLE, "this Hall serves no live stream"), "stream_unavailable")
		return
	}
	if brain != "" {
		// An unreadable registry is not a 404: the stream opens and says so,
		// as GET /api/presences answers 200 with an error.
		if snap, err := h.roster().Snapshot(r.Context()); err == nil && !snap.Known(brain) {
			status, body := contract.UnknownBrain(r.URL.Query().Get("brain"))
			writeJSON(w, status, body)
			return
		}
	}
	h.Stream.ServeStream(w, r, f)
}
