package hall

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/shellguard"
)

// GitView is git's last answer for a worktree, from a cache: the
// background scanner (*gitscan.Scanner). A hook answer reads it and never
// runs git; false when git has not answered for the worktree (the files
// are then "seen, git unknown").
type GitView interface {
	Result(worktree string) (gitscan.Result, bool)
}

// checkHookBeat refuses a hook beat that breaks its bounds before the
// beat writes anything.
func checkHookBeat(hb *contract.HookBeat) error {
	if hb == nil {
		return nil
	}
	if !hb.Moment.Valid() {
		return contract.Refuse(contract.KindInvalid, "invalid_beat", "hook.moment %q: want start, before_tool, after_tool or other", hb.Moment)
	}
	if len(hb.Command) > contract.MaxCommand {
		return contract.Refuse(contract.KindInvalid, "field_too_large", "hook.command is %d bytes, limit %d", len(hb.Command), contract.MaxCommand)
	}
	return nil
}

// hookBeat is what a hook adds to its beat for ev: nil when the adapter
// answers nothing for ev (nothing said there is read, so nothing is
// marked told either); PersonOnly when only the person reads the answer
// (hook.ModelHears: the capability table), so that what it says is told
// to the model later. The adapter is the one table of where an agent
// listens: it is asked, not copied.
func hookBeat(ad hook.Adapter, ev hook.Event) *contract.HookBeat {
	if ev.Leave || ad.Answer(ev, hook.Say{North: []string{"collision: probe"}}) == nil {
		return nil
	}
	hb := &contract.HookBeat{Moment: contract.MomentOther, PersonOnly: !hook.ModelHears(ad, ev)}
	switch {
	case ev.Start:
		hb.Moment = contract.MomentStart
	case ev.Before:
		hb.Moment = contract.MomentBefore
		if len(ev.Command) > contract.MaxCommand {
			hb.CommandCut = true
		} else {
			hb.Command = ev.Command
		}
	case ev.Beat.Tool != "" || len(ev.Beat.Touched) > 0:
		hb.Moment = contract.MomentAfter
	}
	return hb
}

// withHookSay lays the Hall's hook answer over what Decide said: how much
// of north to tell, the guard's lines (which ask the person under the ask
// policy on an event that honours it), the ownership lines. A Hall that
// sent no hook answer tells north in full, as before.
func withHookSay(p hook.Policy, ev hook.Event, say hook.Say, hs *contract.HookSay) hook.Say {
	if hs == nil {
		return say
	}
	say.Guard, say.Others, say.Held, say.Recovery = hs.Guard, hs.Others, hs.Held, hs.Recovery
	if p == hook.Ask && ev.Gate && len(hs.Guard) > 0 {
		say.Ask = true
	}
	switch hs.Collisions {
	case contract.TellReminder:
		say.Reminder = true
	case contract.TellNothing:
		if !say.Ask {
			say.North = nil
		}
	}
	return say
}

// scene is what the Hall knows around one presence's worktree: the
// guard's Scene, whose files with their states the ownership lines read
// too.
type scene struct {
	shellguard.Scene
}

// sceneFor builds the guard's scene for the presence self (its record as
// beaten, or as the roster holds it) from the live roster and git's last
// answer: the other live presences of its brain in its worktree with the
// files they were seen changing, each in the state git gives it
// (stateOf), the worktrees of the others, and its own files; the
// installer's files (installerFile) are nobody's work and never in it.
// Never runs git.
func (h *Hall) sceneFor(self presence.Record, live []presence.Record, cwd string) scene {
	root := self.WorktreePath()
	if root == "" {
		root = self.CallerRoot
	}
	sc := scene{Scene: shellguard.Scene{Root: root, Dir: cwd}}
	if root == "" {
		return sc
	}
	var changes *gitscan.Changes // git's answer for root; nil when unknown
	if h.Git != nil {
		if res, ok := h.Git.Result(root); ok && res.Err == nil {
			changes = &res.Changes
			sc.Branch = res.Changes.Branch
		}
	}
	team := self.Team()
	seenWT := map[string]bool{}
	for i := range live {
		r := &live[i]
		if r.Brain != self.Brain || r.Team() == team || r.PresenceID == self.PresenceID {
			continue
		}
		wt := r.WorktreePath() // a declared display string ("feat/x") is no place on disk
		if wt != "" && wt != root {
			if !seenWT[wt] {
				seenWT[wt] = true
				sc.Worktrees = append(sc.Worktrees, shellguard.Worktree{Path: wt, AgentID: r.AgentID, Theme: r.Theme})
			}
			continue
		}
		if wt == "" && r.CallerRoot != root {
			continue
		}
		w := shellguard.Work{AgentID: r.AgentID, Theme: r.Theme}
		for _, abs := range r.TouchedPaths() {
			if rel, ok := presence.RelFile(root, abs); ok && !installerFile(root, abs) {
				w.Files = append(w.Files, shellguard.File{Path: rel, State: stateOf(changes, rel)})
			}
		}
		if len(w.Files) > 0 {
			sc.Others = append(sc.Others, w)
		}
	}
	for _, abs := range self.TouchedPaths() {
		if rel, ok := presence.RelFile(root, abs); ok && !installerFile(root, abs) {
			sc.Own = append(sc.Own, rel)
		}
	}
	return sc
}

