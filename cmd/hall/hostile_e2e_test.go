package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hooktest"
)

// TestHostileRepositoryEndToEnd (issue 40 item 1): a repository owned by
// the Hall's user whose configuration and attributes name commands
// (fsmonitor, hooks, filters, a merge driver, diff drivers, helpers:
// gittest.Hostile) goes through every git the Hall runs: beats into a
// real Hall (the scanner's git status, its snapshots and the merge
// prediction of two worktrees that overlap), a destructive command's
// snapshot, hall restore and hall hooks install. None of the commands
// runs, and the answers are right: the overlap is a conflict by git, the
// destroyed file comes back with its bytes.
func TestHostileRepositoryEndToEnd(t *testing.T) {
	m := MustOpenHall(t, Config{GitInterval: 10 * time.Millisecond, Snapshots: true, SnapshotBudget: hall.HookDeadline})
	set := schematest.FromHall(t, m.URL(), schematest.Strict)
	repo := hooktest.GitRepo(t)
	cartA := filepath.Join(repo.Main, "src", "checkout", "cart.go")
	cartB := filepath.Join(repo.Worktree, "src", "checkout", "cart.go")
	bWork := "package checkout\n\n// B's total\n"
	gittest.WriteFile(t, cartA, "package checkout\n\n// A's total\n")
	gittest.WriteFile(t, cartB, bWork)
	s := gittest.Hostile(t, repo.Main)

	// The reproduction: one beat naming the worktree.
	beat := fmt.Sprintf(`{"agent_id":"x","brain":%q,"worktree":%q,"tool":"Edit"}`, repo.Main, repo.Main)
	if r := postBeat(t, m.URL(), beat, nil); r.status/100 != 2 {
		t.Fatalf("beat: %d %s", r.status, r.body)
	}
	call := hookPaths[2].call
	call(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Main, ""), "warn")
	call(t, m, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Worktree, hooktest.SessionB), "warn")
	eventually.True(t, overlapWithin, "the overlaps listed as git's conflict", func() bool {
		r := rosterOverlaps(t, set, m)
		for _, o := range r.Overlaps {
			if o.Merge != contract.MergeConflict || strings.Join(o.Conflicts, ",") != "src/checkout/cart.go" {
				return false
			}
		}
		return len(r.Overlaps) > 0
	})
	gittest.NoneRan(t, s, "the scanner (git status, snapshots, merge-tree)")

	// B's destructive command is snapshot first.
	pre, _ := told(t, "claude", call(t, m, "claude", shellHook("claude", hooktest.SessionB, repo.Worktree, "git checkout ."), "warn"))
	if !strings.Contains(pre, "The Hall saved snapshot ") {
		t.Fatalf("B's `git checkout .`: %q; want the snapshot named", pre)
	}
	gittest.NoneRan(t, s, "a destructive command's snapshot")
	list, err := m.App.Snapshots(t.Context(), "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, snap := range list.Snapshots {
		if snap.Worktree == repo.Worktree && snap.Trigger.Kind == "shell" {
			id = snap.ID
		}
	}
	if id == "" {
		b, _ := json.Marshal(list)
		t.Fatalf("no shell snapshot of %s: %s", repo.Worktree, b)
	}

	// The work is lost (without git: the test's own git would run the
	// repository's commands) and restored.
	if err := os.WriteFile(cartB, []byte("package checkout\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errb := runCLI(t, "", "restore", "--registry-root", m.Config.RegistryRoot, "--force", id, "src/checkout/cart.go"); code != 0 {
		t.Fatalf("hall restore %s: exit %d\n%s%s", id, code, out, errb)
	}
	if got, _ := os.ReadFile(cartB); string(got) != bWork {
		t.Errorf("cart.go restored as %q, want %q", got, bWork)
	}
	gittest.NoneRan(t, s, "hall restore")

	if code, out, errb := runCLI(t, "", "hooks", "install", "codex", "--project", repo.Worktree); code != 0 {
		t.Fatalf("hall hooks install: exit %d\n%s%s", code, out, errb)
	}
	gittest.NoneRan(t, s, "hall hooks install")
}
