package contract

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hall-dev/hall/internal/presence"
)

// CockpitBudgetTokens bounds the cockpit root line and the drill, each, at
// characters/4.
const CockpitBudgetTokens = 800

// Field widths in the cockpit and north text: long enough to recognise,
// short enough that six rows stay inside the budget whatever agents send.
const (
	textAgentWidth = 40
	textThemeWidth = 60
	textPlaceWidth = 72
)

// NorthLines returns one line per collision partner of the presence id,
// naming the partner, the shared place and the clause(s), at most
// presence.NorthCap of them; then, when total (the collisions id is a
// side of) counts more than the lines, one "+N more" line; [] when none.
func NorthLines(id string, cs []presence.Collision, total int) []string {
	out := []string{}
	team := map[string]int{} // a partner's team → its line in out
	var teamMore []int       // per line: more sessions of that team, folded into it
	handled := 0
	for _, c := range cs {
		p, ok := c.Partner(id)
		if !ok {
			continue
		}
		// A session and its subagents are one team: one line names them,
		// so the other side reads one partner, not two.
		if i, seen := team[p.Team()]; seen {
			teamMore[i]++
			handled++
			continue
		}
		if len(out) == presence.NorthCap {
			continue
		}
		line := fmt.Sprintf("collision: %s (%s) also mutating at %s [%s]",
			ClipID(p.AgentID), p.PresenceID, clipPath(c.Place, textPlaceWidth), clauseText(c.Clauses))
		if len(c.Paths) > 0 && !(len(c.Paths) == 1 && c.Paths[0] == c.Place) {
			line += fmt.Sprintf(" paths %s", clipPaths(c.Paths))
		}
		team[p.Team()] = len(out)
		teamMore = append(teamMore, 0)
		out = append(out, line)
		handled++
	}
	for i, n := range teamMore {
		if n > 0 {
			out[i] += fmt.Sprintf(" (and %d more of its team: a session and its subagents)", n)
		}
	}
	if more := total - handled; more > 0 {
		out = append(out, fmt.Sprintf("collision: +%d more (%d in all)", more, total))
	}
	return out
}

func clauseText(cls []presence.Clause) string {
	s := make([]string, len(cls))
	for i, c := range cls {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}

func clipPaths(ps []string) string {
	const show = 3
	var parts []string
	for i, p := range ps {
		if i == show {
			parts = append(parts, fmt.Sprintf("+%d more", len(ps)-show))
			break
		}
		parts = append(parts, clipPath(p, textPlaceWidth))
	}
	return strings.Join(parts, ", ")
}

// ScopeLabel is "this brain" when the view is one brain, else "all brains".
func ScopeLabel(brain string) string {
	if brain != "" {
		return "this brain"
	}
	return "all brains"
}

// RootLine is the strip's one root line: live count, scope label, and the
// collision warning riding the label when any collision is live.
func RootLine(live, collisions int, brain string) string {
	noun := "presences"
	if live == 1 {
		noun = "presence"
	}
	label := ScopeLabel(brain)
	if collisions > 0 {
		w := "collisions"
		if collisions == 1 {
			w = "collision"
		}
		label = fmt.Sprintf("%s ⚠ %d %s", label, collisions, w)
	}
	return fmt.Sprintf("%d %s · %s", live, noun, label)
}

// MutatingText names the mutation level for people: what was seen, what was
// said, or nothing.
func MutatingText(r presence.Record) string { return MutatingLevelText(string(r.Mutation.Level())) }

// MutatingLevelText is MutatingText from a level (LevelObserved,
// LevelDeclared; anything else is none).
func MutatingLevelText(level string) string {
	switch level {
	case LevelObserved:
		return "mutating (observed)"
	case LevelDeclared:
		return "mutating (declared)"
	default:
		return "not mutating"
	}
}

// Age is the one way the Hall writes a duration, on the page (server
// render and static/hall.js's ticking), in the cockpit and in the MCP
// tools: 42s, 5m, 3h 05m, 2d 4h — seconds to a minute, minutes to an
// hour, then two units, so an age reads in two glances at most. A negative
// duration (clock skew) reads as 0s. testdata/age.json is the table every
// implementation is tested against.
func Age(d time.Duration) string {
	s := max(d.Milliseconds(), 0) / 1000
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm", s/60)
	case s < 86400:
		return fmt.Sprintf("%dh %02dm", s/3600, s/60%60)
	default:
		return fmt.Sprintf("%dd %dh", s/86400, s/3600%24)
	}
}

// AgeMs is Age of a duration in milliseconds, as the wire carries them.
func AgeMs(ms int64) string { return Age(time.Duration(ms) * time.Millisecond) }

// Cockpit is the strip as plain text for agents: the root line (counts,
// in the Hall's words), the first collision and overlap named, and the
// drill (its rows in the page's order, DrillRows), each within
// CockpitBudgetTokens at characters/4 whatever the roster holds. The
// snapshot must already be narrowed to brain.
type Cockpit struct {
	Root string
	// Named are the first collision's and the first overlap's lines:
	// their agents and place.
	Named []string
	Drill []string
	// More counts the drill's rows left out.
	More int
}

