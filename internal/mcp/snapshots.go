package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/recovery"
)

// The snapshots tool's bounds: its answer stays within the budget.
const (
	snapshotsShown     = 3
	lossesShown        = 1
	snapshotFilesShown = 3
	diffFilesShown     = 10
)

// SnapshotsIn chooses what the snapshots tool answers: one snapshot's
// files against the worktree now (snapshot_id), or the list.
type SnapshotsIn struct {
	SnapshotID string   `json:"snapshot_id,omitempty" jsonschema:"one snapshot's id: how its files compare with the worktree now; default: the list"`
	Paths      []string `json:"paths,omitempty" jsonschema:"with snapshot_id: only these files, relative to the worktree (at most 100)"`
	Worktree   string   `json:"worktree,omitempty" jsonschema:"absolute path: only this worktree's snapshots; default: every worktree"`
	Agent      string   `json:"agent,omitempty" jsonschema:"only the snapshots taken for this agent id or agent kind"`
}

// SnapshotsOut is the list, shortened to the budget, or one snapshot's
// files.
type SnapshotsOut struct {
	Kept          bool            `json:"kept" jsonschema:"false when this Hall keeps no snapshots"`
	Snapshots     []SnapshotBrief `json:"snapshots,omitempty" jsonschema:"newest first, at most 3"`
	SnapshotsMore int             `json:"snapshots_more,omitempty" jsonschema:"snapshots left out"`
	Losses        []string        `json:"losses,omitempty" jsonschema:"work lost lately to a command the Hall snapshot first, and the command that restores it; the newest only"`
	LossesMore    int             `json:"losses_more,omitempty"`
	Files         []string        `json:"files,omitempty" jsonschema:"with snapshot_id: each file as path: same, changed or missing (in the worktree now); at most 10"`
	FilesMore     int             `json:"files_more,omitempty"`
	Restore       string          `json:"restore,omitempty" jsonschema:"with snapshot_id: the command that brings its files back (hall restore refuses a file changed since, unless --force)"`
}

// SnapshotBrief is one snapshot in a line's worth.
type SnapshotBrief struct {
	ID        string   `json:"id"`
	Taken     string   `json:"taken" jsonschema:"RFC 3339, UTC"`
	Trigger   string   `json:"trigger" jsonschema:"shell, write, scan or cli"`
	Command   string   `json:"command,omitempty" jsonschema:"the command it was taken before, clipped to 60 characters"`
	By        string   `json:"by,omitempty" jsonschema:"the agent id it was taken for"`
	Worktree  string   `json:"worktree" jsonschema:"its tail kept to 48 characters"`
	Files     []string `json:"files" jsonschema:"files differing from HEAD, at most 3"`
	FilesMore int      `json:"files_more,omitempty"`
}

func (s *server) addSnapshotsTool(srv *sdk.Server) {
	no := false
	addTool(s, srv, &sdk.Tool{
		Name:  "snapshots",
		Title: "What the Hall saved",
		Description: "The snapshots the Hall took of a worktree's uncommitted work before destructive commands (git checkout ., reset --hard, stash, clean, rm…), " +
			"and work lost lately with the command that restores it; or, with snapshot_id, how one snapshot's files compare with the worktree now. " +
			"Read-only: restoring is `hall restore ID [PATHS]` in a shell.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
	}, s.snapshots)
}

func (s *server) snapshots(ctx context.Context, req *sdk.CallToolRequest, in SnapshotsIn) (SnapshotsOut, string, error) {
	ctx = withSession(ctx, req) // rate-limited per session, as over HTTP per address
	if in.SnapshotID != "" {
		d, err := s.cfg.Client.SnapshotFiles(ctx, in.SnapshotID, in.Paths)
		if err != nil {
			return SnapshotsOut{}, "", err
		}
		return renderSnapshotFiles(d)
	}
	list, err := s.cfg.Client.Snapshots(ctx, in.Worktree, in.Agent, snapshotsShown)
	if err != nil {
		return SnapshotsOut{}, "", err
	}
	return renderSnapshots(list)
}

