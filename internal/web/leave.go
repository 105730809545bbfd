package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/presence"
)

// HandleLeave serves DELETE /api/presences/{presence_id}: a session that
// ends cleanly leaves at once instead of waiting out its ttl. 204 when it
// left, 404 when the Hall knows no such presence, 400 for a malformed id.
func (h *Handler) HandleLeave(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("presence_id")
	if err := h.Service.Leave(r.Context(), id); err != nil {
		code := map[string]string{
			presence.EINVALID:  "invalid_presence_id",
			presence.ENOTFOUND: "unknown_presence",
			// A store out of reach cannot delete: the same 503 as any
			// store that cannot.
			presence.EUNREACHABLE: presence.EUNAVAILABLE,
		}[presence.ErrorCode(err)]
		writeError(w, err, code)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
