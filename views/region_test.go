package views

import (
	"bytes"
	"context"
	"hash/fnv"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"github.com/hall-dev/hall/internal/contract"
)

// regionModel is a Hall with three rows, two of them colliding.
func regionModel() Hall {
	p := func(id, agent string) contract.Presence {
		return contract.Presence{PresenceID: id, AgentID: agent, Brain: "/srv/shop", Worktree: "/srv/shop-wt",
			WorkingSet: []string{"src"}, Touched: []contract.Touch{}, MutationLevel: contract.LevelObserved, FirstSeenMs: 1000, LastBeatMs: 2000}
	}
	c := contract.Collision{CollisionID: "prs_a~prs_b", Brain: "/srv/shop", Place: "/srv/shop-wt",
		A: contract.Side{PresenceID: "prs_a", AgentID: "a"}, B: contract.Side{PresenceID: "prs_b", AgentID: "b"},
		Clauses: []string{contract.ClauseWorktree}, Paths: []string{}}
	h := Hall{
		Brain: "/srv/shop",
		Data: contract.PresencesResponse{Presences: []contract.Presence{p("prs_a", "a"), p("prs_b", "b"), p("prs_c", "c")},
			Collisions: []contract.Collision{c}, CollisionsTotal: 1},
		Brains: []BrainCount{{Brain: "/srv/shop", Live: 3, Collisions: 1}},
		Recent: RecentEvents{Lines: []contract.Line{{Type: contract.LineJoin, EventID: "1", AtMs: 1000, Presence: &contract.Presence{AgentID: "a", Brain: "/srv/shop"}}}},
		Opened: map[string]contract.Opened{c.CollisionID: {AtMs: 1500, Seen: true}},
	}
	h.Title = Title(h)
	return h
}

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var b strings.Builder
	if err := c.Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRenderRegion: a region rendered for the live page is the region as
// the page holds it, its root marked with the hash of those bytes; rows a
// page has lose their cells and keep their opening tag; a whole page
// carries no mark.
func TestRenderRegion(t *testing.T) {
	h := regionModel()
	regions := map[string]templ.Component{
		"banner":     Banner(h),
		"strip":      Strip(h),
		"drill":      Drill(h.Data, h.CollidingSet()),
		"recent":     Recent(h.Recent, 0),
		"collisions": CollisionList(h),
		"roster":     Roster(h),
		"picker":     Picker(h.Brain, h.Brains),
	}
	for name, c := range regions {
		t.Run(name, func(t *testing.T) {
			plain := render(t, c)
			rg, err := RenderRegion(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			f := fnv.New64a()
			_, _ = io.WriteString(f, plain)
			if want := strconv.FormatUint(f.Sum64(), 36); rg.Hash != want {
				t.Errorf("hash: got %s, want %s (the region's bytes)", rg.Hash, want)
			}
			doc, err := goquery.NewDocumentFromReader(bytes.NewReader(rg.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			root := doc.Find("body > *")
			if root.Length() != 1 || root.AttrOr("data-region", "") != name || root.AttrOr("data-hash", "") != rg.Hash {
				t.Fatalf("root: %d elements, region %q, hash %q; want one, %q, %q", root.Length(), root.AttrOr("data-region", ""), root.AttrOr("data-hash", ""), name, rg.Hash)
			}
			if n := doc.Find("[data-hash]").Length(); n != 1 {
				t.Errorf("%d elements marked, want the root alone", n)
			}
			if got := strings.Replace(string(rg.Bytes()), ` data-hash="`+rg.Hash+`"`, "", 1); got != plain {
				t.Errorf("the region written differs from the region hashed beyond its mark:\n got %s\nwant %s", got, plain)
			}
			var all bytes.Buffer
			if err := rg.WriteWithout(&all, nil); err != nil || !bytes.Equal(all.Bytes(), rg.Bytes()) {
				t.Errorf("with nothing had: got %s, want the region whole", all.String())
			}
		})
	}
	if page := render(t, HallPage(h)); strings.Contains(page, "data-hash") {
		t.Error("the whole page carries region hashes: only a fragment is marked")
	}
}

// TestRegionWithoutRowsHad: the rows whose signature a page has are sent
// as their opening tag alone, the others whole, in their order.
func TestRegionWithoutRowsHad(t *testing.T) {
	h := regionModel()
	rg, err := RenderRegion(context.Background(), Roster(h))
	if err != nil {
		t.Fatal(err)
	}
	sigs := map[string]string{}
	for _, p := range h.Data.Presences {
		sigs[p.PresenceID] = PresenceSig(p, h.CollidingSet()[p.PresenceID])
	}
	for _, tt := range []struct {
		have  []string
		bared []string // presence ids sent without cells
	}{
		{nil, nil},
		{[]string{sigs["prs_b"]}, []string{"prs_b"}},
		{[]string{sigs["prs_a"], sigs["prs_c"], "unknown"}, []string{"prs_a", "prs_c"}},
		{[]string{rg.Hash}, nil}, // a region's hash is no row's
	} {
		have := map[string]bool{}
		for _, s := range tt.have {
			have[s] = true
		}
		var out bytes.Buffer
		if err := rg.WriteWithout(&out, have); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(&out)
		if err != nil {
			t.Fatal(err)
		}
		var order, bared []string
		doc.Find(`tr[data-testid="roster-row"]`).Each(func(_ int, s *goquery.Selection) {
			id := s.AttrOr("data-presence-id", "")
			order = append(order, id)
			if s.AttrOr("data-h", "") != sigs[id] {
				t.Errorf("have %v: row %s lost its signature", tt.have, id)
			}
			switch s.Children().Length() {
			case 0:
				bared = append(bared, id)
			case 11:
			default:
				t.Errorf("have %v: row %s has %d cells, want 11 or none", tt.have, id, s.Children().Length())
			}
		})
		if strings.Join(order, " ") != "prs_a prs_b prs_c" || strings.Join(bared, " ") != strings.Join(tt.bared, " ") {
			t.Errorf("have %v: rows %v, without cells %v; want prs_a prs_b prs_c, %v", tt.have, order, bared, tt.bared)
		}
		if doc.Find(`[data-testid="roster-body"]`).Length() != 1 || doc.Find("thead th").Length() != 11 {
			t.Errorf("have %v: the table around the rows is not whole", tt.have)
		}
	}
}

// TestRenderRegionNeedsOneBody: a component whose root holds no
// regionBody, or two, cannot be marked, and says so rather than sending a
// region unmarked or twice over.
func TestRenderRegionNeedsOneBody(t *testing.T) {
	twice := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		for range 2 {
			if err := regionBody().Render(templ.WithChildren(ctx, templ.Raw("<p>x</p>")), w); err != nil {
				return err
			}
		}
		return nil
	})
	for name, c := range map[string]templ.Component{"none": templ.Raw(`<div data-region="x"></div>`), "two": twice} {
		if _, err := RenderRegion(context.Background(), c); err == nil {
			t.Errorf("%s: rendered", name)
		}
	}
}