// stateOf is what the guard is told of a file another presence was seen
// changing, from git's answer for the worktree (nil: git has not
// answered):
//
//   - untracked, staged, modified, or staged and modified again since,
//     as git's status says;
//   - Committed when git lists it only as committed on the branch since
//     the merge base, or not at all while its list is complete: no
//     uncommitted work is left in the file, so it no longer guards;
//   - Seen, any uncommitted state, when git has not answered, or its list
//     was cut or bounded before reaching the file.
//
// A committed file stays out of the guard for a command that moves the
// branch too (`git reset --hard origin/main`): the classifier models
// uncommitted work only, and a commit stays reachable from the reflog.
func stateOf(c *gitscan.Changes, rel string) shellguard.State {
	if c == nil {
		return shellguard.Seen
	}
	st, listed := c.StateOf(rel)
	switch {
	case !listed && c.Complete():
		return shellguard.Committed
	case !listed:
		return shellguard.Seen
	case st&gitscan.Untracked != 0:
		return shellguard.Untracked
	case st&gitscan.Staged != 0 && st&gitscan.Modified != 0:
		return shellguard.StagedModified
	case st&gitscan.Staged != 0:
		return shellguard.Staged
	case st&gitscan.Modified != 0:
		return shellguard.Modified
	}
	return shellguard.Committed
}

// guard classifies the command line about to run in the scene: the
// guard's lines, none when it would touch nobody's work. A line over
// contract.MaxCommand reached the Hall cut: it cannot be read, so
// everything at stake is named, as the guard names a line too long for it.
func guard(hb *contract.HookBeat, sc scene) shellguard.Verdict {
	if hb.CommandCut {
		var v shellguard.Verdict
		for _, w := range sc.Others {
			v.Findings = append(v.Findings, shellguard.Finding{Command: "(the command line)", Action: shellguard.Run, Reason: shellguard.TooLong, AgentID: w.AgentID, Theme: w.Theme, Files: liveFiles(w.Files)})
		}
		for _, wt := range sc.Worktrees {
			v.Findings = append(v.Findings, shellguard.Finding{Command: "(the command line)", Action: shellguard.Run, Reason: shellguard.TooLong, AgentID: wt.AgentID, Theme: wt.Theme, Worktree: wt.Path})
		}
		return v
	}
	if hb.Command == "" {
		return shellguard.Verdict{}
	}
	return shellguard.Classify(hb.Command, sc.Scene)
}

// liveFiles drops the files that no longer hold uncommitted work.
func liveFiles(fs []shellguard.File) []shellguard.File {
	return slices.DeleteFunc(slices.Clone(fs), func(f shellguard.File) bool { return f.State == shellguard.Committed })
}

// Ownership bounds: the lines stay two or three whatever the roster.
const (
	ownersShown = 2
	filesShown  = 3
)

