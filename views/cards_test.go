package views

import (
	"slices"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
)

// TestPlaceCards: one card per brain and place, every team on it once, a
// session and its subagent one team (the session first, even when only
// the subagent collides), each member with its roster record; the banner
// names the first place's teams and counts the other places.
func TestPlaceCards(t *testing.T) {
	const b, wt = "/r/shop", "/r/shop-wt"
	ps := []contract.Presence{
		{PresenceID: "a", AgentID: "claude-a", Touched: []contract.Touch{{Path: wt + "/cart.go", AtMs: 5}}},
		{PresenceID: "b", AgentID: "codex-b"},
		{PresenceID: "c", AgentID: "gemini-c"},
		{PresenceID: "s", AgentID: "claude-s"},
		{PresenceID: "sub", AgentID: "task-sub", ParentPresenceID: "s"},
		{PresenceID: "x", AgentID: "other-x"},
	}
	side := func(id string) contract.Side {
		for _, p := range ps {
			if p.PresenceID == id {
				return contract.Side{PresenceID: id, AgentID: p.AgentID}
			}
		}
		return contract.Side{PresenceID: id, AgentID: "gone-" + id}
	}
	pair := func(a, b2, brain, place string, clauses ...string) contract.Collision {
		return contract.Collision{CollisionID: a + "~" + b2, Brain: brain, A: side(a), B: side(b2), Place: place, Clauses: clauses}
	}
	// team lists a card's teams as "agent,agent" per team, "*" after a
	// member that does not collide itself, "^" after a subagent.
	team := func(c PlaceCard) []string {
		var out []string
		for _, t := range c.Teams {
			var ms []string
			for _, m := range t.Members {
				n := m.AgentID
				if m.Sub {
					n += "^"
				}
				if !m.Colliding {
					n += "*"
				}
				ms = append(ms, n)
			}
			out = append(out, strings.Join(ms, ","))
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		cs     []contract.Collision
		want   [][]string // per card, its teams
		pairs  []int      // per card, how many collisions it gathers
		names  []string   // per card, Agents()
		banner string
	}{
		{"none", nil, nil, nil, nil, ""},
		{"three agents in one worktree: one card",
			[]contract.Collision{pair("a", "b", b, wt, "same_worktree"), pair("a", "c", b, wt, "same_worktree"), pair("b", "c", b, wt, "same_worktree")},
			[][]string{{"claude-a", "codex-b", "gemini-c"}}, []int{3}, []string{"claude-a, codex-b and gemini-c"}, "claude-a, codex-b and gemini-c are all mutating in " + wt},
		{"a session and its subagent against one agent: one card, two teams",
			[]contract.Collision{pair("s", "x", b, wt, "same_worktree"), pair("sub", "x", b, wt, "same_worktree")},
			[][]string{{"claude-s,task-sub^", "other-x"}}, []int{2}, []string{"claude-s and other-x"}, "claude-s and other-x are both mutating in " + wt},
		{"only the subagent collides: its session leads the team",
			[]contract.Collision{pair("sub", "x", b, wt, "same_worktree")},
			[][]string{{"claude-s*,task-sub^", "other-x"}}, []int{1}, []string{"claude-s and other-x"}, "claude-s and other-x are both mutating in " + wt},
		{"two places, two brains: three cards in first-seen order",
			[]contract.Collision{pair("a", "b", b, wt, "same_worktree"), pair("a", "c", b, b+"/go.mod", "working_set_overlap"), pair("b", "c", "/r/other", wt, "same_worktree")},
			[][]string{{"claude-a", "codex-b"}, {"claude-a", "gemini-c"}, {"codex-b", "gemini-c"}}, []int{1, 1, 1}, nil, "claude-a and codex-b are both mutating in " + wt + " (and 2 more places)"},
		{"teams by name, whatever the sides' order",
			[]contract.Collision{pair("x", "a", b, wt, "same_worktree")},
			[][]string{{"claude-a", "other-x"}}, []int{1}, nil, "claude-a and other-x are both mutating in " + wt},
		{"a side the roster lacks keeps the collision's name",
			[]contract.Collision{pair("a", "q", b, wt, "same_worktree")},
			[][]string{{"claude-a", "gone-q"}}, []int{1}, nil, "claude-a and gone-q are both mutating in " + wt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cards := PlaceCards(tc.cs, ps)
			if got := BannerText(cards); got != tc.banner {
				t.Errorf("banner: got %q, want %q", got, tc.banner)
			}
			if len(cards) != len(tc.want) {
				t.Fatalf("got %d cards, want %d", len(cards), len(tc.want))
			}
			for i, c := range cards {
				if got := team(c); !slices.Equal(got, tc.want[i]) {
					t.Errorf("card %d teams: got %v, want %v", i, got, tc.want[i])
				}
				if got := len(c.Pairs); got != tc.pairs[i] {
					t.Errorf("card %d pairs: got %d, want %d", i, got, tc.pairs[i])
				}
				if tc.names != nil && c.Agents() != tc.names[i] {
					t.Errorf("card %d agents: got %q, want %q", i, c.Agents(), tc.names[i])
				}
			}
		})
	}
}

func TestCardsMore(t *testing.T) {
	cards := make([]PlaceCard, 22)
	for i := range cards {
		cards[i].Pairs = []string{"p"}
	}
	for _, tc := range []struct {
		shown, total int
		want         string
	}{
		{22, 22, ""},
		{20, 22, "+2 more places"},
		{22, 25, "+3 more collisions not listed"},
		{20, 23, "+2 more places · +1 more collision not listed"},
	} {
		if got := CardsMore(cards, tc.shown, tc.total); got != tc.want {
			t.Errorf("CardsMore(shown %d, total %d) = %q, want %q", tc.shown, tc.total, got, tc.want)
		}
	}
}

func TestCardFilesAndOpened(t *testing.T) {
	p := contract.Presence{TouchedOmitted: 2}
	for i := range 6 {
		p.Touched = append(p.Touched, contract.Touch{Path: "/w/f" + itoa(i), AtMs: int64(10 - i)})
	}
	files, more := CardFiles(p)
	if len(files) != CardFilesShown || files[0].Path != "/w/f0" || more != 4 {
		t.Errorf("CardFiles: got %d files from %q, %d more; want %d from /w/f0, 4 more", len(files), files[0].Path, more, CardFilesShown)
	}
	c := PlaceCard{Pairs: []string{"x", "y", "z"}}
	o, ok := c.Opened(map[string]contract.Opened{"y": {AtMs: 7, Seen: true}, "z": {AtMs: 3}})
	if !ok || o.AtMs != 3 || o.Seen {
		t.Errorf("Opened: got %+v %t, want the earliest, at 3, not seen", o, ok)
	}
	if _, ok := c.Opened(nil); ok {
		t.Error("Opened with nothing known: got ok")
	}
}
