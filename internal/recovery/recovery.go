// Package recovery keeps snapshots of worktrees taken before a command
// that could destroy uncommitted work, and gives them back: "nothing lost
// for good" (issue 31).
//
// A snapshot is a git tree of the worktree's working tree as git add -A
// would stage it (tracked changes and untracked files that are not
// ignored; modes and symlinks), written into an object directory the Hall
// owns, with the repository's own objects as alternates: nothing is
// written into the user's objects, index, refs, stash or config. Each
// snapshot lives in its own directory under the store (its objects and a
// small JSON record), so a pruned snapshot is one directory removed.
// Ignored files are not kept.
package recovery

import (
	"errors"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
)

// Limits bound what a Store keeps. A zero field takes its default.
type Limits struct {
	// MaxAge drops snapshots older than it (default DefaultMaxAge).
	MaxAge time.Duration
	// MaxBytes bounds the store's total size on disk (default
	// DefaultMaxBytes): past it the oldest snapshots are dropped.
	MaxBytes int64
	// MaxCount bounds the snapshots kept (default DefaultMaxCount).
	MaxCount int
	// NoPrune: Open and Prune drop nothing (hall restore reads a store
	// whose limits the serving Hall's flags set).
	NoPrune bool
}

// Limit defaults.
const (
	DefaultMaxAge   = 14 * 24 * time.Hour
	DefaultMaxBytes = 1 << 30
	DefaultMaxCount = 2000
	// MaxFiles is the most files a snapshot's record lists; the rest are
	// counted in FilesLeftOut (the tree still holds them).
	MaxFiles = 500
	// DefaultPruneEvery is how often Run prunes.
	DefaultPruneEvery = 10 * time.Minute
)

// The kinds of Trigger.
const (
	TriggerShell = "shell" // a destructive shell command's pre-tool hook
	TriggerWrite = "write" // a write over another presence's uncommitted file
	TriggerScan  = "scan"  // the scanner's snapshot for merge prediction
	TriggerCLI   = "cli"   // asked for by hand
)

// Trigger is what made a snapshot be taken.
type Trigger struct {
	Kind    string `json:"kind"`              // TriggerShell, TriggerWrite, TriggerScan, TriggerCLI
	Tool    string `json:"tool,omitempty"`    // the agent's tool name, e.g. "Bash", "Write"
	Command string `json:"command,omitempty"` // the shell command or the file written
}

// SaveRequest asks for a snapshot of one worktree.
type SaveRequest struct {
	Worktree string  // the worktree's directory (any directory inside it)
	Presence string  // who the snapshot is taken for (whose command)
	Agent    string  // the agent kind, e.g. "claude-code"
	Brain    string  // the model, when known
	Trigger  Trigger // why
	// Paths are the files at stake, when known (repository-relative): a
	// hint, listed first in the record; the whole working tree is kept.
	Paths []string
	// Changes is git's last answer for the worktree (the scanner's), when
	// known: a worktree past MaxSnapshotFiles or MaxSnapshotRead by it is
	// refused before git reads anything (reasons.go).
	Changes *gitscan.Changes
}

// The states of a File.
const (
	StateModified = "modified"     // tracked, changed from HEAD (staged or not)
	StateAdded    = "added"        // not in HEAD: untracked or newly staged
	StateDeleted  = "deleted"      // in HEAD, gone from the working tree
	StateType     = "type_changed" // a file became a symlink or back
)

// File is one file a snapshot kept that differs from the worktree's HEAD.
// On the wire a name that is not UTF-8 carries its bytes beside it
// (names.go).
type File struct {
	Path    string `json:"path"`              // repository-relative, slash-separated
	Mode    uint32 `json:"mode"`              // permission bits on disk when taken (0 when deleted)
	State   string `json:"state"`             // StateModified, StateAdded, StateDeleted, StateType
	Symlink bool   `json:"symlink,omitempty"` // a symbolic link; its target is its content
}