// ownershipLines say whose uncommitted changes are in this worktree: the
// files, the agent and theme behind each, and that they are not this
// session's to revert, commit or stop for. None when no other live
// presence has a file still changed here. Agent ids, themes and paths are
// quoted, clipped and flattened: data, never instructions.
func ownershipLines(sc scene) []string {
	var owners []string
	more := 0
	gitKnown := true // every file named is in a state git gave
	for _, w := range sc.Others {
		files := liveFiles(w.Files)
		if len(files) == 0 {
			continue
		}
		if len(owners) == ownersShown {
			more++
			continue
		}
		var names []string
		for i, f := range files {
			if i == filesShown {
				names = append(names, fmt.Sprintf("+%d more", len(files)-filesShown))
				break
			}
			names = append(names, quoteText(contract.ClipPath(f.Path, 72)))
			gitKnown = gitKnown && f.State != shellguard.Seen
		}
		who := quoteText(contract.ClipID(w.AgentID))
		if w.Theme != "" {
			who += " (theme " + quoteText(contract.Clip(w.Theme, 60)) + ")"
		}
		owners = append(owners, who+": "+strings.Join(names, ", "))
	}
	if len(owners) == 0 {
		return nil
	}
	label := "seen changing them, git unknown"
	if gitKnown {
		label = "git lists them uncommitted"
	}
	// Whose and which files are the other sessions' text: the reported
	// block holds them, the Hall's sentences around it name none.
	out := []string{fmt.Sprintf("The Hall: other live sessions have uncommitted changes in this worktree (%s):", label)}
	out = append(out, contract.ReportedLines(owners)...)
	if more > 0 {
		out = append(out, fmt.Sprintf("+%d more sessions", more))
	}
	return append(out, "Leave them alone; they are not yours to revert, commit or stop for.")
}

// quoteText quotes another agent's text as data on one line.
func quoteText(s string) string { return strconv.Quote(s) }

// hookSay answers a hook beat: how much of its collisions to tell (say
// it once, sayonce.go), the guard's lines on a Before moment, and the
// ownership lines on a Start, counted as told only where the model
// reads them (a PersonOnly beat's wait for the next one it hears). It
// reads the roster and git's cache only; a roster that cannot be read
// tells the collisions in full and nothing else (fail-open: the warning
// still goes out).
func (h *Hall) hookSay(ctx context.Context, req contract.BeatRequest, res presence.BeatResult, north []string) *contract.HookSay {
	hb := req.Hook
	out := &contract.HookSay{Collisions: contract.TellFull}
	defer func() {
		if !hb.PersonOnly { // a loss is told once, where the model reads it
			out.Recovery = append(out.Recovery, h.kept.tellLosses(res.PresenceID)...)
		}
	}()
	contested := false
	switch src := sceneSourceOf(hb, req, north); {
	case src == noScene:
		// Nothing to read beyond the beat's answer: how much to tell is all.
	case src == sceneOfRoster && hb.Moment == contract.MomentBefore:
		g, err := h.guardShell(ctx, res.PresenceID, req)
		if err != nil {
			// The roster cannot be read: no guard lines, but what the
			// command can lose is still saved, from git's answer alone.
			self := beatSelf(res.PresenceID, req)
			out.Recovery, out.Snapshots, out.NotSaved = h.saveBefore(ctx, res.PresenceID, req, h.sceneFor(self, nil, req.CallerRoot), self)
			return out
		}
		out.Guard = g.lines
		contested = g.warn || touchesContested(req.Touched, g.scene, res.Collisions)
		out.Recovery, out.Snapshots, out.NotSaved = h.saveBefore(ctx, res.PresenceID, req, g.scene, beatSelf(res.PresenceID, req))
	case src == sceneOfRoster:
		sc, err := h.rosterScene(ctx, res.PresenceID, req)
		if err != nil {
			return out
		}
		out.Others = h.ownersToTell(res.PresenceID, sc, !hb.PersonOnly) // sayonce.go
	default:
		// A tool about to change files while the presence collides: whose
		// work is in contention is its partners'.
		sc := h.sceneFor(beatSelf(res.PresenceID, req), partners(res.PresenceID, res.Collisions), req.CallerRoot)
		contested = touchesContested(req.Touched, sc, res.Collisions)
		if contested {
			out.Recovery, out.Snapshots, out.NotSaved = h.saveBeforeWrite(ctx, res.PresenceID, req, sc)
		}
	}
	return h.settle(res.PresenceID, out, north, contested, !hb.PersonOnly) // sayonce.go
}

