package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
)

// HandleCockpit serves GET /api/cockpit[?brain=] as text/plain: the strip
// for agents, one root line and a drill of at most six rows, within the
// token budget. An unreadable registry still answers, saying so.
func (h *Handler) HandleCockpit(w http.ResponseWriter, r *http.Request) {
	brain, err := scope(r.URL.Query().Get("brain"))
	if err != nil {
		writeError(w, err, "invalid_brain")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	snap, err := h.roster().Snapshot(r.Context())
	if err != nil {
		_, _ = w.Write([]byte(contract.UnreadableCockpit(err, brain)))
		return
	}
	if brain != "" && !snap.Known(brain) {
		status, body := contract.UnknownBrain(r.URL.Query().Get("brain"))
		writeJSON(w, status, body)
		return
	}
	_, _ = w.Write([]byte(contract.CockpitFor(snap.ForBrain(brain), brain).String()))
}