// String is the root line, then the named lines and the drill rows (what
// agents wrote: ids, themes, places) inside the reported block
// (ReportedLines), then how many rows were left out.
func (c Cockpit) String() string {
	var b strings.Builder
	b.WriteString(c.Root)
	b.WriteByte('\n')
	WriteReported(&b, append(slices.Clone(c.Named), c.Drill...))
	if c.More > 0 {
		fmt.Fprintf(&b, "… +%d more\n", c.More)
	}
	return b.String()
}

// UnreadableCockpit is the cockpit's text while the roster cannot be read
// (the registry unreadable, the store out of reach): it says so rather
// than showing an empty Hall.
func UnreadableCockpit(err error, brain string) string {
	code, _ := RosterError(err)
	return "presences: unavailable (" + RosterErrorLabel(code) + ") · " + ScopeLabel(brain) + "\n"
}

// CockpitFor renders the cockpit of a snapshot narrowed to brain ("" for
// owner-wide).
func CockpitFor(s presence.Snapshot, brain string) Cockpit {
	total := max(s.CollisionsTotal, len(s.Collisions)) // a snapshot built by hand may count none
	root := "presences: " + RootLine(len(s.Live), total, brain)
	var named []string
	if len(s.Collisions) > 0 {
		c := s.Collisions[0]
		line := fmt.Sprintf("collision: %s × %s at %s", ClipID(c.A.AgentID), ClipID(c.B.AgentID), clipPath(c.Place, textPlaceWidth))
		if more := total - 1; more > 0 {
			line += fmt.Sprintf(" (+%d more)", more)
		}
		named = append(named, line)
	}
	// Overlaps after collisions: a collision is now, an overlap at the merge.
	if n := max(s.OverlapsTotal, len(s.Overlaps)); n > 0 {
		w := "overlaps"
		if n == 1 {
			w = "overlap"
		}
		root += fmt.Sprintf(" · %d %s", n, w)
		if len(s.Overlaps) > 0 {
			o := s.Overlaps[0]
			line := fmt.Sprintf("overlap: %s × %s%s: %s", sideName(overlapSide(o.A)), sideName(overlapSide(o.B)), acrossBoth(o.Across), o.Verdict)
			if n > 1 {
				line += fmt.Sprintf(" (+%d more)", n-1)
			}
			named = append(named, line)
		}
	}
	now := time.UnixMilli(s.AtMs)
	rows, more := drillRecords(s)
	var drill []string
	for _, r := range rows {
		theme := r.Theme
		if theme == "" {
			theme = "-"
		}
		fields := []string{
			ClipID(r.AgentID),
			clip(theme, textThemeWidth),
			clipPath(r.Where(), textPlaceWidth),
			Age(now.Sub(time.UnixMilli(r.FirstSeen()))),
			MutatingText(*r),
		}
		if t := touchedText(*r); t != "" {
			fields = append(fields, t)
		}
		drill = append(drill, strings.Join(fields, " · "))
	}
	return Cockpit{Root: root, Named: named, Drill: drill, More: more}
}

// touchedText names the newest file the Hall saw the presence change, and
// counts the others: "changed cart.go +2"; "" when none.
func touchedText(r presence.Record) string {
	if len(r.Touched) == 0 {
		return ""
	}
	t := "changed " + clip(filepath.Base(r.Touched[0].Path), textAgentWidth)
	if more := int64(len(r.Touched)-1) + r.TouchedOmitted; more > 0 {
		t += fmt.Sprintf(" +%d", more)
	}
	return t
}

// Widths other text surfaces (the MCP tools) clip fields to, so a field
// reads the same in the cockpit, the north lines and a tool's answer.
const (
	AgentWidth = textAgentWidth
	ThemeWidth = textThemeWidth
	PlaceWidth = textPlaceWidth
)

// Clip makes s one printable line of at most width runes, ending in "…"
// when cut.
func Clip(s string, width int) string { return clip(s, width) }

// ClipID is an agent id as text for a model or a terminal: its safe
// characters (presence.SafeID), clipped to AgentWidth.
func ClipID(id string) string { return clip(presence.SafeID(id), textAgentWidth) }

// ClipPath keeps at most width runes of a path's tail, the part a person
// recognises: "…/shop-wt2/src".
func ClipPath(p string, width int) string { return clipPath(p, width) }

// clip makes s one printable line of at most width runes, ending in "…"
// when cut. Control characters (a foreign writer may store them) and the
// Unicode line and paragraph separators (which a beat may carry) become
// spaces, so a field can never break the line it sits on.
func clip(s string, width int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	rs := []rune(s)
	return string(rs[:width-1]) + "…"
}

// clipPath keeps a path's tail, the part a person recognises: "…/shop-wt2/src".
func clipPath(p string, width int) string {
	p = clip(p, 1<<30)
	if utf8.RuneCountInString(p) <= width {
		return p
	}
	rs := []rune(p)
	tail := string(rs[len(rs)-(width-1):])
	if i := strings.IndexRune(tail, filepath.Separator); i > 0 && i < len(tail)-1 {
		tail = tail[i:]
	}
	return "…" + tail
}
