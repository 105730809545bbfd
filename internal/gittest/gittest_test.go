package gittest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
)

// TestRepoWithWorktree: a repository made by the kit is on main with the
// fixed identity, a worktree of it on its own branch sees the commit, a
// written file has the mode asked, and a GIT_DIR the test process
// inherited does not redirect the kit's git.
func TestRepoWithWorktree(t *testing.T) {
	decoy := gittest.TempDir(t)
	gittest.Init(t, decoy)
	t.Setenv("GIT_DIR", filepath.Join(decoy, ".git"))

	root := gittest.TempDir(t)
	main := filepath.Join(root, "main")
	gittest.Init(t, main)
	gittest.WriteFile(t, filepath.Join(main, "src", "a.go"), "package src\n")
	gittest.WriteFileMode(t, filepath.Join(main, "run.sh"), "#!/bin/sh\n", 0o755)
	gittest.CommitAll(t, main, "start")

	if got := gittest.Git(t, main, "branch", "--show-current"); got != "main" {
		t.Errorf("branch = %q, want main", got)
	}
	if got := gittest.Git(t, main, "log", "-1", "--format=%an <%ae> %cn"); got != "hall <hall@example.com> hall" {
		t.Errorf("identity = %q", got)
	}
	if got := gittest.Git(t, main, "ls-files", "-s", "run.sh"); len(got) < 6 || got[:6] != "100755" {
		t.Errorf("run.sh staged as %q, want mode 100755", got)
	}

	wt := filepath.Join(root, "wt2")
	gittest.Worktree(t, main, wt, "wt2", "main")
	if got := gittest.Git(t, wt, "branch", "--show-current"); got != "wt2" {
		t.Errorf("worktree branch = %q, want wt2", got)
	}
	if _, err := os.Stat(filepath.Join(wt, "src", "a.go")); err != nil {
		t.Errorf("worktree lacks the commit: %v", err)
	}
	if got := gittest.Git(t, decoy, "rev-list", "--all", "--count"); got != "0" {
		t.Errorf("the inherited GIT_DIR's repository got %s commits", got)
	}
}
