package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

	code, stdout, stderr := runCLI(t, "", "hooks", "install", "claude", "--project", dir, "--dry-run")
	if code != 0 || !strings.Contains(stdout, "+ PreToolUse: hall beat --hook claude") || !strings.Contains(stdout, "dry run") {
		t.Fatalf("dry run: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(file); string(b) != orig {
		t.Fatalf("dry run wrote the file")
	}

	code, stdout, _ = runCLI(t, "", "hooks", "install", "claude", "--project", dir, "--on-collision", "ask")
	if code != 0 || !strings.Contains(stdout, "backup: "+file+".hall-backup-") || !strings.Contains(stdout, "written") {
		t.Fatalf("install: exit %d\n%s", code, stdout)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), `"say done"`) || !strings.Contains(string(b), `"model": "opus"`) || !strings.Contains(string(b), "hall beat --hook claude --on-collision ask") {
		t.Errorf("installed file:\n%s", b)
	}

	code, stdout, _ = runCLI(t, "", "hooks", "install", "claude", "--project", dir, "--on-collision", "ask")
	if code != 0 || !strings.Contains(stdout, "unchanged") || strings.Contains(stdout, "+ ") {
		t.Errorf("second install: exit %d\n%s", code, stdout)
	}

	code, stdout, _ = runCLI(t, "", "hooks", "uninstall", "claude", "--project", dir)
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
		{"hooks", "install", "gemini", "--project", dir},
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
		{"beat", "--hook=gemini"},
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
