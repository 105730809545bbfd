package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// HandleEvents serves GET /api/events[?brain=][&limit=]: what happened
// lately — joins, leaves, collisions opened, changed and closed (with how
// long each lasted), the registry going unreadable and back — newest
// first, with the same types and fields as `hall watch --json`. The
// history is in memory and bounded (the last 1,000 events of every brain
// together; updates are not kept); a restart starts it empty. An unknown
// brain is 404, a bad limit 400.
func (h *Handler) HandleEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := hall.EventsLimit(q.Get("limit"))
	if err != nil {
		return err
	}
	page, err := h.App.Events(r.Context(), q.Get("brain"), limit)
	if err != nil {
		return err
	}
	httpwire.WriteJSON(w, http.StatusOK, page)
	return nil
}
