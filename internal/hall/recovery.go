package hall

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/recovery"
	"github.com/hall-dev/hall/internal/shellguard"
	"github.com/hall-dev/hall/internal/shellword"
)

// Nothing lost for good (issue 31, docs/recovery.md): before a hook
// answer lets a command that can lose uncommitted work run, the Hall
// snapshots the worktree into its own store (package recovery); after
// the command ran, it checks which of the files at stake changed or
// vanished, and tells each live session whose work they held, once, how
// to get them back.

// DefaultSnapshotBudget bounds the snapshot a hook answer waits for
// before a destructive command (Hall.SnapshotBudget, hall serve
// --snapshot-budget): well inside the Hall's answer deadline
// (HookDeadline) and the agents' hook timeouts. A snapshot past it is
// abandoned and the answer says the work is not saved.
const DefaultSnapshotBudget = 750 * time.Millisecond

// snapshotBudget is the Hall's budget for a snapshot on a hook's path.
func (h *Hall) snapshotBudget() time.Duration {
	if h.SnapshotBudget > 0 {
		return h.SnapshotBudget
	}
	return DefaultSnapshotBudget
}

// LossCheckBudget bounds the background check, after the command ran, of
// which files at stake it changed.
const LossCheckBudget = 5 * time.Second

// Bounds of the recovery book.
const (
	// maxPending bounds the commands awaiting their loss check, one per
	// presence at most; past it a new one is not checked (its snapshot
	// is kept all the same).
	maxPending = 1024
	// maxLosses bounds the losses kept for the page and the API, newest
	// first.
	maxLosses = 64
	// maxUntold bounds the losses waiting for one victim's next hook.
	maxUntold = 4
	// lossFilesShown is how many files a loss line names.
	lossFilesShown = 3
	// maxRestoreShown bounds the restore command a loss line shows with
	// its paths; a longer one is shown as the snapshot's id alone.
	maxRestoreShown = 240
	// pendingFor is how long a command's check waits for its agent's
	// next hook beat (which says the command ran); past it the check is
	// dropped.
	pendingFor = 30 * time.Minute
	// maxSceneFiles bounds the uncommitted files the loss scene reads.
	maxSceneFiles = shellguard.MaxOthers * shellguard.MaxFilesPerOther
)

// recoveryBook is what the Hall keeps between a destructive command's
// hook and its aftermath: the commands awaiting their check, the losses
// found, and the losses each victim has yet to be told. The zero value is
// ready; one lock, never held across git or the disk.
type recoveryBook struct {
	mu      sync.Mutex
	pending map[string]pendingLoss // by the running presence's id
	untold  map[string][]contract.Loss
	losses  []contract.Loss // newest first, at most maxLosses

	saved, notSaved, lost atomic.Int64
	notSavedBy            [len(recovery.Reasons)]atomic.Int64 // by recovery.Reasons' order
}

// pendingLoss is a command whose snapshot was taken, awaiting its check.
type pendingLoss struct {
	at         time.Time
	by         string // the running agent's id
	byPresence string // and its presence id: its own losses are not told back to it
	brain      string
	command    string
	snaps      []savedSnap
}

// savedSnap is one snapshot taken for a command: the worktree, and whose
// files at stake in it (by victim presence id; "" a person's, or no live
// session's).
type savedSnap struct {
	id       string
	worktree string
	stakes   map[string]stake
}

// stake is one victim's files at stake in one snapshot.
type stake struct {
	agentID string
	files   []string
}

// Stats reads the counters.
func (b *recoveryBook) Stats() recovery.HookStats {
	st := recovery.HookStats{Saved: b.saved.Load(), NotSaved: b.notSaved.Load(), Losses: b.lost.Load(), NotSavedBy: map[recovery.Reason]int64{}}
	for i, r := range recovery.Reasons {
		st.NotSavedBy[r] = b.notSavedBy[i].Load()
	}
	return st
}

// RecoveryStats are the Hall's counters of snapshots taken on the hook
// path and losses found (/metrics).
func (h *Hall) RecoveryStats() recovery.HookStats { return h.kept.Stats() }

