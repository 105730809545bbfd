package web

import (
	"net/http"
)

// HandleCockpit serves GET /api/cockpit[?brain=] as text/plain: the strip
// for agents, one root line and a drill of at most six rows, within the
// token budget. An unreadable registry still answers, saying so.
func (h *Handler) HandleCockpit(w http.ResponseWriter, r *http.Request) error {
	text, err := h.App.Cockpit(r.Context(), r.URL.Query().Get("brain"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte(text))
	return nil
}
