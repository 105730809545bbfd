package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/recovery"
)

// TestRestoreCommand runs hall restore end to end over a real store and
// a real repository: a snapshot taken, git reset --hard and git clean
// run, --list names it, --diff shows the files missing or changed, a
// restore over newer work is refused with nothing written, --force and
// --to write the snapshot's bytes.
func TestRestoreCommand(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	wt := filepath.Join(t.TempDir(), "repo")
	git := func(args ...string) {
		t.Helper()
		full := append([]string{"-C", wt, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgSign=false"}, args...)
		if out, err := exec.Command("git", full...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if out, err := exec.Command("git", "init", "-q", wt).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	writeFile := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(wt, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("a.txt", "committed\n")
	git("add", "-A")
	git("commit", "-q", "-m", "init")
	writeFile("a.txt", "mine\n")
	writeFile("new.txt", "untracked\n")
	runner, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := recovery.Open(ctx, filepath.Join(root, recoveryDir), runner, recovery.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Agent: "codex", Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Tool: "Bash", Command: "git reset --hard"}})
	if err != nil {
		t.Fatal(err)
	}
	git("reset", "-q", "--hard")
	git("clean", "-q", "-fd")
	hall := func(wantCode int, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(ctx, append([]string{"restore", "--registry-root", root}, args...), nil, &out, &errb); code != wantCode {
			t.Fatalf("hall restore %v: exit %d, want %d\n%s%s", args, code, wantCode, out.String(), errb.String())
		}
		return out.String() + errb.String()
	}
	var listed struct {
		Snapshots []recovery.Snapshot `json:"snapshots"`
		LeftOut   int                 `json:"left_out"`
	}
	if err := json.Unmarshal([]byte(hall(0, "--list", "--json", "--agent", "codex")), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Snapshots) != 1 || listed.Snapshots[0].ID != snap.ID || len(listed.Snapshots[0].Files) != 2 {
		t.Fatalf("listed %+v", listed)
	}
	if out := hall(0, "--list", "--agent", "claude-code"); out != "" {
		t.Errorf("another agent's list: %q", out)
	}
	if out := hall(0, "--list", "--worktree", wt); !strings.Contains(out, "shell: git reset --hard") || !strings.Contains(out, "new.txt") {
		t.Errorf("list: %q", out)
	}
	if out := hall(0, snap.ID, "--diff"); !strings.Contains(out, "changed  a.txt") || !strings.Contains(out, "missing  new.txt") {
		t.Errorf("diff: %q", out)
	}
	writeFile("a.txt", "newer work\n")
	if out := hall(1, snap.ID); !strings.Contains(out, "a.txt") {
		t.Errorf("refusal: %q", out)
	}
	if _, err := os.Lstat(filepath.Join(wt, "new.txt")); !os.IsNotExist(err) {
		t.Error("a refused restore wrote new.txt")
	}
	to := t.TempDir()
	hall(0, snap.ID, "a.txt", "--to", to)
	if b, _ := os.ReadFile(filepath.Join(to, "a.txt")); string(b) != "mine\n" {
		t.Errorf("--to a.txt: %q", b)
	}
	hall(0, snap.ID, "--force")
	for name, want := range map[string]string{"a.txt": "mine\n", "new.txt": "untracked\n"} {
		if b, _ := os.ReadFile(filepath.Join(wt, name)); string(b) != want {
			t.Errorf("%s: %q, want %q", name, b, want)
		}
	}
	hall(1, "0000000000000")
	hall(2, "--diff")

	// The one door (hall.Hall's Snapshots and SnapshotFiles): their
	// bounds hold here too, and --json prints their wire types.
	if out := hall(2, "--list", "--limit", "501"); !strings.Contains(out, "limit 501") {
		t.Errorf("--limit past the bound: %q", out)
	}
	if out := hall(2, snap.ID, "--diff", filepath.Join(wt, "a.txt")); !strings.Contains(out, "want a path relative to the worktree") {
		t.Errorf("--diff of an absolute path: %q", out)
	}
	var list contract.SnapshotList
	if err := json.Unmarshal([]byte(hall(0, "--list", "--json")), &list); err != nil || !list.Kept || len(list.Snapshots) != 1 || list.Losses == nil {
		t.Errorf("--list --json: %+v (%v), want the kept snapshot and no losses", list, err)
	}
	var diff contract.SnapshotDiff
	if err := json.Unmarshal([]byte(hall(0, snap.ID, "--diff", "--json")), &diff); err != nil || diff.Snapshot.ID != snap.ID || len(diff.Files) != 2 {
		t.Errorf("--diff --json: %+v (%v), want the snapshot and its two files", diff, err)
	}
}
