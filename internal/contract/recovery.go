package contract

import "time"

// MaxLossFiles bounds the files a Loss names; FilesLeftOut counts the rest.
const MaxLossFiles = 32

// Loss is uncommitted work a session's command changed or removed, found
// after the command ran, with the snapshot the Hall saved before it
// (docs/recovery.md): what the victim is told once, what the page marks,
// what GET /api/snapshots lists as losses.
type Loss struct {
	Snapshot string `json:"snapshot"` // the snapshot that holds the files as they were
	Worktree string `json:"worktree"`
	Brain    string `json:"brain,omitempty"` // the brain the running session beat on
	// By is the agent id of the session whose command it was; Command
	// the command line (clipped), or the files a write named.
	By      string `json:"by"`
	Command string `json:"command"`
	// Owner is the agent id of the live session whose uncommitted work
	// the files held, as the Hall saw it; "" when no live session had
	// them (a person's, or the running session's own untold files).
	Owner        string    `json:"owner,omitempty"`
	Files        []string  `json:"files"`
	FilesLeftOut int       `json:"files_left_out"`
	At           time.Time `json:"at"`
	// Restore is the command that brings the files back.
	Restore string `json:"restore"`
}
