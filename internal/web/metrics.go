package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/presence"
)

// HandleMetrics serves GET /metrics: the Prometheus text format, from the
// registry internal/metrics keeps. A read like the others: open wherever
// GET /api/health is.
func (h *Handler) HandleMetrics(w http.ResponseWriter, r *http.Request) {
	if h.Metrics == nil {
		writeError(w, presence.Errorf(presence.ENOTFOUND, "this Hall serves no metrics"), "not_found")
		return
	}
	h.Metrics.ServeHTTP(w, r)
}