// Snapshot is the record of one snapshot: public JSON (GET /api/snapshots).
type Snapshot struct {
	ID       string    `json:"id"`       // short, unique, sorts by time taken
	Worktree string    `json:"worktree"` // the worktree's top directory
	GitDir   string    `json:"git_dir"`  // the repository's common git directory
	Head     string    `json:"head"`     // HEAD when taken ("" on an unborn branch)
	Tree     string    `json:"tree"`     // the working tree's tree id
	Commit   string    `json:"commit"`   // a commit of Tree on Head
	Taken    time.Time `json:"taken"`
	Trigger  Trigger   `json:"trigger"`
	Presence string    `json:"presence,omitempty"`
	Agent    string    `json:"agent,omitempty"`
	Brain    string    `json:"brain,omitempty"`
	// Files are the files that differ from Head, the Paths hint first,
	// at most MaxFiles; FilesLeftOut counts the rest.
	Files        []File `json:"files"`
	FilesLeftOut int    `json:"files_left_out"`
	Bytes        int64  `json:"bytes"` // the snapshot's size in the store

	// Refused are the entries of the snapshot's tree whose path is not a
	// clean relative path (../x, .git/x: a hand-made index): kept in its
	// tree, never restored, at most MaxFiles.
	Refused []Refusal `json:"refused,omitempty"`
}

// Filter chooses snapshots for List.
type Filter struct {
	Worktree string // "" any; else the worktree's directory
	Agent    string // "" any; else the agent kind or the presence
	Limit    int    // the most returned (0: DefaultListLimit)
}

// DefaultListLimit is the most snapshots List returns unless told.
const DefaultListLimit = 100

// RestoreOptions choose what Restore writes and where.
type RestoreOptions struct {
	// Paths restores these files (repository-relative) of the snapshot's
	// tree; none: every file the snapshot lists as differing from HEAD
	// and not deleted.
	Paths []string
	// Force writes over a file that changed since the snapshot.
	Force bool
	// To writes the files under this directory instead of the worktree;
	// nothing there is refused.
	To string
}

// RestoreResult is what Restore did.
type RestoreResult struct {
	Dir       string   `json:"dir"`       // where the files were written
	Restored  []string `json:"restored"`  // written
	Unchanged []string `json:"unchanged"` // already as in the snapshot
	// Refused are the snapshot's entries whose path is not a clean
	// relative path (../x, .git/x): never written, the rest restored.
	Refused []Refusal `json:"refused,omitempty"`
}

// FileDiff is one file's difference between a snapshot and the worktree
// now. On the wire a name that is not UTF-8 carries its bytes beside it
// (names.go).
type FileDiff struct {
	Path  string `json:"path"`
	State string `json:"state"`           // DiffSame, DiffChanged, DiffMissing, DiffRefused, DiffNotCompared
	Patch string `json:"patch,omitempty"` // a unified diff, snapshot → now, bounded
	Why   string `json:"why,omitempty"`   // DiffRefused, DiffChanged: why
	Note  string `json:"note,omitempty"`  // why, for DiffNotCompared
}

// The states of a FileDiff.
const (
	DiffSame    = "same"
	DiffChanged = "changed" // other content, or not a file (a FIFO, a directory) now
	DiffMissing = "missing" // in the snapshot, not in the worktree now
	DiffRefused = "refused" // an entry a restore never writes: not a clean relative path
)

// PruneResult is what Prune dropped.
type PruneResult struct {
	Dropped int   `json:"dropped"`
	Freed   int64 `json:"freed"`
	Kept    int   `json:"kept"`
	Bytes   int64 `json:"bytes"` // the store's size after
}

// HookStats count the snapshots the Hall's hook answers took before
// destructive commands, and the losses found after them, for /metrics.
type HookStats struct {
	Saved    int64 // snapshots taken before a command
	NotSaved int64 // snapshots that failed or ran past their budget: "not saved"
	Losses   int64 // losses found after a command ran: one per owner and snapshot
	// NotSavedBy counts NotSaved by why, every Reason present.
	NotSavedBy map[Reason]int64
}

// ErrNotFound: no snapshot has that id.
var ErrNotFound = errors.New("no such snapshot")

// ChangedError is Restore's refusal: the files changed since the
// snapshot (neither the snapshot's content nor its HEAD's), nothing written.
type ChangedError struct {
	Paths []string
}

func (e *ChangedError) Error() string {
	return "changed since the snapshot (restore with --force, or --to DIR): " + joinBounded(e.Paths, 10)
}

func joinBounded(p []string, n int) string {
	s := ""
	for i, x := range p {
		if i == n {
			s += ", …"
			break
		}
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}
