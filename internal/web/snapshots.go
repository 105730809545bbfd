package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// HandleSnapshots serves GET /api/snapshots[?worktree=][&agent=][&limit=]:
// the snapshots the Hall kept before destructive commands, newest first,
// with how many more matched past the limit, and the losses found lately
// (docs/recovery.md). A client past its rate (hall.Hall.SnapshotLimit)
// is a 429 rate_limited, as a check's. Read-only: restoring is `hall restore`'s, on the
// machine that holds the worktree.
func (h *Handler) HandleSnapshots(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := hall.SnapshotsLimit(q.Get("limit"))
	if err != nil {
		return err
	}
	list, err := h.App.Snapshots(hall.WithClient(r.Context(), clientKey(r)), q.Get("worktree"), q.Get("agent"), limit)
	if err != nil {
		return err
	}
	httpwire.WriteJSON(w, http.StatusOK, list)
	return nil
}

// HandleSnapshot serves GET /api/snapshots/{id}[?path=…]: one snapshot,
// and how each of its files (or those named, up to hall.MaxDiffPaths)
// compares with the worktree now: same, changed or missing.
func (h *Handler) HandleSnapshot(w http.ResponseWriter, r *http.Request) error {
	d, err := h.App.SnapshotFiles(hall.WithClient(r.Context(), clientKey(r)), r.PathValue("id"), r.URL.Query()["path"])
	if err != nil {
		return err
	}
	httpwire.WriteJSON(w, http.StatusOK, d)
	return nil
}
