package main

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCommand: hall check exits 3 when the work would collide and
// names whom with, 0 when it would not, 1 when the Hall refuses, and
// writes nothing.
func TestCheckCommand(t *testing.T) {
	m := MustOpenHall(t, Config{})
	const wt = "/srv/shop/wt-1"
	if code, _, stderr := runCLI(t, "", "beat", "--hall", m.URL(), "--agent-id", "codex-2", "--brain", "/srv/shop", "--caller-root", wt, "--worktree", wt, "--intent", "edit the cart", "--theme", "cart"); code != 0 {
		t.Fatalf("beat: exit %d: %s", code, stderr)
	}
	files := dirFiles(t, m.Config.RegistryRoot)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--paths", "src/cart.go"}, 3, `would collide: "codex-2"`},
		{[]string{"src/cart.go", "src/sum.go"}, 3, "same_worktree"},
		{[]string{"--read-only", "--paths", "src/cart.go"}, 0, "no collision"},
		{[]string{"--agent-id", "codex-2", "--paths", "src/cart.go"}, 0, "no collision"},
		{[]string{"--agent-id", "a\x07b"}, 1, ""},
	} {
		args := append([]string{"check", "--hall", m.URL(), "--brain", "/srv/shop", "--caller-root", wt, "--worktree", wt}, tc.args...)
		code, stdout, stderr := runCLI(t, "", args...)
		if code != tc.code || !strings.Contains(stdout, tc.want) {
			t.Errorf("hall check %q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
	if after := dirFiles(t, m.Config.RegistryRoot); strings.Join(after, "\n") != strings.Join(files, "\n") {
		t.Errorf("the registry went from %v to %v under checks", files, after)
	}
}

// dirFiles lists every file under dir with its size and time.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d %s", p, info.Size(), info.ModTime()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
