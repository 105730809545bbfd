package web

import (
	"errors"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// HandleNorth serves GET /api/north?presence_id= (or ?agent_id=&brain=):
// one line per collision partner of that presence, at most
// presence.NorthCap and then one "+N more" line, [] when it collides with
// nobody (or is not live). An unreadable registry still answers 200, with
// no lines and the error.
func (h *Handler) HandleNorth(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := q.Get("presence_id")
	if id == "" {
		agent, brainRaw := q.Get("agent_id"), q.Get("brain")
		if agent == "" || brainRaw == "" {
			writeJSON(w, http.StatusBadRequest, errorBody("missing_presence", errors.New("give presence_id, or agent_id and brain")))
			return
		}
		if err := presence.CheckIdentifier("agent_id", agent, presence.MaxIDLen); err != nil {
			writeJSON(w, http.StatusBadRequest, errorBody("invalid_agent_id", errors.New(presence.ErrorMessage(err))))
			return
		}
		brain, err := scope(brainRaw)
		if err != nil {
			writeError(w, err, "invalid_brain")
			return
		}
		id = presence.ID(agent, brain)
	}
	if !presence.ValidID(id) {
		writeJSON(w, http.StatusBadRequest, errorBody("invalid_presence_id", errors.New("presence_id is prs_ and 12 lowercase hex digits")))
		return
	}
	snap, err := h.roster().Snapshot(r.Context())
	if err != nil {
		writeJSON(w, http.StatusOK, contract.NorthDropped(id, err))
		return
	}
	cs, total := snap.North(id)
	writeJSON(w, http.StatusOK, contract.NorthResponse{PresenceID: id, North: contract.NorthLines(id, cs, total), CollisionsTotal: total})
}
