package hookinstall

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
)

// ProjectRoot is the project a folder belongs to: the root of the git
// worktree holding dir (its top level, as git answers it), or dir itself
// outside one. A project install from a subfolder thus lands where the
// agent, started at the root, reads it.
func ProjectRoot(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, "git", "-C", abs, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return abs, nil // not in a git worktree (or no git): the folder itself
	}
	if root := strings.TrimSpace(string(out)); root != "" {
		return filepath.FromSlash(root), nil
	}
	return abs, nil
}

// Ignored reports whether git ignores file in the worktree at root: a
// personal settings file the person would otherwise commit by mistake is
// worth a note. False outside a repository or without git.
func Ignored(ctx context.Context, root, file string) bool {
	return exec.CommandContext(ctx, "git", "-C", root, "check-ignore", "-q", "--", file).Run() == nil
}

// InRepository reports whether root is in a git worktree.
func InRepository(ctx context.Context, root string) bool {
	return exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--is-inside-work-tree").Run() == nil
}
