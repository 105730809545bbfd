package contract

import "github.com/hall-dev/hall/internal/recovery"

// SnapshotList answers GET /api/snapshots, the MCP tool hall_snapshots
// and `hall restore --list --json`: the snapshots kept, newest first, how
// many more the filter chose past its limit, and the losses found lately
// (each names the snapshot that holds the files as they were). Kept is
// false when the Hall keeps no snapshots (--snapshots=false).
type SnapshotList struct {
	Kept      bool                `json:"kept"`
	Snapshots []recovery.Snapshot `json:"snapshots"`
	LeftOut   int                 `json:"left_out"`
	Losses    []Loss              `json:"losses"`
}

// SnapshotDiff answers GET /api/snapshots/{id} and `hall restore ID
// --diff --json`: the snapshot and how each of its files compares with
// the worktree now.
type SnapshotDiff struct {
	Snapshot recovery.Snapshot   `json:"snapshot"`
	Files    []recovery.FileDiff `json:"files"`
}
