package gitscan

import (
	"os"
)

// OwnedByUs checks that the directory at path (a worktree) is owned by
// the user the Hall runs as (its effective uid): NotOwned when it is
// another user's, NotOnMachine when it is no directory here.
//
// Why: whoever reaches the Hall over loopback TCP is any local user, and
// the Hall cannot tell which. Were it to run git wherever a beat points,
// a user could learn another user's private repository (its changed
// files, a snapshot of them) through the Hall, which reads as its own
// user. Run only in its own user's worktrees, the Hall tells nobody
// more than its own user could read; its own user's repositories are as
// open as its reads are (docs/security.md: --read-token on a shared
// machine). A worktree of another user is shown from what its sessions
// declared and the hooks observed, its git answer worktree_not_owned.
func OwnedByUs(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return &Error{Code: NotOnMachine, Op: "stat worktree", Err: err}
	}
	return ownedByUs(path, fi)
}

func ownedByUs(path string, fi os.FileInfo) error {
	if uid, ok := ownerOf(fi); ok && uid != os.Geteuid() {
		return &Error{Code: NotOwned, Op: "stat worktree", Err: errorf("%s is owned by uid %d, the Hall runs as uid %d: it runs git only in its own user's worktrees", path, uid, os.Geteuid())}
	}
	return nil
}
