package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/contracttest"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
	"github.com/hall-dev/hall/internal/recovery"
)

// TestSnapshotsTool: over a real store and repository, the snapshots tool
// lists what was saved (newest first, at most 3, the rest counted), and,
// given an id, how its files compare with the worktree now and the
// command that restores them; a Hall that keeps none says so; an unknown
// id is a tool error. Every answer stays within the budget.
func TestSnapshotsTool(t *testing.T) {
	h := newLocalHall(t)
	none := connect(t, Config{Client: h.client()}, mcptest.Client{})
	if txt := mcptest.Text(t, mcptest.Call(t, none, "snapshots", nil)); !strings.Contains(txt, "keeps no snapshots") {
		t.Errorf("a Hall without a store: %q", txt)
	}

	wt := filepath.Join(gittest.TempDir(t), "repo")
	gittest.Init(t, wt)
	gittest.WriteFile(t, filepath.Join(wt, "a.txt"), "committed\n")
	gittest.CommitAll(t, wt, "init")
	gittest.WriteFile(t, filepath.Join(wt, "a.txt"), "mine\n")
	for i := range 7 {
		gittest.WriteFile(t, filepath.Join(wt, fmt.Sprintf("new%d.txt", i)), "new\n")
	}
	run, err := gitscan.NewRunner(context.Background(), gitscan.RunnerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := recovery.Open(context.Background(), filepath.Join(t.TempDir(), "recovery"), run, recovery.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var last recovery.Snapshot
	for range 6 {
		last, err = store.Save(context.Background(), recovery.SaveRequest{Worktree: wt, Presence: "claude-1", Agent: "claude-code",
			Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Tool: "Bash", Command: "git checkout ."}})
		if err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, Config{Client: &hall.Hall{Service: h.svc, Recovery: store}}, mcptest.Client{})
	res := mcptest.Call(t, cs, "snapshots", nil)
	var out SnapshotsOut
	mcptest.Structured(t, res, &out)
	if !out.Kept || len(out.Snapshots) != 3 || out.SnapshotsMore != 3 || out.Snapshots[0].ID != last.ID {
		t.Fatalf("list: %+v", out)
	}
	if s := out.Snapshots[0]; s.Command != "git checkout ." || s.By != "claude-1" || len(s.Files) != 3 || s.FilesMore != 5 {
		t.Errorf("the newest: %+v", s)
	}
	if err := os.WriteFile(filepath.Join(wt, "a.txt"), []byte("changed since\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(wt, "new0.txt")); err != nil {
		t.Fatal(err)
	}
	res = mcptest.Call(t, cs, "snapshots", map[string]any{"snapshot_id": last.ID})
	mcptest.Structured(t, res, &out)
	txt := mcptest.Text(t, res)
	for _, want := range []string{`"a.txt": changed`, `"new0.txt": missing`, `"new1.txt": same as now`, "hall restore " + last.ID} {
		if !strings.Contains(txt, want) {
			t.Errorf("one snapshot: %q; want %q", txt, want)
		}
	}
	if got := tokens(txt); got > contract.CockpitBudgetTokens {
		t.Errorf("one snapshot: %d tokens", got)
	}
	if res := mcptest.Call(t, cs, "snapshots", map[string]any{"snapshot_id": "0000000000000"}); !res.IsError || !strings.Contains(mcptest.Text(t, res), "unknown_snapshot") {
		t.Errorf("an unknown id: %q", mcptest.Text(t, res))
	}
}

// TestSnapshotsBudget: the snapshots tool's answers stay within the
// budget in the worst case: every text field at its limit in the
// character JSON doubles, more snapshots, files and losses than shown.
func TestSnapshotsBudget(t *testing.T) {
	files := make([]recovery.File, recovery.MaxFiles)
	diffs := make([]recovery.FileDiff, 100)
	lost := make([]string, contract.MaxLossFiles)
	for i := range files {
		files[i] = recovery.File{Path: worstPath(fmt.Sprintf("f%03d", i), 1024)[1:], State: recovery.StateModified}
	}
	for i := range diffs {
		diffs[i] = recovery.FileDiff{Path: files[i].Path, State: recovery.DiffChanged}
	}
	for i := range lost {
		lost[i] = files[i].Path
	}
	snap := recovery.Snapshot{ID: "0mxcna8dy8769", Worktree: worstPath("wt", 1024), Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Command: worst(contract.MaxCommand)},
		Presence: worst(128), Files: files, FilesLeftOut: 10000}
	loss := contract.Loss{Snapshot: snap.ID, Worktree: snap.Worktree, By: worst(128), Command: worst(200), Owner: worst(128), Files: lost, FilesLeftOut: 900}
	loss.Restore = "hall restore " + snap.ID + " " + strings.Join(lost, " ")
	list := contract.SnapshotList{Kept: true, LeftOut: 1999, Snapshots: []recovery.Snapshot{snap, snap, snap, snap, snap, snap}, Losses: []contract.Loss{loss, loss, loss, loss}}
	for name, render := range map[string]func() (SnapshotsOut, string, error){
		"list": func() (SnapshotsOut, string, error) { return renderSnapshots(list) },
		"one snapshot": func() (SnapshotsOut, string, error) {
			return renderSnapshotFiles(contract.SnapshotDiff{Snapshot: snap, Files: diffs})
		},
	} {
		out, txt, err := render()
		if err != nil {
			t.Fatal(err)
		}
		js, err := encode(out)
		if err != nil {
			t.Fatal(err)
		}
		if tokens(txt) > contract.CockpitBudgetTokens || tokens(string(js)) > contract.CockpitBudgetTokens {
			t.Errorf("%s: text %d tokens, structured %d; budget %d", name, tokens(txt), tokens(string(js)), contract.CockpitBudgetTokens)
		}
		t.Logf("%s: text %d tokens, structured %d tokens", name, tokens(txt), tokens(string(js)))
	}
}

// TestSnapshotsTextReportsOthersText: a file name, a command, an agent
// and a worktree carrying an order reach the model only inside the
// reported block, in the snapshots tool's list and one snapshot's files,
// and in a check's answer (issue 40 item 12: the list named files
// unquoted, outside any block).
func TestSnapshotsTextReportsOthersText(t *testing.T) {
	evil := contracttest.Injection
	snap := recovery.Snapshot{ID: "0mxcna8dy8769", Worktree: "/w/" + evil, Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Command: "rm " + evil},
		Presence: "codex-" + evil, Files: []recovery.File{{Path: evil + ".txt", State: recovery.StateAdded}}}
	loss := contract.Loss{Snapshot: snap.ID, Worktree: snap.Worktree, By: "codex-" + evil, Command: "rm " + evil, Owner: "claude-" + evil, Files: []string{evil + ".txt"}}
	_, txt, _ := renderSnapshots(contract.SnapshotList{Kept: true, Snapshots: []recovery.Snapshot{snap}, Losses: []contract.Loss{loss}})
	contracttest.OnlyReported(t, "snapshots list", txt, contracttest.InjectionMark)
	_, txt, _ = renderSnapshotFiles(contract.SnapshotDiff{Snapshot: snap, Files: []recovery.FileDiff{{Path: evil + ".txt", State: recovery.DiffMissing}}})
	contracttest.OnlyReported(t, "one snapshot", txt, contracttest.InjectionMark)
	hit := contract.CheckHit{PresenceID: "prs_0123456789ab", AgentID: "codex-" + evil, Theme: evil, Paths: []string{"/w/" + evil}, Worktree: "/w/" + evil}
	contracttest.OnlyReported(t, "check", contract.CheckText(contract.CheckResponse{Collisions: []contract.CheckHit{hit}, Overlaps: []contract.CheckHit{hit}}, 3), contracttest.InjectionMark)
}
