package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// HandleNorth serves GET /api/north?presence_id= (or ?agent_id=&brain=):
// one line per collision partner of that presence, at most
// presence.NorthCap and then one "+N more" line, [] when it collides with
// nobody (or is not live). An unreadable registry still answers 200, with
// no lines and the error.
func (h *Handler) HandleNorth(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	resp, err := h.App.North(r.Context(), hall.Who{PresenceID: q.Get("presence_id"), AgentID: q.Get("agent_id"), Brain: q.Get("brain")})
	if err != nil {
		return err
	}
	httpwire.WriteJSON(w, http.StatusOK, resp)
	return nil
}
