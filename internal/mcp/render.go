package mcp

import (
	"fmt"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// What one answer shows at most. With every field clipped to the widths
// the cockpit uses, these keep each answer's text and its structured
// content within contract.CockpitBudgetTokens, whatever the roster holds
// (TestBudget fills every field to its limit to prove it).
const (
	maxRows       = 5   // presences in a presences answer
	maxCollisions = 3   // collisions in a presences answer
	maxNorth      = 3   // north lines in a handshake or north answer
	maxOverlaps   = 2   // overlap lines in a handshake, north or presences answer
	reasonWidth   = 120 // a beat's reason for not being stored, an error's detail
	errorWidth    = 400 // a tool error's text
)

// PresencesOut is a roster, compact.
type PresencesOut struct {
	Scope          string         `json:"scope" jsonschema:"this brain or all brains"`
	Live           int            `json:"live" jsonschema:"live presences in scope"`
	CollisionCount int            `json:"collision_count" jsonschema:"live collisions in scope"`
	Presences      []PresenceRow  `json:"presences" jsonschema:"at most 5, colliding ones first, then newest beat first"`
	PresencesMore  int            `json:"presences_more" jsonschema:"presences left out"`
	Collisions     []CollisionRow `json:"collisions" jsonschema:"at most 3"`
	CollisionsMore int            `json:"collisions_more" jsonschema:"collisions left out"`
	OverlapCount   int            `json:"overlap_count" jsonschema:"open overlaps in scope: two worktrees changed the same files"`
	Overlaps       []string       `json:"overlaps" jsonschema:"at most 2, after the collisions: one line each"`
	OverlapsMore   int            `json:"overlaps_more" jsonschema:"overlaps left out"`
	Error          string         `json:"error,omitempty" jsonschema:"registry_unreadable when the Hall cannot read its store: the roster is dropped whole"`
	Detail         string         `json:"detail,omitempty"`
}

// PresenceRow is one presence, its text fields shortened for display.
type PresenceRow struct {
	PresenceID    string `json:"presence_id"`
	AgentID       string `json:"agent_id" jsonschema:"at most 40 characters"`
	Theme         string `json:"theme,omitempty" jsonschema:"at most 60 characters"`
	Where         string `json:"where" jsonschema:"its worktree, else caller root, else brain; the tail kept to 72 characters"`
	Age           string `json:"age" jsonschema:"since first seen, as the page and the cockpit write it: 42s, 5m, 3h 05m, 2d 4h"`
	MutationLevel string `json:"mutation_level" jsonschema:"observed (a mutating tool was seen), declared (an intent was said) or none"`
	Colliding     bool   `json:"colliding"`
}

// CollisionRow is one collision: its two presences (smaller id first),
// the shared place, the clauses. The text rendering names their agents.
type CollisionRow struct {
	A       string   `json:"a" jsonschema:"one side's presence_id"`
	B       string   `json:"b" jsonschema:"the other side's presence_id"`
	Clauses []string `json:"clauses" jsonschema:"same_caller_root, same_worktree, working_set_overlap"`
	Place   string   `json:"place" jsonschema:"the shared worktree, caller root or path, the tail kept to 72 characters"`
}

func renderHandshake(b contract.BeatRequest, resp contract.BeatResponse) (HandshakeOut, string) {
	out := HandshakeOut{
		PresenceID: resp.PresenceID,
		AgentID:    contract.ClipID(b.AgentID),
		Brain:      contract.ClipPath(b.Brain, contract.PlaceWidth),
		Stored:     resp.Stored,
		Reason:     contract.Clip(resp.Reason, reasonWidth),
	}
	out.North, out.NorthMore = northLines(resp.North, resp.CollisionsTotal)
	state := "stored"
	switch {
	case resp.Stored:
	case resp.Throttled:
		state = "held, written within the throttle window"
	default:
		state = "not stored: " + out.Reason
	}
	var t strings.Builder
	fmt.Fprintf(&t, "%s · %s · %s · %s\n", out.PresenceID, out.AgentID, out.Brain, state)
	writeNorth(&t, out.North, out.NorthMore)
	out.Overlaps, out.OverlapsMore = overlapLines(resp.PresenceID, resp.Overlaps, len(resp.Overlaps))
	writeOverlaps(&t, out.Overlaps, out.OverlapsMore)
	return out, t.String()
}

// overlapLines keeps the first maxOverlaps overlaps as short lines, from
// id's side, and counts the rest of total; never nil.
func overlapLines(id string, os []contract.Overlap, total int) ([]string, int) {
	out := []string{}
	for i, o := range os {
		if i == maxOverlaps {
			break
		}
		out = append(out, contract.OverlapShort(id, o))
	}
	return out, max(total, len(os)) - len(out)
}

func writeOverlaps(t *strings.Builder, lines []string, more int) {
	contract.WriteReported(t, lines) // other agents' ids and paths: data

	if more > 0 {
		fmt.Fprintf(t, "… +%d more overlaps\n", more)
	}
}

func renderNorth(resp contract.NorthResponse) (NorthOut, string) {
	out := NorthOut{PresenceID: resp.PresenceID, Live: resp.Live, Error: resp.Error, Detail: contract.Clip(resp.Detail, reasonWidth)}
	out.North, out.NorthMore = northLines(resp.North, resp.CollisionsTotal)
	out.Overlaps = []string{}
	var t strings.Builder
	if out.Error != "" {
		fmt.Fprintf(&t, "north of %s: unavailable (%s: %s)\n", out.PresenceID, out.Error, out.Detail)
		return out, t.String()
	}
	if resp.Live != nil && !*resp.Live {
		fmt.Fprintf(&t, "%s is not on the roster: it lapsed, left, or never beat (call handshake to join)\n", out.PresenceID)
		return out, t.String()
	}
	fmt.Fprintf(&t, "north of %s:\n", out.PresenceID)
	writeNorth(&t, out.North, out.NorthMore)
	out.Others = resp.Others
	for _, l := range out.Others {
		t.WriteString(l)
		t.WriteByte('\n')
	}
	out.Overlaps, out.OverlapsMore = overlapLines(resp.PresenceID, resp.Overlaps, resp.OverlapsTotal)
	writeOverlaps(&t, out.Overlaps, out.OverlapsMore)
	return out, t.String()
}

func writeNorth(t *strings.Builder, lines []string, more int) {
	if len(lines) == 0 {
		t.WriteString("no collision: no other mutating session shares this worktree, caller root or working set\n")
		return
	}
	contract.WriteReported(t, lines)
	if more > 0 {
		fmt.Fprintf(t, "… +%d more\n", more)
	}
}

// northLines keeps the first maxNorth partner lines of a north and counts
// the partners left out: the Hall names at most presence.NorthCap and
// counts the rest in a last "+N more" line and in total (0 from a Hall
// that does not count them).
func northLines(lines []string, total int) ([]string, int) {
	partners := lines
	if total > presence.NorthCap && len(lines) == presence.NorthCap+1 {
		partners = lines[:presence.NorthCap]
	}
	shown, _ := capLines(partners, maxNorth)
	return shown, max(total, len(partners)) - len(shown)
}

// capLines keeps the first n lines and counts the rest; never nil.
func capLines(lines []string, n int) ([]string, int) {
	if len(lines) <= n {
		return append([]string{}, lines...), 0
	}
	return append([]string{}, lines[:n]...), len(lines) - n
}

func renderPresences(resp contract.PresencesResponse) (PresencesOut, string) {
	brain := resp.ServedBrain.Root()
	out := PresencesOut{
		Scope:          contract.ScopeLabel(brain),
		Live:           len(resp.Presences),
		CollisionCount: max(resp.CollisionsTotal, len(resp.Collisions)), // the contract lists a bounded part

		Presences:  []PresenceRow{},
		Collisions: []CollisionRow{},
		Overlaps:   []string{},
		Error:      resp.Error,
		Detail:     contract.Clip(resp.Detail, reasonWidth),
	}
	var t strings.Builder
	if out.Error != "" {
		fmt.Fprintf(&t, "presences: unavailable (%s: %s) · %s\n", out.Error, out.Detail, out.Scope)
		return out, t.String()
	}
	fmt.Fprintf(&t, "presences: %s\n", contract.RootLine(out.Live, out.CollisionCount, brain))

	colliding := map[string]bool{}
	for _, c := range resp.Collisions {
		colliding[c.A.PresenceID], colliding[c.B.PresenceID] = true, true
	}
	// Colliding presences first, each group in roster order.
	order := make([]contract.Presence, 0, len(resp.Presences))
	for _, first := range []bool{true, false} {
		for _, p := range resp.Presences {
			if colliding[p.PresenceID] == first {
				order = append(order, p)
			}
		}
	}
	now := time.UnixMilli(resp.ServedAtMs)
	// The rows and collisions carry what agents wrote (ids, themes,
	// paths): they go in the reported block, the counts after it.
	var reported []string
	for i, p := range order {
		if i == maxRows {
			out.PresencesMore = len(order) - maxRows
			break
		}
		row := PresenceRow{
			PresenceID:    p.PresenceID,
			AgentID:       contract.ClipID(p.AgentID),
			Theme:         contract.Clip(p.Theme, contract.ThemeWidth),
			Where:         contract.ClipPath(p.Where(), contract.PlaceWidth),
			Age:           contract.Age(now.Sub(time.UnixMilli(p.FirstSeenMs))),
			MutationLevel: p.MutationLevel,
			Colliding:     colliding[p.PresenceID],
		}
		out.Presences = append(out.Presences, row)
		theme := row.Theme
		if theme == "" {
			theme = "-"
		}
		mark := " "
		if row.Colliding {
			mark = "⚠"
		}
		reported = append(reported, fmt.Sprintf("%s %s · %s · %s · %s · %s · %s", mark, row.PresenceID, row.AgentID, theme, row.Where, row.Age, contract.MutatingLevelText(row.MutationLevel)))
	}
	for i, c := range resp.Collisions {
		if i == maxCollisions {
			break
		}
		row := CollisionRow{
			A:       c.A.PresenceID,
			B:       c.B.PresenceID,
			Clauses: append([]string{}, c.Clauses...),
			Place:   contract.ClipPath(c.Place, contract.PlaceWidth),
		}
		out.Collisions = append(out.Collisions, row)
		reported = append(reported, fmt.Sprintf("collision: %s (%s) × %s (%s) at %s [%s]",
			contract.ClipID(c.A.AgentID), row.A, contract.ClipID(c.B.AgentID), row.B,
			row.Place, strings.Join(row.Clauses, ", ")))
	}
	contract.WriteReported(&t, reported)
	if out.PresencesMore > 0 {
		fmt.Fprintf(&t, "  … +%d more\n", out.PresencesMore)
	}
	// The rest, listed by the contract or only counted by it.
	if more := out.CollisionCount - len(out.Collisions); more > 0 {
		out.CollisionsMore = more
		fmt.Fprintf(&t, "  … +%d more collisions\n", out.CollisionsMore)
	}
	// Overlaps after collisions: a collision is now, an overlap at the merge.
	out.OverlapCount = max(resp.OverlapsTotal, len(resp.Overlaps))
	out.Overlaps, out.OverlapsMore = overlapLines("", resp.Overlaps, out.OverlapCount)
	writeOverlaps(&t, out.Overlaps, out.OverlapsMore)
	return out, t.String()
}
