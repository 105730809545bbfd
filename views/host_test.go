package views

import (
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/hall-dev/hall/internal/contract"
)

// TestRosterRowNamesAnotherMachine: a record beaten on another machine's
// Hall says its host in the row; one of this Hall's, or with no host
// known, says nothing more.
func TestRosterRowNamesAnotherMachine(t *testing.T) {
	for _, c := range []struct {
		name, here, there, want string
	}{
		{"another machine", "alpha", "bravo", "on bravo"},
		{"this machine", "alpha", "alpha", ""},
		{"no host here", "", "bravo", ""},
		{"no host on the record", "alpha", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := contract.Presence{PresenceID: "prs_a", AgentID: "claude-1", Brain: "/src/shop", Host: c.there, MutationLevel: contract.LevelObserved}
			h := Hall{Host: c.here, Data: contract.PresencesResponse{Presences: []contract.Presence{p}}}
			var b strings.Builder
			if err := Roster(h).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(doc.Find(`[data-testid="roster-host"]`).Text()); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