// Losses are the losses the Hall found lately, newest first: the page and
// GET /api/snapshots mark them recoverable.
func (h *Hall) Losses() []contract.Loss {
	h.kept.mu.Lock()
	defer h.kept.mu.Unlock()
	return slices.Clone(h.kept.losses)
}

// lossScene is the guard's scene for the question "can this command lose
// anybody's uncommitted work?": every file git lists uncommitted in the
// worktree, whoever's (the other live sessions', the running session's own,
// a person's), each with its owner where the Hall knows one, and the other
// sessions' worktrees. Files come in works of at most
// shellguard.MaxFilesPerOther, at most maxSceneFiles in all.
func lossScene(sc scene, self presence.Record, changes *gitscan.Changes) shellguard.Scene {
	out := sc.Scene
	out.Others = nil
	named := map[string]bool{}
	add := func(agentID, theme string, files []shellguard.File) {
		for len(files) > 0 && len(out.Others) < shellguard.MaxOthers {
			n := min(len(files), shellguard.MaxFilesPerOther)
			out.Others = append(out.Others, shellguard.Work{AgentID: agentID, Theme: theme, Files: files[:n]})
			files = files[n:]
		}
	}
	for _, w := range sc.Others {
		files := liveFiles(w.Files)
		for _, f := range files {
			named[f.Path] = true
		}
		add(w.AgentID, w.Theme, files)
	}
	var own []shellguard.File
	for _, p := range sc.Own {
		if f := (shellguard.File{Path: p, State: stateOf(changes, p)}); f.State != shellguard.Committed && !named[p] {
			named[p] = true
			own = append(own, f)
		}
	}
	add(self.AgentID, "", own)
	if changes != nil {
		var rest []shellguard.File
		for i, p := range changes.Files {
			if len(named)+len(rest) >= maxSceneFiles {
				break
			}
			if named[p] || i >= len(changes.States) || !changes.States[i].Uncommitted() {
				continue
			}
			rest = append(rest, shellguard.File{Path: strings.TrimSuffix(p, "/"), State: stateOf(changes, p)})
		}
		add("", "", rest)
	}
	return out
}

// atStake groups the files a verdict's losing findings reach, by
// worktree ("" the scene's own) and owner.
func atStake(v shellguard.Verdict, brain string) map[string]map[string]stake {
	out := map[string]map[string]stake{}
	for _, f := range v.Findings {
		if !f.Action.Loses() {
			continue
		}
		wt := out[f.Worktree]
		if wt == nil {
			wt = map[string]stake{}
			out[f.Worktree] = wt
		}
		victim := ""
		if f.AgentID != "" {
			victim = presence.ID(f.AgentID, brain)
		}
		s := wt[victim]
		s.agentID = f.AgentID
		for _, file := range f.Files {
			if !slices.Contains(s.files, file.Path) {
				s.files = append(s.files, file.Path)
			}
		}
		wt[victim] = s
	}
	return out
}

// saveBefore snapshots what the command of req.Hook can lose, before the
// hook answer lets it run: each worktree it reaches where uncommitted
// work is at stake, within the snapshot budget, at once. It answers the lines
// the agent is told (a snapshot taken, or "not saved" and why) and the
// snapshot ids; none when nothing is at stake or the Hall keeps no
// snapshots. Whatever it saved awaits its check at the presence's next
// hook beat (checkAfter).
func (h *Hall) saveBefore(ctx context.Context, presenceID string, req contract.BeatRequest, sc scene, self presence.Record) (lines, ids []string, notSaved []contract.NotSaved) {
	if h.Recovery == nil || sc.Root == "" {
		return nil, nil, nil
	}
	var changes *gitscan.Changes
	if h.Git != nil {
		if res, ok := h.Git.Result(sc.Root); ok && res.Err == nil {
			changes = &res.Changes
		}
	}
	ls := lossScene(sc, self, changes)
	v := guard(req.Hook, scene{Scene: ls})
	if !v.Loses() {
		return nil, nil, nil
	}
	stakes := atStake(v, self.Brain)
	kind, command := recovery.TriggerShell, req.Hook.Command
	if req.Hook.CommandCut {
		command = "(a command line too long to read)"
	}
	return h.save(ctx, presenceID, req, kind, command, sc.Root, stakes)
}

