package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// HandleHealth serves GET /api/health: status, uptime, the store's and the
// live stream's counters, and the owner-wide roster as a diagnostic: its
// counts and a bounded sample (contract.HealthSample presences and
// collisions). An unreadable registry drops the presences block whole and
// says why; health itself still answers 200.
func (h *Handler) HandleHealth(w http.ResponseWriter, r *http.Request) error {
	out := h.App.Health(r.Context(), h.StartedAt)
	out.Store.Kind = h.StoreKind
	if h.Stream != nil {
		ss := h.Stream.Stats()
		out.Stream = &contract.HealthStream{
			Subscribers: ss.Subscribers, Subscribed: ss.Subscribed, Dropped: ss.Dropped,
			Resumed: ss.Resumed, Snapshots: ss.Snapshots, Diffs: ss.Seq,
			Refused: ss.Refused, MaxStreams: ss.MaxSubscribers,
		}
	}
	out.Git = h.Git
	httpwire.WriteJSON(w, http.StatusOK, out)
	return nil
}
