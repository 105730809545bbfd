package main

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// TestSurfacesShowTheContractsVerdicts: the page, the stream `hall watch`
// follows, north and the cockpit name the same collisions as GET
// /api/presences, whatever the predicate decides: a shared caller_root, a
// shared worktree, declared working sets, a pair only one of which
// mutates, a declared reader beside a writer, an agent twice on one
// brain, and a lone writer.
func TestSurfacesShowTheContractsVerdicts(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	shop := filepath.Join(t.TempDir(), "shop")
	if err := os.Mkdir(shop, 0o755); err != nil {
		t.Fatal(err)
	}
	now := nowMs()
	rec := func(agent string, opts ...presencetest.Option) presence.Record {
		return presencetest.Rec(agent, shop, append(opts, presencetest.At(now), presencetest.TTL(10*60*1000))...)
	}
	mutate := []presencetest.Option{presencetest.Intent("mutate"), presencetest.Observed(1)}
	wt := func(name string) string { return filepath.Join(shop, name) }
	records := []presence.Record{
		rec("root-a", append(mutate, presencetest.CallerRoot(wt("wt-1")))...),
		rec("root-b", append(mutate, presencetest.CallerRoot(wt("wt-1")))...),
		rec("tree-a", append(mutate, presencetest.Worktree(wt("wt-2")))...),
		rec("tree-b", append(mutate, presencetest.Worktree(wt("wt-2")))...),
		rec("ws-a", append(mutate, presencetest.CallerRoot(wt("wt-3")), presencetest.WS(wt("lib/x.go")))...),
		rec("ws-b", append(mutate, presencetest.CallerRoot(wt("wt-4")), presencetest.WS(wt("lib/x.go")))...),
		rec("quiet", presencetest.NoMutation(), presencetest.CallerRoot(wt("wt-5"))),
		rec("loud", append(mutate, presencetest.CallerRoot(wt("wt-5")))...),
		rec("reader", presencetest.Intent("read"), presencetest.Worktree(wt("wt-6"))),
		rec("writer", append(mutate, presencetest.Worktree(wt("wt-6")))...),
		rec("alone", append(mutate, presencetest.CallerRoot(wt("wt-7")))...),
	}
	// One agent twice on one brain: two records, the second under another
	// id (a caller that named the brain another way), in one worktree.
	twice := rec("twice", append(mutate, presencetest.Worktree(wt("wt-8")))...)
	again := twice
	again.PresenceID = "prs_0123456789ab"
	records = append(records, twice)
	for _, r := range records {
		dirstoretest.Upsert(t, m.Config.RegistryRoot, r)
	}
	dirstoretest.Upsert(t, m.Config.RegistryRoot, again)
	var roster contract.PresencesResponse
	eventually.True(t, wait, "the roster to be served", func() bool {
		roster = contractNow(t, m.URL()+"/api/presences")
		return len(roster.Presences) >= len(records)
	})
	var want []string
	for _, c := range roster.Collisions {
		want = append(want, c.CollisionID)
	}
	slices.Sort(want)
	if len(want) < 3 || len(want) != roster.CollisionsTotal {
		t.Fatalf("the contract lists %v of %d: want the three shared places at least, all listed", want, roster.CollisionsTotal)
	}

	// The stream hall watch follows: its view of the first snapshot.
	f := streamtest.Follow(t, m.URL()+"/api/presences/stream", "")
	f.UntilView(t, "the roster on the stream", func(r contract.PresencesResponse) bool { return len(r.Presences) == len(roster.Presences) })
	if got := collisionIDs(f.Response().Collisions); !slices.Equal(got, want) {
		t.Errorf("stream (hall watch): got %v, want the contract's %v", got, want)
	}

	// The page.
	status, _, body := get(t, m.URL()+"/", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /: %d", status)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var page []string
	doc.Find(`[data-testid="collision"]`).Each(func(_ int, s *goquery.Selection) { // a card a place, its pairs listed
		page = append(page, strings.Fields(s.AttrOr("data-pairs", ""))...)
	})
	slices.Sort(page)
	if !slices.Equal(page, want) {
		t.Errorf("page: got %v, want the contract's %v", page, want)
	}

	// North, for every presence: its collisions are the contract's pairs
	// it is a side of.
	for _, p := range roster.Presences {
		n := 0
		for _, id := range want {
			if a, b, _ := strings.Cut(id, "~"); a == p.PresenceID || b == p.PresenceID {
				n++
			}
		}
		var north contract.NorthResponse
		if got := getJSON(t, m.URL()+"/api/north?presence_id="+url.QueryEscape(p.PresenceID), &north); got != http.StatusOK {
			t.Fatalf("north of %s: %d", p.AgentID, got)
		}
		lines := 0
		for _, l := range north.North {
			if strings.HasPrefix(l, "collision: ") {
				lines++
			}
		}
		if north.CollisionsTotal != n || lines != n {
			t.Errorf("north of %s: %d collisions in %d lines, want the contract's %d", p.AgentID, north.CollisionsTotal, lines, n)
		}
	}

	// The cockpit's root line counts them.
	_, _, cockpit := get(t, m.URL()+"/api/cockpit", nil)
	if w := fmt.Sprintf("⚠ %d collisions", len(want)); !strings.Contains(cockpit, w) {
		t.Errorf("cockpit: no %q in\n%s", w, cockpit)
	}
}

func collisionIDs(cs []contract.Collision) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.CollisionID)
	}
	slices.Sort(out)
	return out
}
