// Package views renders the Hall's HTML with templ: the layout, the Hall
// page (strip, drill, recent events, collision list, roster, brain picker)
// and the error pages. It is the page's only renderer: the first page, and
// every region again as a fragment (GET /fragments/…) that static/hall.js
// fetches on each change and swaps in. Each region's root carries
// data-region; rendered alone it also carries its hash, and its roster
// rows' cells are noted so a page that has them is not sent them again
// (region.go).
//
// Views read the wire types (internal/contract): what the page shows is
// exactly what /api/presences serves. They know nothing of HTTP nor of the
// stream: no transport package is imported (TestViewsKnowNoTransport).
package views

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/hall-dev/hall/internal/contract"
)

// Page is what every page's layout needs.
type Page struct {
	Title string
	CSS   string // hashed URL of the stylesheet
	JS    string // hashed URL of the script
	Icon  string // hashed URL of the favicon
}

// BrainCount is one entry of the brain picker.
type BrainCount struct {
	Brain      string
	Live       int
	Collisions int
}

// Live configures the script that keeps the page current.
type Live struct {
	StreamURL    string // the SSE stream for this scope: each diff is a cue to fetch the regions
	FragmentURL  string // the page's regions (GET /fragments/hall), fetched on each diff and polled without the stream
	SilenceMs    int64  // a stream silent this long is taken for stuck
	PollMs       int64  // the polling period
	RetryMs      int64  // how soon a failed stream is tried again
	IconURL      string // the favicon
	AlertIconURL string // the favicon while a collision is open in scope
}

// Hall is the Hall page's model.
type Hall struct {
	Page
	Live
	Brain     string // the chosen brain, "" for all brains
	Data      contract.PresencesResponse
	Brains    []BrainCount
	Recent    RecentEvents
	Opened    map[string]contract.Opened // when the Hall saw each open collision open
	RosterAll bool                       // the whole roster, not its first RosterShown rows
	Sig       string                     // a signature of the scope's roster, to check a quiet stream against
	// Total is how many collisions are open in scope when Data.Collisions
	// holds only some of them; 0 means all of them are there.
	Total int
	// Sides is contract.Colliding(Data.Collisions), computed once for every region
	// that marks colliding rows; CollidingSet fills it when nil.
	Sides map[string]bool
	// Cards is PlaceCards(Data.Collisions, Data.Presences), gathered once
	// by the page's model; PlaceCards fills it when nil.
	Cards []PlaceCard
	// Pictures and PicturesMore are Pictures(Data.Overlaps), gathered
	// once by the page's model; OverlapPictures fills them when nil.
	Pictures     []Picture
	PicturesMore int
	// Losses are the losses found lately in scope, newest first
	// (hall.Hall.Losses), at most LossesShown.
	Losses []contract.Loss
}

// LossesShown bounds the losses the page lists.
const LossesShown = 10

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

// CollidingSet is the presence ids that are a side of a live collision.
func (h Hall) CollidingSet() map[string]bool {
	if h.Sides == nil {
		return contract.Colliding(h.Data.Collisions)
	}
	return h.Sides
}

// RecentEvents is the Recent panel: the newest lines about the scope, how
// many more the Hall holds, and how many it keeps at most.
type RecentEvents struct {
	Lines   []contract.Line
	LeftOut int
	Kept    int
	AllURL  string // GET /api/events for the scope, every line kept
}

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

// RosterShown is how many roster rows the page shows unless asked for all:
// the first page of a roster of 10,000 stays small, and so does each update.
// 25, not 50: at 1,000 presences the page painted 60–90 ms sooner
// (docs/performance.md#the-page), and the strip and the collisions, above
// the roster, say what a person reads first.
const RosterShown = 25

// CollisionsShown is how many collision cards the list shows before "+N
// more": a screen or two of them, colliding sides first as everywhere; the
// banner and the strip count them all.
const CollisionsShown = 20

// CollisionsTotal is how many collisions are open in scope, listed or not:
// the contract lists at most the Hall's --max-collisions on each brain and
// counts them all (collisions_total).
func (h Hall) CollisionsTotal() int {
	return max(h.Total, h.Data.CollisionsTotal, len(h.Data.Collisions))
}

