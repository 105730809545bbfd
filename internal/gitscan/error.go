package gitscan

import (
	"errors"
	"fmt"

	"github.com/hall-dev/hall/internal/presence/overlap"
)

// Code names why git could not answer: a fixed set, so a caller can say
// which fallback it took without reading a message.
type Code string

// The codes of an *Error.
const (
	// GitMissing: no git program at the configured path or on PATH.
	GitMissing Code = "git_missing"
	// GitTooOld: git is older than MinVersion (merge-tree --write-tree).
	GitTooOld Code = "git_too_old"
	// NotOnMachine: the worktree is not a directory on this machine.
	// (The overlap derivation reads it as another host's: one code.)
	NotOnMachine Code = overlap.ReasonNotHere
	// NotOwned: the worktree is owned by another user than the one the
	// Hall runs as. The Hall runs no git there for whoever names it: a
	// beat over loopback comes from any local user, who could not read
	// that user's repository themselves (OwnedByUs).
	NotOwned Code = "worktree_not_owned"
	// NotWorktree: the directory is not inside a git worktree.
	NotWorktree Code = "not_a_worktree"
	// Timeout: a git process ran past its timeout and was killed.
	Timeout Code = "git_timeout"
	// Failed: git ran and failed, or answered what could not be read.
	Failed Code = "git_failed"
)

// Error is a failure to get git's answer, with its code.
type Error struct {
	Code Code
	Op   string // what was asked, e.g. "git status"
	Err  error
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("gitscan %s: %s", e.Code, e.Op)
	}
	return fmt.Sprintf("gitscan %s: %s: %v", e.Code, e.Op, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the code of the first *Error in err's chain, Failed for
// any other error and "" for nil.
func CodeOf(err error) Code {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return Failed
	}
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