func renderSnapshots(list contract.SnapshotList) (SnapshotsOut, string, error) {
	out := SnapshotsOut{Kept: list.Kept, SnapshotsMore: list.LeftOut}
	if !list.Kept {
		return out, "This Hall keeps no snapshots (hall serve --snapshots=false).", nil
	}
	var b strings.Builder
	var reported []string
	for i, snap := range list.Snapshots {
		if i == snapshotsShown {
			out.SnapshotsMore += len(list.Snapshots) - i
			break
		}
		br := SnapshotBrief{ID: snap.ID, Taken: snap.Taken.UTC().Format("2006-01-02T15:04:05Z"), Trigger: snap.Trigger.Kind,
			Command: contract.Clip(snap.Trigger.Command, 60), By: contract.Clip(snap.Presence, 40), Worktree: contract.ClipPath(snap.Worktree, 48),
			FilesMore: snap.FilesLeftOut}
		for j, f := range snap.Files {
			if j == snapshotFilesShown {
				br.FilesMore += len(snap.Files) - j
				break
			}
			br.Files = append(br.Files, contract.ClipPath(f.Path, 48))
		}
		out.Snapshots = append(out.Snapshots, br)
		quoted := make([]string, len(br.Files))
		for j, f := range br.Files {
			quoted[j] = strconv.Quote(f)
		}
		line := fmt.Sprintf("%s %s %s %q by %q in %q: %s", br.ID, br.Taken, br.Trigger, br.Command, br.By, br.Worktree, strings.Join(quoted, ", "))
		if br.FilesMore > 0 {
			line += fmt.Sprintf(" +%d more", br.FilesMore)
		}
		reported = append(reported, line)
	}
	// Commands, agents, worktrees and file names are what sessions wrote:
	// the reported block holds them.
	if len(list.Snapshots) == 0 {
		b.WriteString("No snapshots kept.\n")
	} else {
		b.WriteString("Snapshots kept, newest first (id, taken, trigger, command, by, worktree: files):\n")
		contract.WriteReported(&b, reported)
	}
	if out.SnapshotsMore > 0 {
		fmt.Fprintf(&b, "… +%d more snapshots\n", out.SnapshotsMore)
	}
	var losses []string
	for i, l := range list.Losses {
		if i == lossesShown {
			out.LossesMore = len(list.Losses) - i
			break
		}
		owner := contract.ClipID(l.Owner)
		if l.Owner == "" {
			owner = "no live session"
		}
		line := fmt.Sprintf("%s: %d files of %q lost to %q by %q: hall restore %s", l.Snapshot, len(l.Files)+l.FilesLeftOut,
			owner, contract.Clip(l.Command, 40), contract.ClipID(l.By), l.Snapshot)
		out.Losses = append(out.Losses, line)
		losses = append(losses, line)
	}
	if len(losses) > 0 {
		b.WriteString("Work lost since, newest first:\n")
		contract.WriteReported(&b, losses)
	}
	if out.LossesMore > 0 {
		fmt.Fprintf(&b, "… +%d more losses\n", out.LossesMore)
	}
	return out, strings.TrimRight(b.String(), "\n"), nil
}

func renderSnapshotFiles(d contract.SnapshotDiff) (SnapshotsOut, string, error) {
	out := SnapshotsOut{Kept: true, Restore: "hall restore " + d.Snapshot.ID}
	var b strings.Builder
	// The worktree, the command and the file names are what sessions
	// wrote: the reported block holds them.
	fmt.Fprintf(&b, "Snapshot %s, taken %s: its worktree, the command it was taken before, and each file against now:\n", d.Snapshot.ID,
		d.Snapshot.Taken.UTC().Format("2006-01-02T15:04:05Z"))
	reported := []string{fmt.Sprintf("of %q before %q", contract.ClipPath(d.Snapshot.Worktree, 72), contract.Clip(d.Snapshot.Trigger.Command, 80))}
	for i, f := range d.Files {
		if i == diffFilesShown {
			out.FilesMore = len(d.Files) - i
			break
		}
		state := f.State
		if state == recovery.DiffSame {
			state = "same as now"
		}
		out.Files = append(out.Files, contract.ClipPath(f.Path, 72)+": "+state)
		reported = append(reported, strconv.Quote(contract.ClipPath(f.Path, 72))+": "+state)
	}
	contract.WriteReported(&b, reported)
	if out.FilesMore > 0 {
		fmt.Fprintf(&b, "… +%d more files\n", out.FilesMore)
	}
	fmt.Fprintf(&b, "`%s [PATHS]` brings them back (a file changed since is refused unless --force).", out.Restore)
	return out, b.String(), nil
}
