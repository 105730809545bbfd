package web

import (
	"net/http"
)

// HandleLeave serves DELETE /api/presences/{presence_id}: a session that
// ends cleanly leaves at once instead of waiting out its ttl. 204 when it
// left, 404 when the Hall knows no such presence, 400 for a malformed id.
func (h *Handler) HandleLeave(w http.ResponseWriter, r *http.Request) error {
	if err := h.App.Leave(r.Context(), r.PathValue("presence_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
