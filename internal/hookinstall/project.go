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
