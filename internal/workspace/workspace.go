// Package workspace measures where an agent works from a directory: the
// top level of its git worktree, and its brain, the repository's main
// worktree, so every worktree of one repository shares one brain (outside
// git, the directory itself). `hall beat` and `hall mcp` derive the
// caller_root, worktree and brain an agent did not declare through it, so
// a hook and an MCP session in one directory land on one presence.
package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hall-dev/hall/internal/contract"
)

// Fill completes what req did not say: caller_root from dir (the working
// directory when dir is empty), worktree and brain measured from the caller
// root. Fields already set are kept; paths are made absolute.
func Fill(req *contract.BeatRequest, dir string) error {
	if req.CallerRoot == "" {
		req.CallerRoot = dir
	}
	if req.CallerRoot == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		req.CallerRoot = wd
	}
	if abs, err := filepath.Abs(req.CallerRoot); err == nil {
		req.CallerRoot = abs
	}
	worktree, brain := Locate(req.CallerRoot)
	if req.Worktree == "" {
		req.Worktree = worktree
	}
	if req.Brain == "" {
		req.Brain = brain
	}
	if abs, err := filepath.Abs(req.Brain); err == nil {
		req.Brain = abs
	}
	return nil
}

// Locate returns the top level of dir's git worktree ("" outside git) and
// the brain: the repository's main worktree, else the top level, else dir.
func Locate(dir string) (worktree, brain string) {
	top, main := gitWhere(dir)
	switch {
	case main != "":
		return top, main
	case top != "":
		return top, top
	default:
		return "", dir
	}
}

// gitWhere returns the top level of dir's git worktree and the main
// worktree of its repository; empty strings outside git.
func gitWhere(dir string) (top, main string) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir").Output()
	if err != nil {
		return "", ""
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return "", ""
	}
	top = lines[0]
	if filepath.Base(lines[1]) == ".git" {
		main = filepath.Dir(lines[1])
	} else {
		main = top
	}
	return top, main
}