// RosterPage is the roster rows shown, in RosterRows' order, and how many
// are left out.
func RosterPage(ps []contract.Presence, all bool, colliding map[string]bool) ([]contract.Presence, int) {
	rows := RosterRows(ps, colliding)
	if all || len(rows) <= RosterShown {
		return rows, 0
	}
	return rows[:RosterShown], len(rows) - RosterShown
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

// OpenedLabel leads a collision's age: "open" when the Hall saw it open,
// "open ≥" when it was already open when the Hall first looked.
func OpenedLabel(o contract.Opened) string {
	if o.Seen {
		return "open "
	}
	return "open ≥ "
}

// OpenedTitle explains the age.
func OpenedTitle(o contract.Opened) string {
	if o.Seen {
		return "open since " + ISO(o.AtMs) + " (when the Hall saw it open)"
	}
	return "already open when the Hall first looked, at " + ISO(o.AtMs)
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

func pairText(c contract.Collision) string {
	return c.A.AgentID + " and " + c.B.AgentID + " at " + c.Place + " (" + ClauseText(c.Clauses) + ")"
}

// NotFound is the model of a page for a brain the Hall does not know, or a
// brain parameter it cannot read.
type NotFound struct {
	Page
	Heading string
	Detail  string
	Brains  []BrainCount
}

// BrainURL is the deep link of a brain; "" links to all brains.
func BrainURL(brain string) string {
	if brain == "" {
		return "/"
	}
	return "/?brain=" + url.QueryEscape(brain)
}

// ShortPath shortens a path for a narrow cell: the last two segments after
// an ellipsis. The full path goes in the title.
func ShortPath(p string) string {
	trimmed := strings.TrimRight(p, "/")
	if trimmed == "" {
		return p
	}
	segs := strings.Split(strings.TrimLeft(trimmed, "/"), "/")
	if len(segs) <= 2 {
		return p
	}
	return "…/" + strings.Join(segs[len(segs)-2:], "/")
}

// ShortWhere shortens where a presence works for the drill: relative to
// the folder that holds its brain when it lies there ("shop-wt2",
// "shop/.worktrees/wt2"), since worktrees sit beside or inside the brain;
// else as ShortPath.
func ShortWhere(p, brain string) string {
	parent := strings.TrimRight(brain, "/")
	if i := strings.LastIndex(parent, "/"); i > 0 {
		parent = parent[:i]
		if rel, ok := strings.CutPrefix(strings.TrimRight(p, "/"), parent+"/"); ok && rel != "" {
			if segs := strings.Split(rel, "/"); len(segs) > 3 {
				return "…/" + strings.Join(segs[len(segs)-2:], "/")
			}
			return rel
		}
	}
	return ShortPath(p)
}

// BaseName is a brain's last segment, how people name a repository.
func BaseName(p string) string {
	trimmed := strings.TrimRight(p, "/")
	if i := strings.LastIndex(trimmed, "/"); i >= 0 && i < len(trimmed)-1 {
		return trimmed[i+1:]
	}
	if trimmed == "" {
		return p
	}
	return trimmed
}

// AgeText is the age of an instant at servedAtMs, with its suffix, as a
// <time> shows it; "" when servedAtMs is 0: a fragment leaves ages to the
// page's script, which ticks them anyway, so a region that did not change
// renders the same bytes at every cursor.
func AgeText(servedAtMs, ms int64, suffix string) string {
	if servedAtMs == 0 {
		return ""
	}
	return contract.AgeMs(servedAtMs-ms) + suffix
}

// ISO is an epoch-millisecond instant as an RFC 3339 UTC string, for the
// datetime attribute of <time>.
func ISO(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

// Plural writes "1 agent", "3 agents".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ScopeLabel is "this brain" when a brain is chosen, else "all brains".
func ScopeLabel(brain string) string {
	if brain != "" {
		return "this brain"
	}
	return "all brains"
}

// CollisionWarning is the warning that rides the scope label, "" when no
// collision is live.
func CollisionWarning(n int) string {
	if n == 0 {
		return ""
	}
	return "⚠ " + Plural(n, "collision", "collisions")
}

// CollisionWarningAt is the strip's warning: the collisions (pairs of
// agents), and the places they are at when fewer, so it squares with the
// banner and the list, which count places. Places are said only when
// every collision is listed (they are counted from the list).
func CollisionWarningAt(pairs, places int, allListed bool) string {
	w := CollisionWarning(pairs)
	if w != "" && allListed && places > 0 && places < pairs {
		w += " at " + Plural(places, "place", "places")
	}
	return w
}

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

// MutationText is how the drill and roster show a presence's mutation
// level: what the Hall observed reads as a fact ("editing"), what the
// agent declared says so ("declared: …"), and an intent that declares no
// mutation (m1nd's rule: only "mutate" does) is shown as said, apart.
func MutationText(p contract.Presence) string {
	switch {
	case p.MutationLevel == contract.LevelObserved:
		return "editing"
	case p.MutationLevel == contract.LevelDeclared:
		return "declared: " + p.Mutation.DeclaredIntent
	case p.Mutation.DeclaredIntent != "":
		return "— (declared: " + p.Mutation.DeclaredIntent + ")"
	default:
		return "—"
	}
}

// MutationTitle is the tooltip of the mutation cell.
func MutationTitle(p contract.Presence) string {
	switch p.MutationLevel {
	case contract.LevelObserved:
		t := "a mutating tool ran (observed by the Hall)"
		if p.Mutation.DeclaredIntent != "" {
			t += "; declared: " + p.Mutation.DeclaredIntent
		}
		return t
	case contract.LevelDeclared:
		return "declared by the agent, not observed"
	default:
		if p.Mutation.DeclaredIntent != "" {
			return "no mutation signal: the declared intent is not a mutation"
		}
		return "no mutation signal"
	}
}

// WorkingSetShown is how many working-set entries a roster cell lists
// before "+N more".
const WorkingSetShown = 3

// TouchedPaths is what the Hall observed a presence change, newest first.
func TouchedPaths(p contract.Presence) []string {
	out := make([]string, len(p.Touched))
	for i, t := range p.Touched {
		out[i] = t.Path
	}
	return out
}

// ChangedPaths are the files a presence changed as the roster's Changed
// column shows them: relative to where it works when they lie there
// ("src/checkout/cart.go"), else shortened as ShortPath; the full paths
// are in TouchedTitle.
func ChangedPaths(p contract.Presence) []string {
	where := strings.TrimRight(p.Where(), "/")
	out := make([]string, len(p.Touched))
	for i, t := range p.Touched {
		if rel, ok := strings.CutPrefix(t.Path, where+"/"); ok && where != "" && rel != "" {
			out[i] = rel
		} else {
			out[i] = ShortPath(t.Path)
		}
	}
	return out
}

// TouchedText sums up the files a presence changed for the drill: the
// newest one's name and how many more ("" when none).
func TouchedText(p contract.Presence) string {
	if len(p.Touched) == 0 {
		return ""
	}
	t := "changed " + BaseName(p.Touched[0].Path)
	if more := int64(len(p.Touched)-1) + p.TouchedOmitted; more > 0 {
		t += " +" + i64(more)
	}
	return t
}

// TouchedTitle lists every file a presence changed, one a line, for the
// drill's tooltip.
func TouchedTitle(p contract.Presence) string {
	t := strings.Join(TouchedPaths(p), "\n")
	if p.TouchedOmitted > 0 {
		t += "\n+" + i64(p.TouchedOmitted) + " older"
	}
	return t
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

// Theme is the theme shown, with a placeholder when the agent gave none.
func Theme(p contract.Presence) string {
	if p.Theme == "" {
		return "(no theme)"
	}
	return p.Theme
}

// Or returns s, or the dash when s is empty.
func Or(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// Title is the document title: the root line, so a background tab reads.
func Title(h Hall) string {
	t := fmt.Sprintf("%s · %s", Plural(len(h.Data.Presences), "agent", "agents"), ScopeLabel(h.Brain))
	if w := h.CollisionWarning(); w != "" {
		t += " · " + w
	}
	if w := ConflictWarning(ConflictsListed(h.Data.Overlaps), h.OverlapsPartial()); w != "" {
		t += " · " + w
	}
	return t + " — Hall"
}

func itoa(n int) string { return fmt.Sprint(n) }

func i64(n int64) string { return fmt.Sprint(n) }

// ClauseText reads a collision's clauses as words, comma-separated.
func ClauseText(cs []string) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = ClauseLabel(c)
	}
	return strings.Join(out, ", ")
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

// PathSegments splits a path after each slash: "/a/b" is "/", "a/", "b".
// Joined, the segments are the path again.
func PathSegments(p string) []string {
	var out []string
	for p != "" {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			out = append(out, p)
			break
		}
		out = append(out, p[:i+1])
		p = p[i+1:]
	}
	return out
}

// PathText writes a path, escaped, with a line-break opportunity (<wbr>)
// after each slash, so a narrow cell wraps it between segments rather than
// inside a name. It is written in Go because templ would put a space
// between the segments.
func PathText(p string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		for i, seg := range PathSegments(p) {
			if i > 0 {
				if _, err := io.WriteString(w, "<wbr>"); err != nil {
					return err
				}
			}
			if _, err := io.WriteString(w, templ.EscapeString(seg)); err != nil {
				return err
			}
		}
		return nil
	})
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
