package hall

import (
	"context"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/remotewatch"
)

// Health is what GET /api/health says of the Hall's operations: status,
// uptime since startedAt on the service's clock, the service's counters,
// and the owner-wide roster as a diagnostic (its counts and a bounded
// sample). An unreadable registry drops the presences block whole and
// says why; health itself still answers. What only the serving side
// knows (the store's kind, the live stream, git) its transport adds.
func (h *Hall) Health(ctx context.Context, startedAt time.Time) contract.Health {
	now := h.Service.Now()
	st := h.Service.Stats()
	out := contract.Health{
		Status:      "ok",
		StartedAtMs: startedAt.UnixMilli(),
		UptimeMs:    now.Sub(startedAt).Milliseconds(),
		Store: contract.HealthStoreStat{
			Beats: st.Beats, Writes: st.Writes,
			WriteErrors: st.WriteErrors, Throttled: st.Throttled, BusyReads: st.BusyReads,
		},
	}
	snap, err := h.Snapshot(ctx)
	if err != nil {
		out.Error, out.Detail = contract.RosterError(err)
		out.PresencesError = contract.RosterErrorLabel(out.Error) + ": " + out.Detail
	} else {
		out.Presences = contract.HealthRosterOf(snap)
	}
	if h.Remotes != nil {
		out.Remotes, out.RemotesTotal = healthRemotes(h.Remotes.Remotes())
	}
	return out
}

// RemoteWatch is what health and Check read of the watch of pushed work
// (*remotewatch.Watcher).
type RemoteWatch interface {
	Remotes() []remotewatch.Remote
	// Touching answers the pushed branches that changed paths
	// (repository-relative), of the remote the first worktree it knows
	// fetches from: for Check.
	Touching(worktrees []string, paths []string) []remotewatch.Pushed
}

// healthRemotes are the first MaxHealthRemotes remotes as health says
// them, and how many there are.
func healthRemotes(rs []remotewatch.Remote) ([]contract.HealthRemote, int) {
	out := make([]contract.HealthRemote, 0, min(len(rs), contract.MaxHealthRemotes))
	for _, r := range rs[:min(len(rs), contract.MaxHealthRemotes)] {
		hr := contract.HealthRemote{Remote: r.Identity, DefaultBranch: r.Default, Branches: len(r.Branches), Omitted: r.Omitted,
			Worktrees: r.Worktrees, Error: r.Err, SharedBy: r.SharedBy}
		if !r.LastGood.IsZero() {
			hr.LastGoodMs = r.LastGood.UnixMilli()
		}
		if !r.FailingSince.IsZero() {
			hr.FailingSinceMs = r.FailingSince.UnixMilli()
		}
		out = append(out, hr)
	}
	return out, len(rs)
}

// RemotesFailingShown is the most failing remotes the page names.
const RemotesFailingShown = 3

// RemotesFailing are the watched remotes whose last look failed, as
// health says them, at most RemotesFailingShown: the page says each once,
// with its last good look. Nil without a watch.
func (h *Hall) RemotesFailing() []contract.HealthRemote {
	if h.Remotes == nil {
		return nil
	}
	all, _ := healthRemotes(h.Remotes.Remotes())
	var out []contract.HealthRemote
	for _, r := range all {
		if r.Error != "" && len(out) < RemotesFailingShown {
			out = append(out, r)
		}
	}
	return out
}
