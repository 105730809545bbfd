// Package gittest makes real git repositories and worktrees for tests, with
// the git found on PATH. Git runs with a fixed identity and environment:
// no user or system configuration, no inherited GIT_* variable, branch
// main by default, no editor, pager or prompt, so a test reads the same on
// every machine. Nothing here is used outside tests.
package gittest

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fixed is the environment every git of a test runs with, over the
// process's own less its GIT_* variables.
var fixed = []string{
	"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	"GIT_AUTHOR_NAME=hall", "GIT_AUTHOR_EMAIL=hall@example.com",
	"GIT_COMMITTER_NAME=hall", "GIT_COMMITTER_EMAIL=hall@example.com",
	"GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat",
	// init.defaultBranch=main; protocol.file.allow=always lets a test add
	// a local repository as a submodule.
	"GIT_CONFIG_COUNT=2",
	"GIT_CONFIG_KEY_0=init.defaultBranch", "GIT_CONFIG_VALUE_0=main",
	"GIT_CONFIG_KEY_1=protocol.file.allow", "GIT_CONFIG_VALUE_1=always",
}

// Env is the environment git runs with in a test, for a test that runs
// git itself (or a shell whose commands run it).
func Env() []string {
	env := make([]string, 0, len(os.Environ())+len(fixed))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, fixed...)
}

// Command is git with args in dir ("": the current directory) under Env,
// for a test that wants git's error or output streams itself.
func Command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = Env()
	return cmd
}

// Git runs git with args in dir ("": the current directory) and returns
// its output, trimmed; it fails the test if git fails.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	out, err := Command(context.Background(), dir, args...).CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Init makes a repository in dir (created if need be) on branch main.
func Init(tb testing.TB, dir string) {
	tb.Helper()
	Git(tb, "", "init", "-q", "-b", "main", dir)
}

// CommitAll stages everything in the worktree dir and commits it.
func CommitAll(tb testing.TB, dir, message string) {
	tb.Helper()
	Git(tb, dir, "add", "-A")
	Git(tb, dir, "commit", "-q", "--allow-empty", "-m", message)
}

// Worktree adds a linked worktree of repo at path, on a new branch made
// from base.
func Worktree(tb testing.TB, repo, path, branch, base string) {
	tb.Helper()
	Git(tb, repo, "worktree", "add", "-q", "-b", branch, path, base)
}

// TempDir is tb.TempDir with its symlinks resolved, as git names it.
func TempDir(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

// WriteFile writes content to p, making its folders; a new file's mode
// is 0o644, an existing file keeps its own (as os.WriteFile does).
func WriteFile(tb testing.TB, p, content string) {
	tb.Helper()
	write(tb, p, content, 0o644)
}

// WriteFileMode writes content to p and sets its mode, making its folders.
func WriteFileMode(tb testing.TB, p, content string, mode fs.FileMode) {
	tb.Helper()
	write(tb, p, content, mode)
	if err := os.Chmod(p, mode); err != nil {
		tb.Fatal(err)
	}
}

func write(tb testing.TB, p, content string, mode fs.FileMode) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		tb.Fatal(err)
	}
}
