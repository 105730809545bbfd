package views

import (
	"strings"

	"github.com/hall-dev/hall/internal/contract"
)

// CollisionsShown is how many collision cards the list shows before "+N
// more": a screen or two of them, colliding sides first as everywhere; the
// banner and the strip count them all.
const CollisionsShown = 20

// ClauseLabel reads a collision clause as words.
func ClauseLabel(c string) string {
	switch c {
	case contract.ClauseCallerRoot:
		return "same caller root"
	case contract.ClauseWorktree:
		return "same worktree"
	case contract.ClauseWorkingSet:
		return "working sets overlap"
	case contract.ClauseTouched:
		return "both changed these files"
	default:
		return c
	}
}

// ClauseText reads a collision's clauses as words, comma-separated.
func ClauseText(cs []string) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = ClauseLabel(c)
	}
	return strings.Join(out, ", ")
}

func pairText(c contract.Collision) string {
	return c.A.AgentID + " and " + c.B.AgentID + " at " + c.Place + " (" + ClauseText(c.Clauses) + ")"
}

// BannerText names the first place agents collide at, every team there,
// and counts the other places: a session and its subagents are one agent
// of it, as on the cards.
func BannerText(cards []PlaceCard) string {
	if len(cards) == 0 {
		return ""
	}
	c := cards[0]
	verb := " are all mutating in "
	if len(c.Teams) == 2 {
		verb = " are both mutating in "
	}
	t := c.Agents() + verb + c.Place
	if more := len(cards) - 1; more > 0 {
		t += " (and " + Plural(more, "more place", "more places") + ")"
	}
	return t
}
