package hall

import (
	"context"
	"errors"
	"path"
	"path/filepath"
	"strconv"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/recovery"
)

// Bounds of the snapshot reads.
const (
	// MaxSnapshotsLimit bounds the snapshots one list answers.
	MaxSnapshotsLimit = 500
	// MaxDiffPaths bounds the paths one diff names.
	MaxDiffPaths = 100
)

// Snapshot reads are rate-limited per client (SnapshotLimit), as checks
// are: a list decodes records, a comparison hashes files.

// SnapshotList answers GET /api/snapshots and the MCP tool hall_snapshots:
// the snapshots kept, newest first, how many more the filter chose past
// its limit, and the losses found lately (each names the snapshot that
// holds the files as they were). Kept is false when this Hall keeps no
// snapshots (--snapshots=false).
type SnapshotList struct {
	Kept      bool                `json:"kept"`
	Snapshots []recovery.Snapshot `json:"snapshots"`
	LeftOut   int                 `json:"left_out"`
	Losses    []contract.Loss     `json:"losses"`
}

// SnapshotDiff answers GET /api/snapshots/{id}: the snapshot and how each
// of its files compares with the worktree now.
type SnapshotDiff struct {
	Snapshot recovery.Snapshot   `json:"snapshot"`
	Files    []recovery.FileDiff `json:"files"`
}

// SnapshotsLimit reads a list's limit: empty for the default, else 1 to
// MaxSnapshotsLimit.
func SnapshotsLimit(raw string) (int, error) {
	if raw == "" {
		return recovery.DefaultListLimit, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > MaxSnapshotsLimit {
		return 0, contract.Refuse(contract.KindInvalid, "invalid_limit", "limit %q: want a whole number from 1 to %d", raw, MaxSnapshotsLimit)
	}
	return n, nil
}

// Snapshots lists the snapshots the filter chooses (a worktree, an agent
// kind or presence; "" any), at most limit, with the losses found lately
// in the same worktree and by the same agent where the filter names them.
func (h *Hall) Snapshots(ctx context.Context, worktree, agent string, limit int) (SnapshotList, error) {
	out := SnapshotList{Snapshots: []recovery.Snapshot{}, Losses: []contract.Loss{}}
	if len(worktree) > presence.MaxPathLen || len(agent) > presence.MaxIDLen {
		return out, contract.Refuse(contract.KindInvalid, "field_too_large", "worktree is at most %d bytes, agent %d", presence.MaxPathLen, presence.MaxIDLen)
	}
	if worktree != "" && !path.IsAbs(worktree) {
		return out, contract.Refuse(contract.KindInvalid, "invalid_worktree", "worktree %q: want an absolute path", contract.Clip(worktree, 80))
	}
	if h.Recovery == nil {
		return out, nil
	}
	if err := h.allowSnapshotRead(ctx); err != nil {
		return out, err
	}
	snaps, left, err := h.Recovery.List(ctx, recovery.Filter{Worktree: worktree, Agent: agent, Limit: limit})
	if err != nil {
		return out, contract.Refuse(contract.KindUnavailable, "snapshots_unreadable", "%v", err)
	}
	out.Kept, out.LeftOut = true, left
	if snaps != nil {
		out.Snapshots = snaps
	}
	for _, l := range h.Losses() {
		if (worktree == "" || l.Worktree == path.Clean(worktree)) && (agent == "" || l.By == agent || l.Owner == agent) {
			out.Losses = append(out.Losses, l)
		}
	}
	return out, nil
}

// SnapshotFiles answers one snapshot and how its files (those at paths, or
// every file it lists as not deleted) compare with the worktree now.
func (h *Hall) SnapshotFiles(ctx context.Context, id string, paths []string) (SnapshotDiff, error) {
	if h.Recovery == nil {
		return SnapshotDiff{}, contract.Refuse(contract.KindNotFound, "unknown_snapshot", "this Hall keeps no snapshots (--snapshots=false)")
	}
	if len(paths) > MaxDiffPaths {
		return SnapshotDiff{}, contract.Refuse(contract.KindInvalid, "too_many_paths", "%d paths, at most %d", len(paths), MaxDiffPaths)
	}
	for _, p := range paths {
		if p == "" || len(p) > presence.MaxPathLen || path.IsAbs(p) || !filepath.IsLocal(p) {
			return SnapshotDiff{}, contract.Refuse(contract.KindInvalid, "invalid_path", "path %q: want a path relative to the worktree, inside it", contract.Clip(p, 80))
		}
	}
	if err := h.allowSnapshotRead(ctx); err != nil {
		return SnapshotDiff{}, err
	}
	snap, err := h.Recovery.Get(ctx, id)
	if err != nil {
		return SnapshotDiff{}, snapshotError(err, id)
	}
	// The comparison reads the worktree as the Hall's user: never for
	// whoever asks about another user's (gitscan.OwnedByUs).
	if gitscan.CodeOf(gitscan.OwnedByUs(snap.Worktree)) == gitscan.NotOwned {
		return SnapshotDiff{}, contract.Refuse(contract.KindForbidden, "worktree_not_owned", "snapshot %s: its worktree is another user's: the Hall compares only its own user's worktrees", id)
	}
	files, err := h.Recovery.Diff(ctx, id, paths)
	if err != nil {
		return SnapshotDiff{}, snapshotError(err, id)
	}
	if files == nil {
		files = []recovery.FileDiff{}
	}
	return SnapshotDiff{Snapshot: snap, Files: files}, nil
}

func snapshotError(err error, id string) error {
	if errors.Is(err, recovery.ErrNotFound) {
		return contract.Refuse(contract.KindNotFound, "unknown_snapshot", "no snapshot %q", contract.Clip(id, 40))
	}
	return contract.Refuse(contract.KindUnavailable, "snapshots_unreadable", "%v", err)
}