// saveBeforeWrite snapshots the worktree before a tool writes over a file
// another live presence has uncommitted changes to (a contested edit).
func (h *Hall) saveBeforeWrite(ctx context.Context, presenceID string, req contract.BeatRequest, sc scene) (lines, ids []string, notSaved []contract.NotSaved) {
	if h.Recovery == nil || sc.Root == "" {
		return nil, nil, nil
	}
	stakes := map[string]stake{}
	var written []string
	for _, abs := range req.Touched {
		rel, ok := presence.RelFile(sc.Root, abs)
		if !ok {
			continue
		}
		written = append(written, rel)
		for _, w := range sc.Others {
			for _, f := range liveFiles(w.Files) {
				if f.Path == rel {
					id := presence.ID(w.AgentID, req.Brain)
					s := stakes[id]
					s.agentID = w.AgentID
					s.files = append(s.files, rel)
					stakes[id] = s
				}
			}
		}
	}
	if len(stakes) == 0 {
		return nil, nil, nil
	}
	return h.save(ctx, presenceID, req, recovery.TriggerWrite, strings.Join(written, " "), sc.Root, map[string]map[string]stake{"": stakes})
}

// save takes the snapshots of the worktrees at stake at once, within
// the snapshot budget, and books them for their check. Each is given
// git's last answer for its worktree, which refuses at once one too
// large to take (recovery.SaveRequest.Changes); one not saved is told
// with why, in words and typed (notSaved), and counted by reason.
func (h *Hall) save(ctx context.Context, presenceID string, req contract.BeatRequest, kind, command, root string, stakes map[string]map[string]stake) (lines, ids []string, notSaved []contract.NotSaved) {
	ctx, cancel := context.WithTimeout(ctx, h.snapshotBudget())
	defer cancel()
	type result struct {
		wt   string
		snap recovery.Snapshot
		err  error
	}
	results := make([]result, 0, len(stakes))
	for wt := range stakes {
		if wt == "" {
			wt = root
		}
		results = append(results, result{wt: wt})
	}
	slices.SortFunc(results, func(a, b result) int { return strings.Compare(a.wt, b.wt) })
	var wg sync.WaitGroup
	for i := range results {
		r := &results[i]
		var hint []string
		for _, s := range stakes[keyOf(r.wt, root)] {
			hint = append(hint, s.files...)
		}
		var changes *gitscan.Changes
		if h.Git != nil {
			if res, ok := h.Git.Result(r.wt); ok && res.Err == nil {
				changes = &res.Changes
			}
		}
		wg.Go(func() {
			r.snap, r.err = h.Recovery.Take(ctx, recovery.SaveRequest{
				Worktree: r.wt, Presence: req.AgentID, Agent: req.Kind, Brain: req.Brain,
				Trigger: recovery.Trigger{Kind: kind, Tool: req.Tool, Command: contract.Clip(command, contract.MaxCommand)},
				Paths:   hint, Changes: changes,
			})
		})
	}
	wg.Wait()
	p := pendingLoss{at: h.Service.Now(), by: req.AgentID, byPresence: presenceID, brain: req.Brain, command: command}
	var names worktreeNames
	for _, r := range results {
		if r.err != nil {
			reason := recovery.ReasonOf(r.err)
			h.kept.notSaved.Add(1)
			if i := slices.Index(recovery.Reasons[:], reason); i >= 0 {
				h.kept.notSavedBy[i].Add(1)
			}
			if h.Log != nil {
				h.Log.Warn("recovery: no snapshot before a destructive command", "worktree", r.wt, "reason", reason, "err", r.err)
			}
			notSaved = append(notSaved, contract.NotSaved{Worktree: r.wt, Reason: string(reason)})
			lines = append(lines, fmt.Sprintf("The Hall could not save a snapshot of %s first (%s): what this command loses there is not saved.", names.of(r.wt, root), h.notSavedWhy(reason)))
			continue
		}
		h.kept.saved.Add(1)
		ids = append(ids, r.snap.ID)
		p.snaps = append(p.snaps, savedSnap{id: r.snap.ID, worktree: r.wt, stakes: stakes[keyOf(r.wt, root)]})
		lines = append(lines, fmt.Sprintf("The Hall saved snapshot %s of %s first: `hall restore %s --diff` shows it, `hall restore %s` brings its files back.", r.snap.ID, names.of(r.wt, root), r.snap.ID, r.snap.ID))
	}
	lines = append(lines, contract.ReportedLines(names)...)
	if len(p.snaps) > 0 {
		h.kept.expect(presenceID, p)
	}
	return lines, ids, notSaved
}

