package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hookinstall"
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

// TestHooksInstallCodexLinkedWorktree: Codex runs a linked worktree's
// hooks from the main worktree's .codex/hooks.json, and only with the
// linked one's beside it (docs/hooks.md): a project install in a linked
// worktree writes both and says why; in the main worktree, or for an
// agent that reads its own worktree's file, one; a dry run writes
// neither; an uninstall in the linked worktree takes its file out and
// says the main one's stays.
func TestHooksInstallCodexLinkedWorktree(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	repo := hooktest.GitRepo(t)
	linked, mainFile := filepath.Join(repo.Worktree, ".codex", "hooks.json"), filepath.Join(repo.Main, ".codex", "hooks.json")
	has := func(file string) bool {
		ok, err := hookinstall.HasHall("codex", file)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return ok
	}
	run := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return stdout
	}

	out := run("hooks", "install", "codex", "--project", repo.Worktree, "--dry-run")
	if !strings.Contains(out, "hall hooks install codex: "+mainFile) || has(linked) || has(mainFile) {
		t.Fatalf("dry run: %s; want both files shown, neither written", out)
	}
	out = run("hooks", "install", "codex", "--project", repo.Worktree)
	if !has(linked) || !has(mainFile) {
		t.Fatalf("install in the linked worktree: linked %v, main %v; want both\n%s", has(linked), has(mainFile), out)
	}
	if !strings.Contains(out, "hall hooks install codex: "+mainFile+"\n  (the main worktree's: Codex CLI runs its hooks for a session in this linked worktree") {
		t.Errorf("the summary does not say why the main worktree's file: %s", out)
	}
	if out := run("hooks", "install", "codex", "--project", repo.Worktree); strings.Count(out, "unchanged: nothing to write") != 2 {
		t.Errorf("a second install: %s; want both unchanged", out)
	}
	if out := run("hooks", "install", "codex", "--project", repo.Main); strings.Count(out, "hall hooks install codex: ") != 1 {
		t.Errorf("install in the main worktree: %s; want its file alone", out)
	}
	if out := run("hooks", "install", "cursor", "--project", repo.Worktree); strings.Count(out, "hall hooks install cursor: ") != 1 {
		t.Errorf("Cursor in the linked worktree: %s; want its file alone", out)
	}
	out = run("hooks", "uninstall", "codex", "--project", repo.Worktree)
	if has(linked) || !has(mainFile) || !strings.Contains(out, "note: the main worktree's "+mainFile+" keeps the Hall's hooks") {
		t.Errorf("uninstall in the linked worktree: linked %v, main %v; want the linked one's out, the main one's kept and said\n%s", has(linked), has(mainFile), out)
	}
}
