package views

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hall-dev/hall/internal/contract"
)

// The collision list shows one card per place, not one per pair: three
// agents in one worktree are three pairs and one thing to sort out, and a
// session and its subagent that both collide with a third agent are one
// partner of it (as contract.NorthLines tells an agent). A card names every
// team at the place, each with the files its agents changed and when.

// PlaceCard is the collisions that share one place on one brain.
type PlaceCard struct {
	Key     string   // the card's key on the page: its brain and place
	Brain   string   // the brain the place is on
	Place   string   // the shared worktree, caller root or path
	Pairs   []string // the collision ids it gathers, in the contract's order
	Clauses []string // every clause that matched, once each, in first-seen order
	Paths   []string // every overlapping path, once each
	Teams   []CardTeam
}

// CardTeam is a session and those of its subagents that collide here:
// one partner, its session first.
type CardTeam struct {
	Members []CardMember
}

// CardMember is one presence at a place: the roster's record of it when
// the roster has it, else only what the collision's side names.
type CardMember struct {
	contract.Presence
	Sub       bool // a subagent of the team's session
	Colliding bool // a side of one of the card's collisions (a session may be here only for its subagent)
}

// PlaceCards is the collision list's cards: Cards, or gathered from Data
// when nil.
func (h Hall) PlaceCards() []PlaceCard {
	if h.Cards == nil {
		return PlaceCards(h.Data.Collisions, h.Data.Presences)
	}
	return h.Cards
}

// CollisionWarning is the strip's warning for the scope (CollisionWarningAt).
func (h Hall) CollisionWarning() string {
	cards := h.PlaceCards()
	total := h.CollisionsTotal()
	return CollisionWarningAt(total, len(cards), PairsIn(cards) >= total)
}

// CollisionWarningTitle says what the strip's collision count counts.
func (h Hall) CollisionWarningTitle() string {
	return CollisionCountTitle(h.PlaceCards(), h.CollisionsTotal()) + "; a collision is a pair of agents"
}

// CardTeamsShown is how many teams a card lists before "+N more agents
// here": a crowded worktree is one card, and its card stays a card.
const CardTeamsShown = 8

// TeamsShownOf is the teams a card lists.
func TeamsShownOf(ts []CardTeam) []CardTeam {
	if len(ts) > CardTeamsShown {
		return ts[:CardTeamsShown]
	}
	return ts
}

// CardFilesShown is how many changed files a card lists for each agent
// before "+N more".
const CardFilesShown = 4

// PlaceCards gathers cs into cards, one per brain and place, in the order
// each place first appears (the contract's: by the sides' presence ids).
// Each card's teams come by their sessions' names. ps is the
// roster: it gives each side its changed files and its session. Bounded
// by len(cs) + len(ps).
func PlaceCards(cs []contract.Collision, ps []contract.Presence) []PlaceCard {
	if len(cs) == 0 {
		return nil
	}
	byID := make(map[string]*contract.Presence, len(ps))
	for i := range ps {
		byID[ps[i].PresenceID] = &ps[i]
	}
	idx := map[[2]string]int{}
	var bs []*building
	for _, c := range cs {
		k := [2]string{c.Brain, c.Place}
		i, ok := idx[k]
		if !ok {
			i = len(bs)
			idx[k] = i
			bs = append(bs, &building{
				card:    PlaceCard{Key: "place " + c.Brain + " " + c.Place, Brain: c.Brain, Place: c.Place},
				clauses: map[string]bool{}, paths: map[string]bool{},
				team: map[string]int{}, member: map[string]bool{},
			})
		}
		b := bs[i]
		b.card.Pairs = append(b.card.Pairs, c.CollisionID)
		for _, cl := range c.Clauses {
			if !b.clauses[cl] {
				b.clauses[cl] = true
				b.card.Clauses = append(b.card.Clauses, cl)
			}
		}
		for _, p := range c.Paths {
			if !b.paths[p] {
				b.paths[p] = true
				b.card.Paths = append(b.card.Paths, p)
			}
		}
		for _, s := range []contract.Side{c.A, c.B} {
			b.add(s, byID)
		}
	}
	out := make([]PlaceCard, len(bs))
	for i, b := range bs {
		// By name, as a person looks one up: the contract's order is the
		// presence ids', which reads as no order at all.
		slices.SortStableFunc(b.card.Teams, func(x, y CardTeam) int {
			return cmp.Compare(x.Members[0].AgentID, y.Members[0].AgentID)
		})
		out[i] = b.card
	}
	return out
}

// building is a card while PlaceCards gathers it.
type building struct {
	card    PlaceCard
	clauses map[string]bool
	paths   map[string]bool
	team    map[string]int  // team id → index in card.Teams
	member  map[string]bool // presence ids placed
}

