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
		writeSide(&b, o.Partner(id))
		b.WriteString(acrossText(across))
	}
	fmt.Fprintf(&b, " changed %s", filesText(o.Paths(), o.FilesTotal))
	switch {
	case o.Verdict == VerdictConflict:
		fmt.Fprintf(&b, "; git predicts the merge conflicts in %s", filesText(o.Conflicts, o.ConflictsTotal))
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

func writeSide(b *strings.Builder, s OverlapSide) {
	if p := s.Pushed; p.Branch != "" {
		writePushed(b, p)
		return
	}
	b.WriteString(ClipID(s.AgentID))
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
// committed (UTC, to the minute: the line holds no clock of its own).
func writePushed(b *strings.Builder, p OverlapPushed) {
	when := time.UnixMilli(p.CommittedMs).UTC().Format("2006-01-02 15:04 UTC")
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
	return ClipID(s.AgentID)
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
	case o.A.PresenceID:
		sides = who(o.B)
		if o.B.Pushed.Branch != "" {
			sides += " on " + clipPath(o.B.Pushed.Remote, textPlaceWidth)
		} else {
			sides += " in " + clipPath(o.B.Worktree, textPlaceWidth) + acrossText(o.Across)
		}
	case o.B.PresenceID:
		sides = who(o.A) + " in " + clipPath(o.A.Worktree, textPlaceWidth) + acrossText(o.Across)
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
