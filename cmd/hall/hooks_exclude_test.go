package main

import (
	"os"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hooktest"
)

// TestHooksInstallGitExclude (issue 33, row 4): a project install in a
// linked worktree says that git would commit the file, and writes nothing
// into the repository's info/exclude unless asked; --dry-run says what
// --git-exclude would add; --git-exclude adds the file and its backups
// once (the main worktree's info/exclude, so every worktree of the
// repository reads it), and git lists neither in any worktree.
func TestHooksInstallGitExclude(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	repo := hooktest.GitRepo(t)
	exclude := strings.TrimSpace(gittest.Git(t, repo.Worktree, "rev-parse", "--path-format=absolute", "--git-common-dir")) + "/info/exclude"
	read := func() string {
		b, err := os.ReadFile(exclude)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return string(b)
	}
	before := read()
	install := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, "", append([]string{"hooks", "install", "codex", "--project", repo.Worktree}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return stdout
	}
	status := func(wt string) string {
		return gittest.Git(t, wt, "status", "--porcelain", "--untracked-files=all")
	}

	if out := install(); !strings.Contains(out, "git neither tracks nor ignores .codex/hooks.json") || !strings.Contains(out, "--git-exclude") {
		t.Errorf("install: %s; want the note that git would commit .codex/hooks.json", out)
	}
	if got := read(); got != before {
		t.Errorf("info/exclude written without --git-exclude: %q", got)
	}
	if !strings.Contains(status(repo.Worktree), "?? .codex/hooks.json") {
		t.Fatalf("git does not list the file untracked: %s", status(repo.Worktree))
	}
	if out := install("--git-exclude", "--dry-run"); !strings.Contains(out, "dry run: would add to "+exclude+": /.codex/hooks.json /.codex/hooks.json.hall-backup-*") {
		t.Errorf("--git-exclude --dry-run: %s", out)
	}
	if got := read(); got != before {
		t.Errorf("info/exclude written by a dry run: %q", got)
	}
	// Another URL: the file changes, and a backup is left beside it.
	out := install("--git-exclude", "--hall", "http://127.0.0.1:7999")
	if !strings.Contains(out, "git: added to "+exclude+": /.codex/hooks.json /.codex/hooks.json.hall-backup-*") || !strings.Contains(out, "backup: ") {
		t.Errorf("--git-exclude: %s", out)
	}
	for _, wt := range []string{repo.Worktree, repo.Main} {
		if st := status(wt); strings.Contains(st, ".codex") {
			t.Errorf("git status in %s after --git-exclude: %s", wt, st)
		}
	}
	if out := install("--git-exclude"); strings.Contains(out, "git: added") || strings.Contains(out, "neither tracks nor ignores") {
		t.Errorf("a second --git-exclude: %s; want nothing more added or said", out)
	}
	if got := read(); !strings.HasPrefix(got, before) || strings.Count(got, "/.codex/hooks.json\n") != 1 || strings.Count(got, "/.codex/hooks.json.hall-backup-*\n") != 1 {
		t.Errorf("info/exclude: %q; want what it held, then each line once", got)
	}
	// In a repository's worktree, the main one included, the file is
	// ignored now: its install says nothing of it.
	code, stdout, _ := runCLI(t, "", "hooks", "install", "codex", "--project", repo.Main)
	if code != 0 || strings.Contains(stdout, "neither tracks nor ignores") {
		t.Errorf("install in the main worktree: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := runCLI(t, "", "hooks", "install", "codex", "--user", "--git-exclude"); code != 2 || !strings.Contains(stderr, "--git-exclude") {
		t.Errorf("--user --git-exclude: exit %d, stderr %q; want a usage error", code, stderr)
	}
}
