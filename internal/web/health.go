package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
)

// HandleHealth serves GET /api/health: status, uptime, the store's and the
// live stream's counters, and the owner-wide roster as a diagnostic: its
// counts and a bounded sample (contract.HealthSample presences and
// collisions). An unreadable registry drops the presences block whole and
// says why; health itself still answers 200.
func (h *Handler) HandleHealth(w http.ResponseWriter, r *http.Request) error {
	now := h.App.Service.Now()
	st := h.App.Service.Stats()
	out := contract.Health{
		Status:      "ok",
		StartedAtMs: h.StartedAt.UnixMilli(),
		UptimeMs:    now.Sub(h.StartedAt).Milliseconds(),
		Store: contract.HealthStoreStat{
			Kind: h.StoreKind, Beats: st.Beats, Writes: st.Writes,
			WriteErrors: st.WriteErrors, Throttled: st.Throttled, BusyReads: st.BusyReads,
		},
	}
	if h.Stream != nil {
		ss := h.Stream.Stats()
		out.Stream = &contract.HealthStream{
			Subscribers: ss.Subscribers, Subscribed: ss.Subscribed, Dropped: ss.Dropped,
			Resumed: ss.Resumed, Snapshots: ss.Snapshots, Diffs: ss.Seq,
			Refused: ss.Refused, MaxStreams: ss.MaxSubscribers,
		}
	}
	snap, err := h.App.Snapshot(r.Context())
	if err != nil {
		out.Error, out.Detail = contract.RosterError(err)
		out.PresencesError = contract.RosterErrorLabel(out.Error) + ": " + out.Detail
	} else {
		out.Presences = contract.HealthRosterOf(snap)
	}
	contract.WriteJSON(w, http.StatusOK, out)
	return nil
}
