package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
)

// HandleMetrics serves GET /metrics: the Prometheus text format, from the
// registry internal/metrics keeps. A read like the others: open wherever
// GET /api/health is.
func (h *Handler) HandleMetrics(w http.ResponseWriter, r *http.Request) error {
	if h.Metrics == nil {
		return contract.Refuse(contract.KindNotFound, "not_found", "this Hall serves no metrics")
	}
	h.Metrics.ServeHTTP(w, r)
	return nil
}
