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
//
// The page models are in model.go; the roster's order and its links in
// roster.go; the words the page writes, by what they render, in text_*.go
// (times, counts, paths, a presence's cells, collisions, recent events);
// the collision cards in cards.go, the overlaps in overlaps.go.
package views

import (
	"fmt"

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
	// RemotesFailing are the watched remotes whose last look failed
	// (hall.Hall.RemotesFailing): the pushed work there is not seen.
	RemotesFailing []contract.HealthRemote
	// Host is this Hall's host name (hall.Hall.Host); a row names a
	// record's host when it is another (OtherHost).
	Host string
}

// OtherHost is the host of a presence's record when it is not this
// Hall's, and "" when it is (or either is not known): an agent on
// another machine, reported by that machine's Hall over a shared store.
func (h Hall) OtherHost(p contract.Presence) string {
	if p.Host == "" || h.Host == "" || p.Host == h.Host {
		return ""
	}
	return p.Host
}

// CollidingSet is the presence ids that are a side of a live collision.
func (h Hall) CollidingSet() map[string]bool {
	if h.Sides == nil {
		return contract.Colliding(h.Data.Collisions)
	}
	return h.Sides
}

// CollisionsTotal is how many collisions are open in scope, listed or not:
// the contract lists at most the Hall's --max-collisions on each brain and
// counts them all (collisions_total).
func (h Hall) CollisionsTotal() int {
	return max(h.Total, h.Data.CollisionsTotal, len(h.Data.Collisions))
}

// LossesShown bounds the losses the page lists.
const LossesShown = 10

// RecentEvents is the Recent panel: the newest lines about the scope, how
// many more the Hall holds, and how many it keeps at most.
type RecentEvents struct {
	Lines   []contract.Line
	LeftOut int
	Kept    int
	AllURL  string // GET /api/events for the scope, every line kept
}

// NotFound is the model of a page for a brain the Hall does not know, or a
// brain parameter it cannot read.
type NotFound struct {
	Page
	Heading string
	Detail  string
	Brains  []BrainCount
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