// notSavedWhy says a reason in a hook line's words.
func (h *Hall) notSavedWhy(r recovery.Reason) string {
	switch r {
	case recovery.ReasonTooManyFiles:
		return fmt.Sprintf("too many files: over the %d uncommitted files a snapshot takes", recovery.MaxSnapshotFiles)
	case recovery.ReasonTooLarge:
		return fmt.Sprintf("too large: its uncommitted files hold over the %d MiB a snapshot reads", recovery.MaxSnapshotRead>>20)
	case recovery.ReasonOverMaxBytes:
		return "over --snapshot-max-bytes"
	case recovery.ReasonTimeout:
		return fmt.Sprintf("git took over %s", h.snapshotBudget())
	case recovery.ReasonNotOwned:
		return "another user owns it: the Hall runs git only in its own user's worktrees"
	default:
		return "git could not take it"
	}
}

func keyOf(wt, root string) string {
	if wt == root {
		return ""
	}
	return wt
}

// worktreeNames are the paths of the worktrees other than this one that
// recovery lines name: text others control (a repository's folder), so
// the lines say "worktree N (below)" and the reported block after them
// holds each path, quoted and clipped.
type worktreeNames []string

// of names a worktree in a line: "this worktree", or its number in the
// reported block, the path added to it.
func (n *worktreeNames) of(wt, root string) string {
	if wt == root {
		return "this worktree"
	}
	*n = append(*n, fmt.Sprintf("%d: %s", len(*n)+1, quoteText(contract.ClipPath(wt, 72))))
	return fmt.Sprintf("worktree %d (below)", len(*n))
}

// expect books p for its check at the presence's next hook beat.
func (b *recoveryBook) expect(presenceID string, p pendingLoss) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == nil {
		b.pending = map[string]pendingLoss{}
	}
	if _, ok := b.pending[presenceID]; !ok && len(b.pending) >= maxPending {
		for id, q := range b.pending {
			if p.at.Sub(q.at) > pendingFor {
				delete(b.pending, id)
			}
		}
		if len(b.pending) >= maxPending {
			return
		}
	}
	b.pending[presenceID] = p
}

// takePending is the presence's command awaiting its check, removed.
func (b *recoveryBook) takePending(presenceID string, now time.Time) (pendingLoss, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.pending[presenceID]
	if ok {
		delete(b.pending, presenceID)
	}
	return p, ok && now.Sub(p.at) <= pendingFor
}

// checkAfter starts the check of the presence's last destructive command,
// if one awaits it: a hook beat after a command's own says the command
// ran. The check runs in the background (it reads the files and the
// snapshot's tree), bounded by LossCheckBudget; what it finds the victims
// are told at their next hook beat (tellLosses). It runs within the
// Hall's lifetime: Close cancels it and waits for it; after Close none
// starts.
func (h *Hall) checkAfter(presenceID string) {
	p, ok := h.kept.takePending(presenceID, h.Service.Now())
	if !ok || h.Recovery == nil {
		return
	}
	h.life.Go(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, LossCheckBudget)
		defer cancel()
		for _, s := range p.snaps {
			h.checkSnapshot(ctx, p, s)
		}
	})
}