// add places a collision's side on its card, in its team: a subagent
// under its session (the session named first even when only the subagent
// collides), a presence seen before marked colliding.
func (b *building) add(s contract.Side, byID map[string]*contract.Presence) {
	p := contract.Presence{PresenceID: s.PresenceID, AgentID: s.AgentID, Theme: s.Theme}
	if r, ok := byID[s.PresenceID]; ok {
		p = *r
	}
	if b.member[p.PresenceID] {
		b.markColliding(p.PresenceID)
		return
	}
	team := p.PresenceID
	parent, hasParent := (*contract.Presence)(nil), false
	if p.ParentPresenceID != "" && p.ParentPresenceID != p.PresenceID {
		team = p.ParentPresenceID
		parent, hasParent = byID[p.ParentPresenceID]
	}
	ti, ok := b.team[team]
	if !ok {
		ti = len(b.card.Teams)
		b.team[team] = ti
		b.card.Teams = append(b.card.Teams, CardTeam{})
		if hasParent && !b.member[parent.PresenceID] {
			b.member[parent.PresenceID] = true
			b.card.Teams[ti].Members = append(b.card.Teams[ti].Members, CardMember{Presence: *parent})
		}
	}
	b.member[p.PresenceID] = true
	m := CardMember{Presence: p, Sub: team != p.PresenceID, Colliding: true}
	t := &b.card.Teams[ti]
	if !m.Sub {
		// The session leads its team, ahead of a subagent placed first.
		t.Members = append([]CardMember{m}, t.Members...)
		return
	}
	t.Members = append(t.Members, m)
}

func (b *building) markColliding(id string) {
	for ti := range b.card.Teams {
		for mi := range b.card.Teams[ti].Members {
			if b.card.Teams[ti].Members[mi].PresenceID == id {
				b.card.Teams[ti].Members[mi].Colliding = true
			}
		}
	}
}

// Agents names a card's teams by their sessions: "a and b", "a, b and c".
func (c PlaceCard) Agents() string {
	names := make([]string, len(c.Teams))
	for i, t := range c.Teams {
		names[i] = t.Members[0].AgentID
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	out := names[0]
	for _, n := range names[1 : len(names)-1] {
		out += ", " + n
	}
	return out + " and " + names[len(names)-1]
}

// Opened is when the card's place first collided: the earliest opening
// among its pairs the Hall knows of.
func (c PlaceCard) Opened(opened map[string]contract.Opened) (contract.Opened, bool) {
	var first contract.Opened
	found := false
	for _, id := range c.Pairs {
		if o, ok := opened[id]; ok && (!found || o.AtMs < first.AtMs) {
			first, found = o, true
		}
	}
	return first, found
}

// CardsShownOf is the cards the list shows, at most CollisionsShown.
func CardsShownOf(cards []PlaceCard) []PlaceCard {
	if len(cards) > CollisionsShown {
		return cards[:CollisionsShown]
	}
	return cards
}

// CardFiles is the files a card lists for one member, newest first, and
// how many more it changed.
func CardFiles(p contract.Presence) ([]contract.Touch, int64) {
	t := p.Touched
	more := p.TouchedOmitted
	if len(t) > CardFilesShown {
		more += int64(len(t) - CardFilesShown)
		t = t[:CardFilesShown]
	}
	return t, more
}

// PairsIn is how many collisions the cards gather.
func PairsIn(cards []PlaceCard) int {
	n := 0
	for _, c := range cards {
		n += len(c.Pairs)
	}
	return n
}

// CollisionCountTitle explains the list's count: places, each gathering
// one or more collisions.
func CollisionCountTitle(cards []PlaceCard, total int) string {
	t := Plural(len(cards), "place", "places") + " where agents collide: " + Plural(PairsIn(cards), "collision", "collisions") + " listed"
	if total > PairsIn(cards) {
		t += " of " + itoa(total)
	}
	return t
}

// CardsMore is the line under the cards: the places not shown, and the
// collisions the contract counted but did not list ("" when none).
func CardsMore(cards []PlaceCard, shown, total int) string {
	var parts []string
	if n := len(cards) - shown; n > 0 {
		parts = append(parts, "+"+Plural(n, "more place", "more places"))
	}
	if n := total - PairsIn(cards); n > 0 {
		parts = append(parts, "+"+Plural(n, "more collision", "more collisions")+" not listed")
	}
	return strings.Join(parts, " · ")
}

// JoinSpace joins ids with spaces, for an attribute that lists them.
func JoinSpace(ids []string) string { return strings.Join(ids, " ") }
