package hookinstall

import (
	"io/fs"
	"path/filepath"
	"testing"
	"time"
)

func TestInstalled(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		want bool
	}{
		{".claude/settings.local.json", true},
		{".claude/settings.json", true},
		{".codex/hooks.json", true},
		{".cursor/hooks.json", true},
		{".gemini/settings.json", true},
		{".codex/hooks.json.hall-backup-20251130T080000Z", true},
		{".gemini/settings.json.hall-backup-20251130T080000Z-2", true},
		{".codex/config.toml", false},
		{".codex", false},
		{"sub/.codex/hooks.json", false}, // the installer writes at a worktree's root only
		{"src/checkout/cart.go", false},
		{"src/cart.go.hall-backup-20251130T080000Z", false},
		{"", false},
	} {
		if got := Installed(tc.rel); got != tc.want {
			t.Errorf("Installed(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}

// TestInstalledKnowsWhatInstallWrites holds the list to the installer: a
// project install of every agent, both of Claude Code's files, then a
// second install with another URL (a backup beside each file) and an
// uninstall, and every file left or made in the project is one Installed
// names.
func TestInstalledKnowsWhatInstallWrites(t *testing.T) {
	root := t.TempDir()
	now := time.Unix(1764489600, 0)
	for _, agent := range Agents() {
		for _, shared := range []bool{false, true} {
			file, err := ConfigFile(agent, root, false, "", shared)
			if err != nil {
				t.Fatal(err)
			}
			for _, url := range []string{"", "http://127.0.0.1:7999"} {
				res, err := Install(Options{Agent: agent, File: file, HallURL: url, Given: Given{HallURL: url != ""}})
				if err != nil {
					t.Fatalf("%s: %v", agent, err)
				}
				if _, err := Write(res, now); err != nil {
					t.Fatalf("%s: %v", agent, err)
				}
			}
		}
	}
	var seen int
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		seen++
		if !Installed(filepath.ToSlash(rel)) {
			t.Errorf("the installer wrote %s, which Installed does not name", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(ProjectFiles()); seen != want { // each file and one backup
		t.Errorf("%d files in the project, want %d (each of %v and a backup)", seen, want, ProjectFiles())
	}
}
