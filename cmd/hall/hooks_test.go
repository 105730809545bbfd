package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/hookinstall"
	"github.com/hall-dev/hall/internal/hooktest"
)

// TestHooksInstallCommand: install into a project with foreign settings,
// a dry run writes nothing, a second run says unchanged, uninstall gives
// the file back.
func TestHooksInstallCommand(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no hall-hook here: the hooks run hall
	dir := t.TempDir()
	file := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}`
	if err := os.WriteFile(file, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := runCLI(t, "", "hooks", "install", "claude", "--project", dir, "--shared", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "+ PreToolUse: hall beat --hook claude") || !strings.Contains(stdout, "dry run") {
		t.Fatalf("dry run: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(file); string(b) != orig {
		t.Fatalf("dry run wrote the file")
	}

	code, stdout, _ = runCLI(t, "", "hooks", "install", "claude", "--project", dir, "--shared", "--on-collision", "ask")
	if code != 0 || !strings.Contains(stdout, "backup: "+file+".hall-backup-") || !strings.Contains(stdout, "written") {
		t.Fatalf("install: exit %d\n%s", code, stdout)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), `"say done"`) || !strings.Contains(string(b), `{"model":"opus",`) || !strings.Contains(string(b), "hall beat --hook claude --on-collision ask") {
		t.Errorf("installed file:\n%s", b)
	}

	code, stdout, _ = runCLI(t, "", "hooks", "install", "claude", "--project", dir, "--shared", "--on-collision", "ask")
	if code != 0 || !strings.Contains(stdout, "unchanged") || strings.Contains(stdout, "+ ") {
		t.Errorf("second install: exit %d\n%s", code, stdout)
	}

	code, stdout, _ = runCLI(t, "", "hooks", "uninstall", "claude", "--project", dir, "--shared")
	if code != 0 || !strings.Contains(stdout, "- PreToolUse") {
		t.Errorf("uninstall: exit %d\n%s", code, stdout)
	}
	b, _ = os.ReadFile(file)
	if strings.Contains(string(b), "beat --hook") || !strings.Contains(string(b), "say done") {
		t.Errorf("after uninstall:\n%s", b)
	}

	for _, args := range [][]string{
		{"hooks"},
		{"hooks", "install"},
		{"hooks", "install", "aider", "--project", dir},
		{"hooks", "install", "claude", "--user", "--shared"},
		{"hooks", "install", "claude", "--project", dir, "--user"},
		{"hooks", "remove", "claude"},
	} {
		if code, _, _ := runCLI(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestHookModeAlwaysExitsZero: in hook mode no mistake ends in a non-zero
// exit (Claude Code reads exit 2 as "block the tool call"), nor writes on
// stdout: a warning on stderr, and the agent carries on.
func TestHookModeAlwaysExitsZero(t *testing.T) {
	payload := fixture(t, "pre-tool-use-write.json")
	for _, args := range [][]string{
		{"beat", "--hook", "claude", "--no-such-flag"},
		{"beat", "--hook=aider"},
		{"beat", "--hook", "claude", "--on-collision", "deny"},
		{"beat", "--hook", "cursor", "--hall", "http://127.0.0.1:1"}, // a Claude payload to the Cursor adapter, no Hall
		{"leave", "--hook", "codex", "--timeout", "nonsense"},
	} {
		code, stdout, stderr := runCLI(t, payload, args...)
		if code != 0 || stdout != "" || !strings.Contains(stderr, "warning") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0, no stdout, a warning", args, code, stdout, stderr)
		}
	}
}

// TestHooksInstallPicksTheLeanHook: with hall-hook on PATH the command
// hooks run it; --command hall still wires hall beat --hook; without it
// the summary says the lean hook exists.
func TestHooksInstallPicksTheLeanHook(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "hall-hook"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	code, stdout, _ := runCLI(t, "", "hooks", "install", "codex", "--project", dir)
	if code != 0 || !strings.Contains(stdout, "+ PreToolUse: hall-hook codex") || strings.Contains(stdout, "lean") {
		t.Fatalf("install with hall-hook on PATH: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, "", "hooks", "install", "codex", "--project", dir, "--command", "hall")
	if code != 0 || !strings.Contains(stdout, "~ PreToolUse: hall beat --hook codex") || !strings.Contains(stdout, "the lean hall-hook") {
		t.Fatalf("install --command hall: exit %d\n%s", code, stdout)
	}
}

// TestHooksHelp: -h after install (or after the agent) is help, not an
// agent named "-h".
func TestHooksHelp(t *testing.T) {
	for _, args := range [][]string{
		{"hooks", "-h"},
		{"hooks", "install", "-h"},
		{"hooks", "uninstall", "--help"},
		{"hooks", "install", "gemini", "-h"},
	} {
		code, stdout, stderr := runCLI(t, "", args...)
		if code != 0 || !strings.Contains(stdout, "usage: hall hooks install|uninstall") || strings.Contains(stderr, "unknown agent") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want the usage", args, code, stdout, stderr)
		}
	}
}

// TestHooksInstallFindsTheProject: from a subfolder of a git worktree the
// project install lands at the worktree's root, in Claude Code's personal
// file; the shared one only on request; nothing in the subfolder.
func TestHooksInstallFindsTheProject(t *testing.T) {
	t.Setenv("PATH", t.TempDir()+string(os.PathListSeparator)+os.Getenv("PATH")) // git stays reachable
	t.Setenv("HOME", t.TempDir())
	repo := hooktest.GitRepo(t)
	sub := filepath.Join(repo.Worktree, "src", "checkout")
	t.Chdir(sub)
	code, stdout, stderr := runCLI(t, "", "hooks", "install", "claude")
	personal := filepath.Join(repo.Worktree, ".claude", "settings.local.json")
	if code != 0 || !strings.Contains(stdout, personal) {
		t.Fatalf("install from a subfolder: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(personal); err != nil {
		t.Errorf("the personal file at the root: %v", err)
	}
	if !strings.Contains(stdout, "add it to .gitignore") {
		t.Errorf("no note that git would commit the personal file:\n%s", stdout)
	}
	for _, f := range []string{filepath.Join(sub, ".claude"), filepath.Join(repo.Worktree, ".claude", "settings.json")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s exists (%v): want only the root's personal file", f, err)
		}
	}
	code, stdout, _ = runCLI(t, "", "hooks", "install", "claude", "--shared")
	if code != 0 || !strings.Contains(stdout, filepath.Join(repo.Worktree, ".claude", "settings.json")) {
		t.Errorf("--shared: exit %d\n%s", code, stdout)
	}
	// Both project files now hold the Hall's hooks: every event would beat
	// twice, and the summary says so.
	if !strings.Contains(stdout, "warning: "+personal+" has the Hall's hooks too") {
		t.Errorf("no warning about the other file:\n%s", stdout)
	}
}

// TestHooksInstallWarnsOfTheOtherScope: a project install while the
// user's file has the Hall's hooks (and back) warns that every event would
// beat twice.
func TestHooksInstallWarnsOfTheOtherScope(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	if code, stdout, _ := runCLI(t, "", "hooks", "install", "gemini", "--user"); code != 0 || strings.Contains(stdout, "warning") {
		t.Fatalf("user install: exit %d\n%s", code, stdout)
	}
	code, stdout, _ := runCLI(t, "", "hooks", "install", "gemini", "--project", dir)
	if code != 0 || !strings.Contains(stdout, "warning: "+filepath.Join(home, ".gemini", "settings.json")+" has the Hall's hooks too") {
		t.Errorf("project install beside a user install: exit %d\n%s", code, stdout)
	}
	if !strings.Contains(stdout, "untrusted") {
		t.Errorf("no trust step for Gemini CLI:\n%s", stdout)
	}
}

// TestHooksInstallKeepsFlags: a second install without flags keeps the
// --hall and --on-collision the installed hooks carry; given again, they
// change.
func TestHooksInstallKeepsFlags(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	file := filepath.Join(dir, ".codex", "hooks.json")
	runCLI(t, "", "hooks", "install", "codex", "--project", dir, "--hall", "http://127.0.0.1:9999", "--on-collision", "ask")
	code, stdout, _ := runCLI(t, "", "hooks", "install", "codex", "--project", dir)
	b, _ := os.ReadFile(file)
	if code != 0 || !strings.Contains(stdout, "unchanged") || !strings.Contains(stdout, "kept from the installed hooks: --hall http://127.0.0.1:9999 --on-collision ask") ||
		!strings.Contains(string(b), "hall beat --hook codex --hall http://127.0.0.1:9999 --on-collision ask") {
		t.Errorf("second install without flags: exit %d\n%s\n%s", code, stdout, b)
	}
	runCLI(t, "", "hooks", "install", "codex", "--project", dir, "--on-collision", "warn")
	if b, _ := os.ReadFile(file); strings.Contains(string(b), "--on-collision") || !strings.Contains(string(b), "--hall http://127.0.0.1:9999") {
		t.Errorf("--on-collision warn given again:\n%s", b)
	}
}

// TestHooksInstallThenUninstallLeavesNothing: on a fresh project, install
// then uninstall leaves no file, no backup, no folder.
func TestHooksInstallThenUninstallLeavesNothing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, agent := range hookinstall.Agents() {
		dir := t.TempDir()
		if code, stdout, stderr := runCLI(t, "", "hooks", "install", agent, "--project", dir); code != 0 {
			t.Fatalf("%s install: exit %d\n%s%s", agent, code, stdout, stderr)
		}
		if code, stdout, stderr := runCLI(t, "", "hooks", "uninstall", agent, "--project", dir); code != 0 || !strings.Contains(stdout, "removed") {
			t.Fatalf("%s uninstall: exit %d\n%s%s", agent, code, stdout, stderr)
		}
		var left []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if p != dir {
				left = append(left, p)
			}
			return nil
		})
		if len(left) != 0 {
			t.Errorf("%s: install then uninstall left %q", agent, left)
		}
	}
}

// TestHooksInstallRefusesALinkWithoutForce: a committed .codex/hooks.json
// that is a symbolic link to another program's JSON is refused (exit 1,
// the link and its target as they were, the reason and --force named);
// --dry-run says it would be refused; --force writes a regular file in
// its place and names the link's backup. A --command other than hall or
// hall-hook is a usage error (exit 2).
func TestHooksInstallRefusesALinkWithoutForce(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte("{\"theme\":\"dark\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(project, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(project, ".codex", "hooks.json")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "hooks", "install", "codex", "--project", project, "--command", "hall")
	if code != 1 || !strings.Contains(stderr, "symbolic link") || !strings.Contains(stderr, "--force") {
		t.Errorf("install over a link: exit %d, stderr %q; want 1 naming the link and --force", code, stderr)
	}
	code, stdout, _ := runCLI(t, "", "hooks", "install", "codex", "--project", project, "--command", "hall", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "refused without --force") {
		t.Errorf("--dry-run over a link: exit %d\n%s", code, stdout)
	}
	if b, _ := os.ReadFile(other); string(b) != "{\"theme\":\"dark\"}\n" {
		t.Fatalf("the link's target was written: %s", b)
	}
	code, stdout, stderr = runCLI(t, "", "hooks", "install", "codex", "--project", project, "--command", "hall", "--force")
	if code != 0 || !strings.Contains(stdout, "backup: "+link+".hall-backup-") {
		t.Fatalf("install --force: exit %d\n%s%s", code, stdout, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("after --force %s is no regular file: %v", link, err)
	}
	if b, _ := os.ReadFile(other); string(b) != "{\"theme\":\"dark\"}\n" {
		t.Errorf("--force wrote the link's target: %s", b)
	}
	if code, _, stderr := runCLI(t, "", "hooks", "install", "codex", "--project", project, "--command", "/usr/bin/audit-tool"); code != 2 || !strings.Contains(stderr, "want hall or hall-hook") {
		t.Errorf("--command audit-tool: exit %d, %q; want 2", code, stderr)
	}
}
