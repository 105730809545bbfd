package views

import (
	"strconv"
	"strings"

	"github.com/hall-dev/hall/internal/contract"
)

// RecentFirst is how many of the newest recent events show before "N
// earlier events": a glance, under the strip.
const RecentFirst = 6

// RecentSplit is the recent lines shown at once, and the earlier ones.
func RecentSplit(ls []contract.Line) (first, earlier []contract.Line) {
	if len(ls) > RecentFirst {
		return ls[:RecentFirst], ls[RecentFirst:]
	}
	return ls, nil
}

// LineText tells one recent event in words.
func LineText(l contract.Line) string {
	switch l.Type {
	case contract.LineJoin:
		t := l.Presence.AgentID + " joined " + ShortWhere(l.Presence.Where(), l.Presence.Brain)
		if l.Presence.Theme != "" {
			t += ": " + l.Presence.Theme
		}
		return "+ " + t
	case contract.LineLeave:
		return "− " + l.Presence.AgentID + " left " + ShortWhere(l.Presence.Where(), l.Presence.Brain)
	case contract.LineCollisionOpened:
		return "⚠ collision: " + pairText(*l.Collision)
	case contract.LineCollisionChanged:
		return "⚠ collision changed: " + pairText(*l.Collision)
	case contract.LineCollisionClosed:
		t := "✓ collision closed: " + l.Collision.A.AgentID + " and " + l.Collision.B.AgentID + " at " + l.Collision.Place
		if l.LastedMs != nil {
			t += ", lasted " + contract.AgeMs(*l.LastedMs)
		}
		return t
	case contract.LineOverlapOpened:
		return overlapMark(*l.Overlap) + l.Overlap.Verdict + ": " + overlapText(*l.Overlap)
	case contract.LineOverlapChanged: // the line does not say what it was before
		return overlapMark(*l.Overlap) + l.Overlap.Verdict + " now: " + overlapText(*l.Overlap)
	case contract.LineOverlapClosed:
		t := "✓ " + l.Overlap.Verdict + " closed: " + l.Overlap.A.AgentID + " and " + l.Overlap.B.AgentID
		if l.LastedMs != nil {
			t += ", lasted " + contract.AgeMs(*l.LastedMs)
		}
		return t
	case contract.LineRegistryUnreadable:
		return "⚠ registry unreadable, roster dropped: " + l.Detail
	case contract.LineRegistryReadable:
		return "registry readable again"
	case contract.LineStoreUnreachable:
		return "⚠ store unreachable, roster dropped: " + l.Detail
	case contract.LineStoreReachable:
		return "store reachable again"
	}
	return l.Type
}

// overlapMark leads an overlap's line: a warning for a conflict.
func overlapMark(o contract.Overlap) string {
	if o.Verdict == contract.VerdictConflict {
		return "⚠ "
	}
	return "⇄ "
}

// overlapText names an overlap's sides, their worktrees and its first file.
func overlapText(o contract.Overlap) string {
	t := o.A.AgentID + " in " + ShortWhere(o.A.Worktree, o.Brain) + " and " + o.B.AgentID + " in " + ShortWhere(o.B.Worktree, o.Brain) + " changed "
	if len(o.Files) > 0 {
		t += o.Files[0].Path
	}
	if more := max(o.FilesTotal, len(o.Files)) - 1; more > 0 {
		t += " +" + itoa(more)
	}
	return t
}

// LossText is one loss in words: whose work, which files, lost to whose
// command.
func LossText(l contract.Loss) string {
	owner := l.Owner
	if owner == "" {
		owner = "Work no live session held"
	}
	files := l.Files
	more := l.FilesLeftOut
	if len(files) > 3 {
		more += len(files) - 3
		files = files[:3]
	}
	s := owner + ": " + JoinComma(files)
	if more > 0 {
		s += " +" + itoa(more) + " more"
	}
	return s + " — lost to " + l.By + "'s " + strconv.Quote(contract.Clip(l.Command, 80))
}

// ErrorLine says why the roster was dropped: "Registry unreadable: …" or
// "Store unreachable: …" (static/hall.js's errorLine says the same).
func ErrorLine(d contract.PresencesResponse) string {
	label := contract.RosterErrorLabel(d.Error)
	detail := d.Detail
	if detail == "" {
		detail = d.Error
	}
	return strings.ToUpper(label[:1]) + label[1:] + ": " + detail
}
