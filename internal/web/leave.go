package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
)

// HandleLeave serves DELETE /api/presences/{presence_id}: a session that
// ends cleanly leaves at once instead of waiting out its ttl. 204 when it
// left, 404 when the Hall knows no such presence, 400 for a malformed id.
func (h *Handler) HandleLeave(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("presence_id")
	if err := h.Service.Leave(r.Context(), id); err != nil {
		status, body := contract.LeaveError(err)
		writeJSON(w, status, body)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
