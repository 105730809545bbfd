package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hookinstall"
	"github.com/hall-dev/hall/internal/hooktest"
)

// TestInstallerFilesAreNobodysWork (issue 33, row 4): `hall hooks install`
// for every agent in both worktrees of a real repository leaves its files
// untracked in each, and git lists them there. A (main worktree) and B
// (the linked one) both change cart.go; A's hooks also saw it edit
// .codex/hooks.json. The roster's overlap names cart.go alone, git's
// answers the Hall shows (the records' changed) hold none of the
// installer's files, and a third session's `git add -A` is warned of A's
// cart.go, never of the installer's files.
func TestInstallerFilesAreNobodysWork(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	m := MustOpenHall(t, Config{GitInterval: 10 * time.Millisecond})
	set := schematest.FromHall(t, m.URL(), schematest.Strict)
	repo := hooktest.GitRepo(t)
	for _, wt := range []string{repo.Main, repo.Worktree} {
		for _, agent := range hookinstall.Agents() {
			if code, out, errOut := runCLI(t, "", "hooks", "install", agent, "--project", wt, "--hall", m.URL()); code != 0 {
				t.Fatalf("hall hooks install %s --project %s: exit %d\n%s%s", agent, wt, code, out, errOut)
			}
		}
		// The control: git itself lists the installer's files, untracked.
		status := gittest.Git(t, wt, "status", "--porcelain", "--untracked-files=all")
		for _, f := range []string{".codex/hooks.json", ".gemini/settings.json", ".cursor/hooks.json", ".claude/settings.local.json"} {
			if !strings.Contains(status, "?? "+f) {
				t.Fatalf("git status in %s does not list %s untracked:\n%s", wt, f, status)
			}
		}
	}

	cartA := filepath.Join(repo.Main, "src", "checkout", "cart.go")
	cartB := filepath.Join(repo.Worktree, "src", "checkout", "cart.go")
	gittest.WriteFile(t, cartA, "package checkout\n\n// A's total\n")
	gittest.WriteFile(t, cartB, "package checkout\n\n// B's total\n")
	call := hookPaths[0].call
	a := func(name string) string { return hooktest.Moved(t, hooktest.ClaudeCode, name, repo.Main, "") }
	call(t, m, "claude", a("post-tool-use-edit.json"), "warn")
	call(t, m, "claude", strings.ReplaceAll(a("post-tool-use-edit.json"), "src/checkout/cart.go", ".codex/hooks.json"), "warn")
	call(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Worktree, hooktest.SessionB), "warn")

	eventually.True(t, overlapWithin, "one overlap, git's verdict on both sides", func() bool {
		r := rosterOverlaps(t, set, m)
		return len(r.Overlaps) == 1 && r.Overlaps[0].A.Git == "ok" && r.Overlaps[0].B.Git == "ok" && r.Overlaps[0].Merge != ""
	})
	r := rosterOverlaps(t, set, m)
	o := r.Overlaps[0]
	if len(o.Files) != 1 || o.Files[0].Path != "src/checkout/cart.go" || o.FilesTotal != 1 {
		t.Errorf("overlap files %+v (total %d), want src/checkout/cart.go alone", o.Files, o.FilesTotal)
	}
	if slices.ContainsFunc(o.Conflicts, hookinstall.Installed) {
		t.Errorf("conflicts %v name the installer's files", o.Conflicts)
	}
	for _, wt := range []string{repo.Main, repo.Worktree} {
		res, ok := m.GitScan.Result(wt)
		if !ok || slices.ContainsFunc(res.Changes.Files, hookinstall.Installed) || !slices.Contains(res.Changes.Files, "src/checkout/cart.go") {
			t.Errorf("the scanner's answer for %s (%v): %v, want cart.go and none of the installer's files", wt, ok, res.Changes.Files)
		}
	}
	var roster struct {
		Presences []struct {
			AgentID string   `json:"agent_id"`
			Changed []string `json:"changed"`
		} `json:"presences"`
	}
	if err := json.Unmarshal(getChecked(t, set, m.URL(), "/api/presences", "presences"), &roster); err != nil {
		t.Fatal(err)
	}
	for _, p := range roster.Presences {
		if slices.ContainsFunc(p.Changed, hookinstall.Installed) {
			t.Errorf("%s's changed %v names the installer's files", p.AgentID, p.Changed)
		}
	}

	// A third session in A's worktree: its start and its `git add -A` name
	// A's cart.go, never the installer's files A's hooks saw it edit.
	const sessionC = "c1c2c3c4-0000-4000-8000-000000000000"
	start, _ := told(t, "claude", call(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "session-start.json", repo.Main, sessionC), "warn"))
	guarded, _ := told(t, "claude", call(t, m, "claude", shellHook("claude", sessionC, repo.Main, "git add -A"), "warn"))
	for what, text := range map[string]string{"start": start, "git add -A": guarded} {
		if !strings.Contains(text, `"src/checkout/cart.go"`) {
			t.Errorf("C's %s reads %q; want A's cart.go named", what, text)
		}
		for _, f := range hookinstall.ProjectFiles() {
			if strings.Contains(text, f) {
				t.Errorf("C's %s reads %q; it names the installer's %s", what, text, f)
			}
		}
	}
}
