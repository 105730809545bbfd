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
// kind or presence; "" any), at most limit (0: the default, at most
// MaxSnapshotsLimit), with the losses found lately in the same worktree
// and by the same agent where the filter names them.
func (h *Hall) Snapshots(ctx context.Context, worktree, agent string, limit int) (contract.SnapshotList, error) {
	out := contract.SnapshotList{Snapshots: []recovery.Snapshot{}, Losses: []contract.Loss{}}
	if limit < 0 || limit > MaxSnapshotsLimit {
		return out, contract.Refuse(contract.KindInvalid, "invalid_limit", "limit %d: want a whole number from 1 to %d", limit, MaxSnapshotsLimit)
	}
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
func (h *Hall) SnapshotFiles(ctx context.Context, id string, paths []string) (contract.SnapshotDiff, error) {
	if h.Recovery == nil {
		return contract.SnapshotDiff{}, contract.Refuse(contract.KindNotFound, "unknown_snapshot", "this Hall keeps no snapshots (--snapshots=false)")
	}
	if len(paths) > MaxDiffPaths {
		return contract.SnapshotDiff{}, contract.Refuse(contract.KindInvalid, "too_many_paths", "%d paths, at most %d", len(paths), MaxDiffPaths)
	}
	for _, p := range paths {
		if p == "" || len(p) > presence.MaxPathLen || path.IsAbs(p) || !filepath.IsLocal(p) {
			return contract.SnapshotDiff{}, contract.Refuse(contract.KindInvalid, "invalid_path", "path %q: want a path relative to the worktree, inside it", contract.Clip(p, 80))
		}
	}
	if err := h.allowSnapshotRead(ctx); err != nil {
		return contract.SnapshotDiff{}, err
	}
	snap, err := h.Recovery.Get(ctx, id)
	if err != nil {
		return contract.SnapshotDiff{}, snapshotError(err, id)
	}
	// The comparison reads the worktree as the Hall's user: never for
	// whoever asks about another user's (gitscan.OwnedByUs).
	if gitscan.CodeOf(gitscan.OwnedByUs(snap.Worktree)) == gitscan.NotOwned {
		return contract.SnapshotDiff{}, contract.Refuse(contract.KindForbidden, "worktree_not_owned", "snapshot %s: its worktree is another user's: the Hall compares only its own user's worktrees", id)
	}
	files, err := h.Recovery.Diff(ctx, id, paths)
	if err != nil {
		return contract.SnapshotDiff{}, snapshotError(err, id)
	}
	if files == nil {
		files = []recovery.FileDiff{}
	}
	return contract.SnapshotDiff{Snapshot: snap, Files: files}, nil
}

func snapshotError(err error, id string) error {
	if errors.Is(err, recovery.ErrNotFound) {
		return contract.Refuse(contract.KindNotFound, "unknown_snapshot", "no snapshot %q", contract.Clip(id, 40))
	}
	return contract.Refuse(contract.KindUnavailable, "snapshots_unreadable", "%v", err)
}

// Restore writes a snapshot's files back (recovery.Store.Restore: all or
// nothing, beneath the worktree or opts.To, never through a link): `hall
// restore ID`, the one write, with no Hall serving. The store's error
// comes back as it is (what it refused, by name); a Hall that keeps no
// snapshots refuses.
func (h *Hall) Restore(ctx context.Context, id string, opts recovery.RestoreOptions) (recovery.RestoreResult, error) {
	if h.Recovery == nil {
		return recovery.RestoreResult{}, contract.Refuse(contract.KindNotFound, "unknown_snapshot", "this Hall keeps no snapshots (--snapshots=false)")
	}
	return h.Recovery.Restore(ctx, id, opts)
}
