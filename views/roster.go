package views

import (
	"net/url"

	"github.com/hall-dev/hall/internal/contract"
)

// RosterShown is how many roster rows the page shows unless asked for all:
// the first page of a roster of 10,000 stays small, and so does each update.
// 25, not 50: at 1,000 presences the page painted 60–90 ms sooner
// (docs/performance.md#the-page), and the strip and the collisions, above
// the roster, say what a person reads first.
const RosterShown = 25

// RosterPage is the roster rows shown, in RosterRows' order, and how many
// are left out.
func RosterPage(ps []contract.Presence, all bool, colliding map[string]bool) ([]contract.Presence, int) {
	rows := RosterRows(ps, colliding)
	if all || len(rows) <= RosterShown {
		return rows, 0
	}
	return rows[:RosterShown], len(rows) - RosterShown
}

// RosterRows orders the roster: the teams (a session and its subagents)
// with a side of a live collision first, then the rest, each in the
// contract's order otherwise, and each subagent right after its session.
// A subagent whose session is not live is a team of its own. So the
// colliding rows lead the first page and the whole roster (?roster=all)
// alike.
func RosterRows(ps []contract.Presence, colliding map[string]bool) []contract.Presence {
	live := make(map[string]bool, len(ps))
	kids := map[string][]contract.Presence{}
	for _, p := range ps {
		live[p.PresenceID] = true
	}
	team := func(p contract.Presence) string {
		if p.ParentPresenceID != "" && live[p.ParentPresenceID] && p.ParentPresenceID != p.PresenceID {
			return p.ParentPresenceID
		}
		return p.PresenceID
	}
	hot := map[string]bool{} // teams with a colliding member
	for _, p := range ps {
		t := team(p)
		if t != p.PresenceID {
			kids[t] = append(kids[t], p)
		}
		if colliding[p.PresenceID] {
			hot[t] = true
		}
	}
	out := make([]contract.Presence, 0, len(ps))
	for _, first := range []bool{true, false} {
		for _, p := range ps {
			if team(p) != p.PresenceID || hot[p.PresenceID] != first {
				continue
			}
			out = append(out, p)
			out = append(out, kids[p.PresenceID]...)
		}
	}
	return out
}

// RosterURL links the page with the whole roster, or its first rows.
func RosterURL(brain string, all bool) string {
	u := BrainURL(brain)
	if !all {
		return u
	}
	if brain == "" {
		return u + "?roster=all"
	}
	return u + "&roster=all"
}

// BrainURL is the deep link of a brain; "" links to all brains.
func BrainURL(brain string) string {
	if brain == "" {
		return "/"
	}
	return "/?brain=" + url.QueryEscape(brain)
}