// Guard is the shell guard's answer to the command line of req's hook
// beat (req.Hook.Command, or a line the hook cut) about to run in the
// session of the presence presenceID: the lines the agent is told, none
// when the line touches nobody's work. It is the guard's whole part of a
// shell tool's hook answer, the path hookSay takes (guardShell): the live
// records of the presence's brain read, the scene built with git's last
// answer, the line classified, its lines rendered. It writes nothing and
// keeps nothing of the line (no verdict is cached). The error is the
// roster's: a hook answer then goes out without the guard's lines.
// tools/hallbench times it in process.
func (h *Hall) Guard(ctx context.Context, presenceID string, req contract.BeatRequest) ([]string, error) {
	if req.Hook == nil {
		return nil, nil
	}
	g, err := h.guardShell(ctx, presenceID, req)
	return g.lines, err
}

// guarded is the guard's answer, with the scene it read.
type guarded struct {
	lines []string
	warn  bool
	scene scene
}

// guardShell reads the scene around presenceID and classifies the
// command line of req.Hook in it.
func (h *Hall) guardShell(ctx context.Context, presenceID string, req contract.BeatRequest) (guarded, error) {
	sc, err := h.rosterScene(ctx, presenceID, req)
	if err != nil {
		return guarded{}, err
	}
	v := guard(req.Hook, sc)
	return guarded{lines: v.Lines(), warn: v.Warn(), scene: sc}, nil
}

// rosterScene is the scene around presenceID from the live records of its
// own brain, straight from the service: a whole snapshot would derive
// every brain's collisions and overlaps to answer one shell command
// (docs/performance.md, the guard).
func (h *Hall) rosterScene(ctx context.Context, presenceID string, req contract.BeatRequest) (scene, error) {
	r, live, err := h.Service.LiveBeside(ctx, presenceID)
	if err != nil {
		return scene{}, fmt.Errorf("read the live records beside %s: %w", presenceID, err)
	}
	self := r
	if r.PresenceID == "" {
		self = beatSelf(presenceID, req)
	}
	return h.sceneFor(self, live, req.CallerRoot), nil
}

// beatSelf is the presence as its beat says, standing for it until the
// roster shows it.
func beatSelf(presenceID string, req contract.BeatRequest) presence.Record {
	self := presence.Record{PresenceID: presenceID, AgentID: req.AgentID, Brain: req.Brain, Worktree: req.Worktree, CallerRoot: req.CallerRoot}
	if req.ParentAgentID != "" {
		self.ParentPresenceID = presence.ID(req.ParentAgentID, req.Brain)
	}
	return self
}

// sceneSource is what a hook answer reads beyond the beat's own answer.
type sceneSource int

const (
	// noScene: most of a session's calls; how much to tell is all.
	noScene sceneSource = iota
	// sceneOfPartners: a tool about to change files while the presence
	// collides; whose work is in contention is its partners', which the
	// beat's answer holds.
	sceneOfPartners
	// sceneOfRoster: a session's start (the ownership lines) or a shell
	// command about to run (the guard) reads the live records of the
	// presence's brain (presence.Service.LiveBeside), at the cost of a
	// pass over the roster: so only here.
	sceneOfRoster
)

// sceneSourceOf says what the hook answer for hb must read.
func sceneSourceOf(hb *contract.HookBeat, req contract.BeatRequest, north []string) sceneSource {
	switch {
	case hb.Moment == contract.MomentStart,
		hb.Moment == contract.MomentBefore && (hb.Command != "" || hb.CommandCut):
		return sceneOfRoster
	case hb.Moment == contract.MomentBefore && len(req.Touched) > 0 && len(north) > 0:
		return sceneOfPartners
	}
	return noScene
}

// partners are the other sides of the presence id's collisions.
func partners(id string, cs []presence.Collision) []presence.Record {
	out := make([]presence.Record, 0, len(cs))
	for _, c := range cs {
		if p, ok := c.Partner(id); ok {
			out = append(out, *p)
		}
	}
	return out
}

// touchesContested reports whether a tool call's files are another live
// presence's: a file of the scene's others still changed, or a path of one
// of the presence's collisions (at or below it).
func touchesContested(touched []string, sc scene, cs []presence.Collision) bool {
	for _, abs := range touched {
		if rel, ok := presence.RelFile(sc.Root, abs); ok {
			for _, w := range sc.Others {
				for _, f := range liveFiles(w.Files) {
					if f.Path == rel {
						return true
					}
				}
			}
		}
		for _, c := range cs {
			for _, p := range c.Paths {
				if abs == p || strings.HasPrefix(abs, p+"/") {
					return true
				}
			}
		}
	}
	return false
}
