package main

import (
	"bytes"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/recovery"
)

// nobody is the uid (and gid) the foreign repository is given to.
const nobody = 65534

// TestGitRunsOnlyInItsOwnUsersWorktrees (issue 40 item 7): another local
// user beats naming a private (0700) repository of a third user. The
// Hall, which reads as its own user, runs no git there (a --git wrapper
// logs where every git runs): no changed files come back, a destructive
// command's snapshot is refused and the answer says why, and the scanner's
// answer for it is worktree_not_owned; the Hall's own user's worktree is
// scanned as before. The owner is compared with os.Geteuid(): here the
// Hall runs as root, so its own worktrees are root's and the foreign one
// is given to nobody.
func TestGitRunsOnlyInItsOwnUsersWorktrees(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a repository to another user (chown) needs root")
	}
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	where := filepath.Join(bin, "where.log")
	wrapper := filepath.Join(bin, "git")
	// The wrapper logs every git's arguments: its -C names where it runs.
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\necho \"$*\" >> "+where+"\nexec "+realGit+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := MustOpenHall(t, Config{Git: wrapper, Snapshots: true, SnapshotBudget: hall.HookDeadline})

	foreign := hooktest.GitRepo(t)
	top := filepath.Dir(foreign.Main)
	gittest.WriteFile(t, filepath.Join(foreign.Worktree, "src", "secret-plan.go"), "package secret\n")
	giveAway(t, top)
	own := hooktest.GitRepo(t)
	gittest.WriteFile(t, filepath.Join(own.Worktree, "src", "mine.go"), "package mine\n")

	beat := func(agent, wt string) {
		t.Helper()
		body := `{"agent_id":"` + agent + `","brain":"` + wt + `","worktree":"` + wt + `","tool":"Edit"}`
		resp, err := http.Post(m.URL()+"/api/presences/beat", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("beat %s: %d", agent, resp.StatusCode)
		}
	}
	for range 2 {
		beat("nosy", foreign.Worktree)
		beat("mine", own.Worktree)
	}
	eventually.True(t, 30*time.Second, "the scanner answers for both worktrees", func() bool {
		f, fok := m.GitScan.Result(foreign.Worktree)
		o, ook := m.GitScan.Result(own.Worktree)
		return fok && ook && f.Err != nil && o.Err == nil
	})
	if f, _ := m.GitScan.Result(foreign.Worktree); gitscan.CodeOf(f.Err) != gitscan.NotOwned || len(f.Changes.Files) > 0 {
		t.Errorf("the foreign worktree's answer: %v, files %v; want %s and none", f.Err, f.Changes.Files, gitscan.NotOwned)
	}
	if o, _ := m.GitScan.Result(own.Worktree); !strings.Contains(strings.Join(o.Changes.Files, " "), "src/mine.go") {
		t.Errorf("the Hall's own worktree: %v; want src/mine.go listed", o.Changes.Files)
	}
	var roster struct {
		Presences []struct {
			AgentID string   `json:"agent_id"`
			Changed []string `json:"changed"`
		} `json:"presences"`
	}
	getJSON(t, m.URL()+"/api/presences", &roster)
	for _, p := range roster.Presences {
		if p.AgentID == "nosy" && len(p.Changed) > 0 {
			t.Errorf("the foreign worktree's changed files came back: %v", p.Changed)
		}
	}

	// A destructive command there: the snapshot is refused, and said so.
	edit := hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", foreign.Worktree, "")
	postHook(t, m, edit)
	answer := postHook(t, m, shellHook("claude", "b1b2b3b4-0000-4000-8000-000000000000", foreign.Worktree, "git checkout ."))
	if bytes.Contains(answer, []byte("saved snapshot")) {
		t.Errorf("the Hall snapshot another user's worktree: %s", answer)
	}
	if !bytes.Contains(answer, []byte("another user owns it")) {
		t.Errorf("the answer does not say why nothing was saved: %s", answer)
	}

	// A snapshot taken while the worktree was the Hall's user's, then
	// given to another user: its comparison with the worktree is refused.
	given := hooktest.GitRepo(t)
	snap, err := m.App.Recovery.Save(t.Context(), recovery.SaveRequest{Worktree: given.Worktree, Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Command: "git checkout ."}})
	if err != nil {
		t.Fatal(err)
	}
	giveAway(t, filepath.Dir(given.Main))
	var refused struct{ Error string }
	if code := getJSON(t, m.URL()+"/api/snapshots/"+snap.ID+"?path=src/checkout/cart.go", &refused); code != http.StatusForbidden || refused.Error != "worktree_not_owned" {
		t.Errorf("compare another user's worktree: %d %q; want 403 worktree_not_owned", code, refused.Error)
	}

	// Every git the Hall runs names its directory (-C DIR): none names
	// the foreign repository.
	log, _ := os.ReadFile(where)
	for _, run := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if strings.Contains(run, top) {
			t.Errorf("git ran in the foreign worktree: git %s", run)
		}
	}
	if !strings.Contains(string(log), own.Worktree) {
		t.Errorf("git never ran in the Hall's own worktree:\n%s", log)
	}
}

// giveAway gives the tree at top to nobody, private (0700).
func giveAway(t *testing.T, top string) {
	t.Helper()
	if err := filepath.WalkDir(top, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(top, 0o700); err != nil {
		t.Fatal(err)
	}
}

// postHook posts a Claude Code hook payload to the real Hall's HTTP hook.
func postHook(t *testing.T, m *Main, payload string) []byte {
	t.Helper()
	resp, err := http.Post(m.URL()+"/api/hooks/claude", "application/json", strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
