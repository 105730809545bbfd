package contract

import (
	"fmt"
	"strings"
	"time"
)

// OverlapLine is one overlap told from the presence id's side, in a line:
// the verdict, the other agent, its theme (quoted: another agent wrote
// it), its worktree and branch, the files (the first three, then how
// many more) and what git said; another clone (or host, or a pushed
// branch) is said so. For the owner-wide views (watch, the cockpit) id
// may be "": both sides are named.
func OverlapLine(id string, o Overlap) string {
	var b strings.Builder
	b.WriteString(o.Verdict)
	b.WriteString(": ")
	across := o.Across
	if o.B.Pushed.Branch != "" {
		across = "" // the pushed side says so itself (writePushed)
	}
	if id == "" || (o.A.PresenceID != id && o.B.PresenceID != id) {
		writeSide(&b, o.A)
		b.WriteString(" and ")
		writeSide(&b, o.B)
		b.WriteString(acrossBoth(across))
	} else {
		p := o.Partner(id)
		writeSide(&b, p)
		if p.Host == "" { // a side on another host names it already
			b.WriteString(acrossText(across))
		}
	}
	fmt.Fprintf(&b, " changed %s", filesText(o.Paths(), o.FilesTotal))
	switch {
	case o.Verdict == VerdictConflict:
		fmt.Fprintf(&b, "; %s predicts the merge conflicts in %s", o.gitName(), filesText(o.Conflicts, o.ConflictsTotal))
	case o.Merge == MergeUnknown && o.MergeReason != "":
		fmt.Fprintf(&b, "; no merge prediction: %s", MergeReasonText(o.MergeReason))
	case o.Merge == MergeClean && o.MergeHost != "":
		fmt.Fprintf(&b, "; %s predicts a clean merge for now", o.gitName())
	case o.Basis == BasisPaths && o.gitPending():
		b.WriteString("; git has not answered for both worktrees yet: no merge prediction so far")
	case o.Basis == BasisPaths:
		b.WriteString("; git cannot see both worktrees here: no merge prediction")
	case o.Merge == MergeClean:
		b.WriteString("; git predicts a clean merge for now")
	}
	return b.String()
}

// gitPending tells an overlap whose merge git has not predicted only
// because it has not answered for a side yet: every side's git state is
// ok or not scanned.
func (o Overlap) gitPending() bool {
	pending := func(s OverlapSide) bool { return s.Git == GitNotScanned }
	seen := func(s OverlapSide) bool { return s.Git == GitOK || pending(s) }
	return seen(o.A) && seen(o.B) && (pending(o.A) || pending(o.B))
}

// gitName is whose git predicted the merge: "git", or "git on <host>"
// across hosts, labelled with the host whose Hall ran it.
func (o Overlap) gitName() string {
	if o.MergeHost == "" {
		return "git"
	}
	return "git on " + clip(o.MergeHost, textAgentWidth)
}

// The reasons a merge across hosts is unknown (Overlap.MergeReason).
const (
	MergeReasonNotShared   = "not_shared"    // this Hall shares nothing with other hosts (no NATS store)
	MergeReasonNoGit       = "no_git_answer" // git has not answered for a side yet
	MergeReasonPending     = "pending"       // asked; no verdict yet
	MergeReasonPathsOnly   = "paths_only"    // this Hall shares paths only (--share-changes=paths)
	MergeReasonPeerPaths   = "peer_paths_only"
	MergeReasonBaseNotHere = "base_not_here"
	MergeReasonContentCut  = "content_cut"
	MergeReasonPeerWaiting = "peer_verdict_pending"
	MergeReasonGitFailed   = "git_failed"
	MergeReasonUnreachable = "board_unreachable" // the NATS server did not answer
)

// MergeReasonText is a merge reason across hosts in words.
func MergeReasonText(code string) string {
	switch code {
	case MergeReasonNotShared:
		return "this Hall shares nothing with other hosts"
	case MergeReasonNoGit:
		return "git has not answered for both sides yet"
	case MergeReasonPending:
		return "not predicted yet"
	case MergeReasonPathsOnly:
		return "this Hall shares paths only (--share-changes=paths)"
	case MergeReasonPeerPaths:
		return "the other host's Hall shared no content for it (it shares paths only, or not yet)"
	case MergeReasonBaseNotHere:
		return "the other side's base commit is neither among this repository's objects nor fetched from its remote (not pushed yet)"
	case MergeReasonContentCut:
		return "the content shared was cut at its bound"
	case MergeReasonPeerWaiting:
		return "waiting for the other host's Hall to predict it"
	case MergeReasonGitFailed:
		return "git failed to predict it"
	case MergeReasonUnreachable:
		return "the NATS server did not answer"
	}
	return clip(code, textAgentWidth)
}

// acrossText names what lies between two sides when it is more than
// another worktree of one clone: " (another clone)".
func acrossText(across string) string {
	switch across {
	case AcrossClone:
		return " (another clone)"
	case AcrossHost:
		return " (another host)"
	case AcrossPushed:
		return " (pushed)"
	}
	return ""
}

