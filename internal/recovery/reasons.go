package recovery

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hall-dev/hall/internal/gitscan"
)

// Reason says why a snapshot was not saved: a fixed set, public (the
// hook answer's not_saved, the metrics' reason label; docs/recovery.md),
// never read from a message.
type Reason string

// The reasons a snapshot is not saved.
const (
	// ReasonTooManyFiles: git's last answer for the worktree counts more
	// uncommitted files than a snapshot takes (MaxSnapshotFiles).
	ReasonTooManyFiles Reason = "too_many_files"
	// ReasonTooLarge: the uncommitted files git listed hold more bytes
	// than a snapshot reads (MaxSnapshotRead).
	ReasonTooLarge Reason = "too_large"
	// ReasonOverMaxBytes: the snapshot alone would take more than the
	// store's byte bound (--snapshot-max-bytes).
	ReasonOverMaxBytes Reason = "over_max_bytes"
	// ReasonTimeout: git ran past the snapshot's budget and was killed.
	ReasonTimeout Reason = "git_timeout"
	// ReasonFailed: git could not take it (or the store could not keep it).
	ReasonFailed Reason = "git_failed"
	// ReasonNotOwned: another user owns the worktree, and the Hall runs
	// git only in its own user's (docs/security.md).
	ReasonNotOwned Reason = "not_owned"
)

// Reasons are every Reason, in the order the docs list them.
var Reasons = [...]Reason{ReasonTooManyFiles, ReasonTooLarge, ReasonOverMaxBytes, ReasonTimeout, ReasonFailed, ReasonNotOwned}

// Bounds of what one snapshot reads, checked against git's last answer
// for the worktree before git reads anything: past them, git add could
// not finish within a hook's budget (10,000 files with a hundred edited
// take ~45 ms; 100,000 new files or a 2 GB file take seconds), and the
// snapshot is refused at once, saying why, where it would otherwise run
// out of time.
const (
	// MaxSnapshotFiles bounds the uncommitted files a snapshot takes.
	MaxSnapshotFiles = 20000
	// MaxSnapshotRead bounds the bytes of uncommitted files a snapshot
	// reads.
	MaxSnapshotRead = 256 << 20
)

// NotSavedError is a snapshot refused, and why.
type NotSavedError struct {
	Reason Reason
	Detail string
}

func (e *NotSavedError) Error() string {
	return fmt.Sprintf("recovery: not saved (%s): %s", e.Reason, e.Detail)
}

// ReasonOf is why err left a snapshot unsaved: a *NotSavedError's
// reason, git's timeout (or the budget's end), else ReasonFailed; ""
// for nil.
func ReasonOf(err error) Reason {
	var ns *NotSavedError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ns):
		return ns.Reason
	case gitscan.CodeOf(err) == gitscan.Timeout, errors.Is(err, context.DeadlineExceeded):
		return ReasonTimeout
	case gitscan.CodeOf(err) == gitscan.NotOwned:
		return ReasonNotOwned
	default:
		return ReasonFailed
	}
}

// checkWorktree refuses, before git reads anything, a worktree whose
// uncommitted files git's last answer (c, the scanner's) counts or
// sizes past the snapshot's bounds. The sizes are read now (lstat) of
// the files c lists, at most gitscan.DefaultMaxFiles of them: where c
// lists fewer than it counts, their sum is a lower bound, enough to
// refuse and never enough to wrongly do so. Nil c: nothing known, git
// finds out.
func checkWorktree(c *gitscan.Changes) error {
	if c == nil {
		return nil
	}
	if c.Uncommitted > MaxSnapshotFiles {
		return &NotSavedError{Reason: ReasonTooManyFiles,
			Detail: fmt.Sprintf("git counts %d uncommitted files, over the %d a snapshot takes", c.Uncommitted, MaxSnapshotFiles)}
	}
	var sum int64
	for i, p := range c.Files {
		if i >= len(c.States) || !c.States[i].Uncommitted() || strings.HasSuffix(p, "/") {
			continue
		}
		info, err := os.Lstat(filepath.Join(c.Root, filepath.FromSlash(p)))
		if err != nil || !info.Mode().IsRegular() {
			continue // gone (a deletion), a link, or unreadable: git finds out
		}
		if sum += info.Size(); sum > MaxSnapshotRead {
			return &NotSavedError{Reason: ReasonTooLarge,
				Detail: fmt.Sprintf("the uncommitted files hold over %d bytes, more than a snapshot reads", MaxSnapshotRead)}
		}
	}
	return nil
}