// checkSnapshot finds which files at stake in one snapshot the command
// changed or removed, and books a loss for each victim.
func (h *Hall) checkSnapshot(ctx context.Context, p pendingLoss, s savedSnap) {
	var paths []string
	for _, st := range s.stakes {
		paths = append(paths, st.files...)
	}
	if len(paths) == 0 {
		return
	}
	diffs, err := h.Recovery.Diff(ctx, s.id, paths)
	if err != nil {
		if h.Log != nil {
			h.Log.Warn("recovery: check after a destructive command", "snapshot", s.id, "err", err)
		}
		return
	}
	gone := map[string]bool{}
	for _, d := range diffs {
		if d.State != recovery.DiffSame {
			gone[d.Path] = true
		}
	}
	now := h.Service.Now()
	for victim, st := range s.stakes {
		var files []string
		for _, f := range st.files {
			if gone[f] {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			continue
		}
		l := contract.Loss{
			Snapshot: s.id, Worktree: s.worktree, Brain: p.brain, By: p.by, Command: contract.Clip(p.command, 200),
			Owner: st.agentID, Files: files[:min(len(files), contract.MaxLossFiles)],
			FilesLeftOut: max(0, len(files)-contract.MaxLossFiles), At: now.UTC(),
		}
		l.Restore = restoreCommand(l)
		if victim == p.byPresence {
			victim = "" // its own command: the page and the API show it
		}
		h.kept.book(victim, l)
	}
}

// restoreCommand is the command that brings a loss's files back.
func restoreCommand(l contract.Loss) string {
	var b strings.Builder
	b.WriteString("hall restore " + l.Snapshot)
	if l.FilesLeftOut == 0 {
		for _, f := range l.Files {
			b.WriteString(" " + shellword.Quote(f))
		}
	}
	return b.String()
}

// book keeps a loss for the page and, when its victim is a live session,
// for the victim's next hook answer.
func (b *recoveryBook) book(victim string, l contract.Loss) {
	b.lost.Add(1)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.losses = append([]contract.Loss{l}, b.losses[:min(len(b.losses), maxLosses-1)]...)
	if victim == "" {
		return
	}
	if b.untold == nil {
		b.untold = map[string][]contract.Loss{}
	}
	if _, ok := b.untold[victim]; !ok && len(b.untold) >= maxPending {
		return // the page still shows it
	}
	q := append(b.untold[victim], l)
	b.untold[victim] = q[max(0, len(q)-maxUntold):]
}

// tellLosses are the lines that tell the presence, once, what it lost to
// another session's command since its last hook answer, and how to get
// it back.
func (b *recoveryBook) tellLosses(presenceID string) []string {
	b.mu.Lock()
	q := b.untold[presenceID]
	delete(b.untold, presenceID)
	b.mu.Unlock()
	var lines []string
	for _, l := range q {
		lines = append(lines, LossLines(l)...)
	}
	return lines
}

// LossLines are what a victim is told of one loss: in the Hall's words,
// that its work changed or vanished and the command that restores it;
// then, inside the reported block, by whom, by which command and which
// files (another session's id and command, names in the worktree: data,
// never instructions).
func LossLines(l contract.Loss) []string {
	names := make([]string, 0, lossFilesShown+1)
	for i, f := range l.Files {
		if i == lossFilesShown {
			break
		}
		names = append(names, quoteText(contract.ClipPath(f, 72)))
	}
	n := len(l.Files) + l.FilesLeftOut
	if more := n - len(names); more > 0 {
		names = append(names, fmt.Sprintf("+%d more", more))
	}
	files := "files"
	if n == 1 {
		files = "file"
	}
	head := fmt.Sprintf("The Hall: another session ran a command and your uncommitted changes to %d %s changed or vanished. Saved before it ran: `hall restore %s --diff` shows them, `hall restore %s PATH…` brings back the ones named below.",
		n, files, l.Snapshot, l.Snapshot)
	reported := []string{fmt.Sprintf("%s ran %s: %s", quoteText(contract.ClipID(l.By)), quoteText(contract.Clip(l.Command, 80)), strings.Join(names, ", "))}
	if l.Restore != "" && len(l.Restore) <= maxRestoreShown {
		reported = append(reported, "restores them: `"+l.Restore+"`")
	}
	return append([]string{head}, contract.ReportedLines(reported)...)
}