// acrossBoth names what lies between two sides named together when it is
// more than two worktrees of one clone: " (two clones)".
func acrossBoth(across string) string {
	switch across {
	case AcrossClone:
		return " (two clones)"
	case AcrossHost:
		return " (two hosts)"
	case AcrossPushed:
		return " (one pushed)"
	}
	return ""
}

// agentOnHost is a side's agent, and its host when it is on another.
func agentOnHost(agent, host string) string {
	if host == "" {
		return ClipID(agent)
	}
	return ClipID(agent) + " on " + clip(host, textAgentWidth)
}

func writeSide(b *strings.Builder, s OverlapSide) {
	if p := s.Pushed; p.Branch != "" {
		writePushed(b, p)
		return
	}
	b.WriteString(agentOnHost(s.AgentID, s.Host))
	if s.Theme != "" {
		fmt.Fprintf(b, " (theme %q)", clip(s.Theme, textThemeWidth))
	}
	fmt.Fprintf(b, " in %s", clipPath(s.Worktree, textPlaceWidth))
	if s.Branch != "" {
		fmt.Fprintf(b, " on branch %s", clip(s.Branch, textAgentWidth))
	}
}

// writePushed names a pushed branch as git has it: its name and author
// quoted (whoever pushed chose them), its remote, its tip and when it was
// committed and when a Hall first saw the tip (UTC, to the minute: the
// line holds no clock of its own, and says the same at every call).
func writePushed(b *strings.Builder, p OverlapPushed) {
	when := time.UnixMilli(p.CommittedMs).UTC().Format("2006-01-02 15:04 UTC")
	if p.SeenMs > 0 {
		when += ", first seen " + time.UnixMilli(p.SeenMs).UTC().Format("2006-01-02 15:04 UTC")
	}
	if p.Default {
		fmt.Fprintf(b, "the default branch %q moved on %s: %s by %q (committed %s)",
			clip(p.Branch, textAgentWidth), clipPath(p.Remote, textPlaceWidth), shortCommit(p.Commit), clip(p.Author, textAgentWidth), when)
		return
	}
	fmt.Fprintf(b, "branch %q pushed to %s (tip %s by %q, committed %s)",
		clip(p.Branch, textAgentWidth), clipPath(p.Remote, textPlaceWidth), shortCommit(p.Commit), clip(p.Author, textAgentWidth), when)
}

// sideName names a side in a few words: its agent, or a pushed
// branch's name, quoted.
func sideName(s OverlapSide) string {
	if s.Pushed.Branch != "" {
		return fmt.Sprintf("branch %q", clip(s.Pushed.Branch, textAgentWidth))
	}
	return agentOnHost(s.AgentID, s.Host)
}

// shortCommit is a commit id's first 7 characters, as git abbreviates.
func shortCommit(id string) string { return id[:min(len(id), 7)] }

// filesText names the first three paths and counts the rest.
func filesText(paths []string, total int) string {
	const show = 3
	parts := make([]string, 0, show+1)
	for i, p := range paths {
		if i == show {
			break
		}
		parts = append(parts, clipPath(p, textPlaceWidth))
	}
	if more := max(total, len(paths)) - len(parts); more > 0 {
		parts = append(parts, fmt.Sprintf("+%d more", more))
	}
	return strings.Join(parts, ", ")
}

// OverlapShort is an overlap in a short line, for the MCP answers that
// hold within CockpitBudgetTokens whatever the roster holds: the verdict,
// the other side (both, when id is neither) by agent and presence id, and
// the first file with how many more.
func OverlapShort(id string, o Overlap) string {
	who := func(s OverlapSide) string {
		if p := s.Pushed; p.Branch != "" {
			return fmt.Sprintf("branch %q (%s)", clip(p.Branch, textAgentWidth), shortCommit(p.Commit))
		}
		return fmt.Sprintf("%s (%s)", ClipID(s.AgentID), s.PresenceID)
	}
	var sides string
	switch id {
	case o.A.PresenceID, o.B.PresenceID:
		p := o.Partner(id)
		if p.Pushed.Branch != "" {
			sides = who(p) + " on " + clipPath(p.Pushed.Remote, textPlaceWidth)
		} else if p.Host != "" { // on another host: named, no more to say of what lies between
			sides = who(p) + " on " + clip(p.Host, textAgentWidth) + " in " + clipPath(p.Worktree, textPlaceWidth)
		} else {
			sides = who(p) + " in " + clipPath(p.Worktree, textPlaceWidth) + acrossText(o.Across)
		}
	default:
		sides = who(o.A) + " × " + who(o.B) + acrossBoth(o.Across)
	}
	first := ""
	if len(o.Files) > 0 {
		first = o.Files[0].Path
	}
	line := fmt.Sprintf("%s: %s changed %s", o.Verdict, sides, clipPath(first, textPlaceWidth))
	if more := max(o.FilesTotal, len(o.Files)) - 1; more > 0 {
		line += fmt.Sprintf(" (+%d more)", more)
	}
	return line
}
