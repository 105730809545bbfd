package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/static"
)

// pageHall is the page and its assets served over a real sidecar store
// (dirstore) in a temp dir, behind the security middleware, as cmd/hall
// routes them.
type pageHall struct {
	root  string
	svc   *presence.Service
	clock *presencetest.Clock
	srv   *httptest.Server
}

func newPageHall(t *testing.T, brains ...string) *pageHall {
	t.Helper()
	store := dirstoretest.Open(t)
	root := filepath.Dir(store.Dir())
	clock := presencetest.NewClock(presencetest.T0)
	svc := presence.NewService(store, presence.Config{Now: clock.Now, Brains: brains, Logger: slog.New(slog.DiscardHandler)})
	h := &Handler{App: &hall.Hall{Service: svc}, StoreKind: "dir", StartedAt: clock.Now(), Log: slog.New(slog.DiscardHandler),
		Page: PageConfig{Silence: 4 * time.Second, Poll: 500 * time.Millisecond, Retry: time.Second}}
	srv := httptest.NewServer(SecurityHeaders(mountRoutes(h)))
	t.Cleanup(srv.Close)
	return &pageHall{root: root, svc: svc, clock: clock, srv: srv}
}

// beat takes one beat through the service; tool "Edit" makes it mutate.
func (ph *pageHall) beat(t *testing.T, b presence.Beat) string {
	t.Helper()
	res, err := ph.svc.Beat(context.Background(), b)
	if err != nil {
		t.Fatalf("beat %s: %v", b.AgentID, err)
	}
	return res.PresenceID
}

// page GETs the page (query may be "") and parses it.
func (ph *pageHall) page(t *testing.T, query string) (*http.Response, string, *goquery.Document) {
	t.Helper()
	resp, err := http.Get(ph.srv.URL + "/" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body), doc
}

func byID(s *goquery.Selection, id string) *goquery.Selection {
	return s.Find(`[data-testid="` + id + `"]`)
}

// text is the selection's text with whitespace collapsed, as a person reads it.
func text(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

const (
	shop     = "/srv/hall-test/shop"
	payments = "/srv/hall-test/payments"
)

func TestPageStrip(t *testing.T) {
	tests := []struct {
		name      string
		beats     []presence.Beat
		query     string
		rootLine  string
		warning   string // "" when none must show
		drillRows int
	}{
		{
			name:     "empty",
			rootLine: "0 agents · all brains",
		},
		{
			name: "one agent",
			beats: []presence.Beat{
				{AgentID: "claude-7", Brain: shop, Worktree: shop + "-wt2", Theme: "checkout", Tool: "Edit"},
			},
			rootLine:  "1 agent · all brains",
			drillRows: 1,
		},
		{
			name: "same brain, separate worktrees: no warning",
			beats: []presence.Beat{
				{AgentID: "claude-7", Brain: shop, Worktree: shop + "-wt2", Tool: "Edit"},
				{AgentID: "codex-2", Brain: shop, Worktree: shop + "-wt3", Tool: "Edit"},
				{AgentID: "m1nd", Brain: payments, Worktree: payments, DeclaredIntent: "migrate"},
			},
			rootLine:  "3 agents · all brains",
			drillRows: 3,
		},
		{
			name: "collision rides the label",
			beats: []presence.Beat{
				{AgentID: "claude-7", Brain: shop, Worktree: shop + "-wt2", Tool: "Edit"},
				{AgentID: "codex-2", Brain: shop, Worktree: shop + "-wt2", Tool: "Write"},
				{AgentID: "m1nd", Brain: payments, Worktree: payments},
			},
			rootLine:  "3 agents · all brains · ⚠ 1 collision",
			warning:   "⚠ 1 collision",
			drillRows: 3,
		},
		{
			name: "this brain",
			beats: []presence.Beat{
				{AgentID: "claude-7", Brain: shop, Worktree: shop + "-wt2", Tool: "Edit"},
				{AgentID: "codex-2", Brain: shop, Worktree: shop + "-wt2", Tool: "Write"},
				{AgentID: "m1nd", Brain: payments, Worktree: payments},
			},
			query:     "?brain=" + url.QueryEscape(shop),
			rootLine:  "2 agents · this brain · ⚠ 1 collision",
			warning:   "⚠ 1 collision",
			drillRows: 2,
		},
		{
			name: "this brain, the collision is elsewhere",
			beats: []presence.Beat{
				{AgentID: "claude-7", Brain: shop, Worktree: shop + "-wt2", Tool: "Edit"},
				{AgentID: "codex-2", Brain: shop, Worktree: shop + "-wt2", Tool: "Write"},
				{AgentID: "m1nd", Brain: payments, Worktree: payments},
			},
			query:     "?brain=" + url.QueryEscape(payments),
			rootLine:  "1 agent · this brain",
			drillRows: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ph := newPageHall(t, shop, payments)
			for _, b := range tt.beats {
				ph.beat(t, b)
			}
			resp, _, doc := ph.page(t, tt.query)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status: got %d, want 200", resp.StatusCode)
			}
			strip := byID(doc.Selection, "strip")
			if strip.Length() != 1 {
				t.Fatalf("strip: got %d, want 1", strip.Length())
			}
			if got := byID(strip, "root-line").Length(); got != 1 {
				t.Fatalf("root lines: got %d, want ONE", got)
			}
			if got := text(byID(strip, "root-line")); got != tt.rootLine {
				t.Errorf("root line: got %q, want %q", got, tt.rootLine)
			}
			warn := byID(byID(strip, "scope-label"), "collision-warning")
			if got := text(warn); got != tt.warning {
				t.Errorf("warning on the scope label: got %q, want %q", got, tt.warning)
			}
			if got, want := strip.HasClass("has-collision"), tt.warning != ""; got != want {
				t.Errorf("strip has-collision: got %v, want %v", got, want)
			}
			banner := byID(doc.Selection, "collision-banner")
			if _, hidden := banner.Attr("hidden"); hidden != (tt.warning == "") {
				t.Errorf("banner hidden: got %v, want %v", hidden, tt.warning == "")
			}
			if got := byID(strip, "drill-row").Length(); got != tt.drillRows {
				t.Errorf("drill rows: got %d, want %d", got, tt.drillRows)
			}
			_, emptyHidden := byID(strip, "drill-empty").Attr("hidden")
			if emptyHidden != (tt.drillRows > 0) {
				t.Errorf("empty drill note hidden: got %v, want %v", emptyHidden, tt.drillRows > 0)
			}
			if wantTitle := tt.rootLine + " — Hall"; text(doc.Find("title")) != wantTitle {
				t.Errorf("title: got %q, want %q", text(doc.Find("title")), wantTitle)
			}
		})
	}
}

func TestPageDrillCap(t *testing.T) {
	ph := newPageHall(t)
	for i := range 8 {
		ph.beat(t, presence.Beat{
			AgentID: fmt.Sprintf("agent-%d", i), Brain: shop,
			Worktree: fmt.Sprintf("%s-wt%d", shop, i), Theme: fmt.Sprintf("theme %d", i),
		})
		ph.clock.Advance(time.Second)
	}
	// Two of the last to arrive collide: they lead the drill.
	ph.beat(t, presence.Beat{AgentID: "agent-6", Brain: shop, Worktree: shop + "-wt7", Tool: "Edit"})
	ph.beat(t, presence.Beat{AgentID: "agent-7", Brain: shop, Tool: "Edit"})

	_, _, doc := ph.page(t, "")
	rows := byID(doc.Selection, "drill-row")
	if rows.Length() != 6 {
		t.Fatalf("drill rows: got %d, want 6 (capped)", rows.Length())
	}
	if got := text(byID(doc.Selection, "drill-more")); got != "+2 more in the roster below" {
		t.Errorf("drill more: got %q", got)
	}
	if _, hidden := byID(doc.Selection, "drill-more").Attr("hidden"); hidden {
		t.Error("drill more is hidden with 8 presences")
	}
	if got := byID(doc.Selection, "roster-row").Length(); got != 8 {
		t.Errorf("roster rows: got %d, want all 8", got)
	}
	var first []string
	rows.Slice(0, 2).Each(func(_ int, s *goquery.Selection) {
		first = append(first, text(byID(s, "drill-agent")))
		if !s.HasClass("colliding") {
			t.Errorf("row %s: not marked colliding", text(byID(s, "drill-agent")))
		}
	})
	if strings.Join(first, ",") != "agent-6,agent-7" {
		t.Errorf("drill leads with: got %v, want the colliding agent-6, agent-7", first)
	}
	// The rest: longest-running first.
	var rest []string
	rows.Slice(2, 6).Each(func(_ int, s *goquery.Selection) { rest = append(rest, text(byID(s, "drill-agent"))) })
	if got, want := strings.Join(rest, ","), "agent-0,agent-1,agent-2,agent-3"; got != want {
		t.Errorf("drill rest: got %s, want %s", got, want)
	}
}

func TestPageDrillRow(t *testing.T) {
	ph := newPageHall(t)
	id := ph.beat(t, presence.Beat{AgentID: "claude-7", Brain: shop, Worktree: "/srv/hall-test/shop-wt2", Theme: "checkout refactor", Tool: "Edit"})
	ph.beat(t, presence.Beat{AgentID: "cursor-1", Brain: shop, CallerRoot: "/srv/hall-test/shop/.worktrees/a/b/review", DeclaredIntent: "mutate"})
	ph.beat(t, presence.Beat{AgentID: "claude-9", Brain: shop})
	ph.clock.Advance(95 * time.Second)

	_, _, doc := ph.page(t, "")
	row := doc.Find(`[data-testid="drill-row"][data-presence-id="` + id + `"]`)
	cells := map[string]string{}
	for _, c := range []string{"drill-agent", "drill-theme", "drill-where", "drill-age", "drill-mutating"} {
		cells[c] = text(byID(row, c))
	}
	want := map[string]string{
		"drill-agent": "claude-7", "drill-theme": "checkout refactor", "drill-where": "shop-wt2",
		"drill-age": "1m", "drill-mutating": "editing",
	}
	for k, w := range want {
		if cells[k] != w {
			t.Errorf("%s: got %q, want %q", k, cells[k], w)
		}
	}
	if got, _ := byID(row, "drill-where").Attr("title"); got != "/srv/hall-test/shop-wt2" {
		t.Errorf("where title: got %q, want the full path", got)
	}
	byAgent := func(a string) *goquery.Selection {
		return byID(doc.Selection, "drill-row").FilterFunction(func(_ int, s *goquery.Selection) bool {
			return text(byID(s, "drill-agent")) == a
		})
	}
	decl := byID(byAgent("cursor-1"), "drill-mutating")
	if got := text(decl); got != "declared: mutate" {
		t.Errorf("declared: got %q", got)
	}
	if lvl, _ := decl.Attr("data-level"); lvl != "declared" {
		t.Errorf("declared level: got %q", lvl)
	}
	if got := text(byID(byAgent("cursor-1"), "drill-where")); got != "…/b/review" {
		t.Errorf("deep caller root: got %q, want …/b/review", got)
	}
	if got := text(byID(byAgent("claude-9"), "drill-where")); got != "shop" {
		t.Errorf("brain as where: got %q, want shop", got)
	}
	if lvl, _ := byID(byAgent("claude-9"), "drill-mutating").Attr("data-level"); lvl != "none" {
		t.Errorf("no mutation: level %q", lvl)
	}
}

func TestPageRosterAndCollisionList(t *testing.T) {
	ph := newPageHall(t)
	a := ph.beat(t, presence.Beat{
		AgentID: "claude-7", Brain: shop, Kind: "executor", Theme: "checkout refactor",
		Worktree: shop + "-wt2", WorkingSet: []string{"src/checkout/", "go.mod", "a", "b", "c"},
		TaskRef: "msn_8c1d2e", Tool: "Edit",
	})
	ph.clock.Advance(30 * time.Second)
	b := ph.beat(t, presence.Beat{
		AgentID: "codex-2", Brain: shop, Kind: "executor", Worktree: shop + "-wt2",
		WorkingSet: []string{"src/checkout/cart.go"}, DeclaredIntent: "mutate",
	})

	_, _, doc := ph.page(t, "")
	if got := text(byID(doc.Selection, "roster-count")); got != "2" {
		t.Errorf("roster count: got %s", got)
	}
	row := doc.Find(`[data-testid="roster-row"][data-presence-id="` + a + `"]`)
	want := map[string]string{
		"roster-agent":      "claude-7",
		"roster-kind":       "executor",
		"roster-theme":      "checkout refactor",
		"roster-brain":      "shop",
		"roster-where":      shop + "-wt2",
		"roster-task":       "msn_8c1d2e",
		"roster-first-seen": "30s ago",
		"roster-last-beat":  "30s ago",
		"roster-mutation":   "editing",
	}
	for k, w := range want {
		if got := text(byID(row, k)); got != w {
			t.Errorf("%s: got %q, want %q", k, got, w)
		}
	}
	var ws []string
	byID(row, "roster-working-set").Find("li").Each(func(_ int, s *goquery.Selection) { ws = append(ws, s.Text()) })
	if got, want := strings.Join(ws, "|"), "src/checkout|go.mod|a"; got != want {
		t.Errorf("working set shown: got %s, want %s", got, want)
	}
	if got := text(byID(row, "roster-working-set").Find(".more")); got != "+2 more" {
		t.Errorf("working set rest: got %q, want +2 more", got)
	}
	if got, _ := byID(row, "roster-brain").Attr("title"); got != shop {
		t.Errorf("brain title: got %q", got)
	}
	rowB := doc.Find(`[data-testid="roster-row"][data-presence-id="` + b + `"]`)
	for k, w := range map[string]string{"roster-theme": "(no theme)", "roster-task": "—", "roster-mutation": "declared: mutate"} {
		if got := text(byID(rowB, k)); got != w {
			t.Errorf("codex-2 %s: got %q, want %q", k, got, w)
		}
	}
	// Roster order: newest beat first.
	if first, _ := byID(doc.Selection, "roster-row").First().Attr("data-presence-id"); first != b {
		t.Errorf("roster starts with %s, want the newest beat %s", first, b)
	}

	cs := byID(doc.Selection, "collision")
	if cs.Length() != 1 {
		t.Fatalf("collisions: got %d, want 1", cs.Length())
	}
	wantC := map[string]string{
		"collision-agents":  "claude-7 and codex-2",
		"collision-place":   shop + "-wt2",
		"collision-brain":   shop,
		"collision-clauses": "same worktree, working sets overlap",
		"collision-paths":   shop + "-wt2/src/checkout/cart.go",
	}
	for k, w := range wantC {
		if got := text(byID(cs, k)); got != w {
			t.Errorf("%s: got %q, want %q", k, got, w)
		}
	}
	if id, _ := cs.Attr("data-pairs"); id != min(a, b)+"~"+max(a, b) {
		t.Errorf("collision pairs: got %q", id)
	}
	var members []string
	byID(cs, "collision-member").Each(func(_ int, s *goquery.Selection) {
		members = append(members, text(byID(s, "member-agent"))+": "+text(byID(s, "member-files")))
	})
	// By name, whichever side of the collision each is.
	if got, want := strings.Join(members, " | "), "claude-7: no changed file seen | codex-2: no changed file seen"; got != want {
		t.Errorf("card members: got %q, want %q", got, want)
	}
	if got := text(byID(doc.Selection, "collision-count")); got != "1" {
		t.Errorf("collision count: got %s", got)
	}
	if _, hidden := byID(doc.Selection, "collisions-empty").Attr("hidden"); !hidden {
		t.Error("the no-collisions note shows beside a collision")
	}
	if got := text(byID(doc.Selection, "banner-text")); !strings.Contains(got, "claude-7") || !strings.Contains(got, shop+"-wt2") {
		t.Errorf("banner: got %q", got)
	}
}

func TestPageBrainPicker(t *testing.T) {
	ph := newPageHall(t, "/srv/hall-test/idle")
	ph.beat(t, presence.Beat{AgentID: "claude-7", Brain: shop, Worktree: shop, Tool: "Edit"})
	ph.beat(t, presence.Beat{AgentID: "codex-2", Brain: shop, Worktree: shop, Tool: "Edit"})
	ph.beat(t, presence.Beat{AgentID: "m1nd", Brain: payments})

	_, _, doc := ph.page(t, "?brain="+url.QueryEscape(payments))
	type item struct{ brain, label, href, live, collisions, current string }
	var got []item
	byID(doc.Selection, "brain-item").Each(func(_ int, s *goquery.Selection) {
		brain, _ := s.Attr("data-brain")
		href, _ := byID(s, "brain-link").Attr("href")
		cur, _ := byID(s, "brain-link").Attr("aria-current")
		got = append(got, item{brain, text(byID(s, "brain-link")), href, text(byID(s, "brain-live")), text(byID(s, "brain-collisions")), cur})
	})
	want := []item{
		{"", "all brains", "/", "3", "⚠ 1", ""},
		{"/srv/hall-test/idle", "idle", "/?brain=%2Fsrv%2Fhall-test%2Fidle", "0", "", ""},
		{payments, "payments", "/?brain=%2Fsrv%2Fhall-test%2Fpayments", "1", "", "page"},
		{shop, "shop", "/?brain=%2Fsrv%2Fhall-test%2Fshop", "2", "⚠ 1", ""},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("picker:\n got %v\nwant %v", got, want)
	}
	// Each deep link opens its brain's page.
	for _, w := range want[1:] {
		resp, _, d := ph.page(t, strings.TrimPrefix(w.href, "/"))
		if resp.StatusCode != 200 || !strings.HasPrefix(text(byID(d.Selection, "scope-label")), "this brain") {
			t.Errorf("deep link %s: status %d, scope %q", w.href, resp.StatusCode, text(byID(d.Selection, "scope-label")))
		}
		if got := text(byID(d.Selection, "scope-brain")); got != w.brain {
			t.Errorf("deep link %s names brain %q", w.href, got)
		}
	}
}

func TestPageEscapesAgentStrings(t *testing.T) {
	hostile := []string{`<script>alert(1)</script>`, `"><img src=x onerror=alert(1)>`}
	ph := newPageHall(t)
	for i, theme := range hostile {
		ph.beat(t, presence.Beat{
			AgentID: fmt.Sprintf(`agent-%d"><b>`, i), Brain: shop, Worktree: shop + `/wt"><svg onload=alert(1)>`,
			Theme: theme, DeclaredIntent: theme, TaskRef: `<i>t</i>`, WorkingSet: []string{`<img src=y>`},
		})
	}
	_, body, doc := ph.page(t, "")
	for _, bad := range []string{"<script>alert", "<img", "<svg", "<b>", "<i>", "onerror=alert(1)>"} {
		if strings.Contains(body, bad) {
			t.Errorf("raw markup %q reached the page", bad)
		}
	}
	if n := doc.Find("img, svg, b, i").Length(); n != 0 {
		t.Errorf("agent strings made %d elements", n)
	}
	scripts := doc.Find("script")
	if scripts.Length() != 1 {
		t.Errorf("scripts: got %d, want only the page's own", scripts.Length())
	}
	scripts.Each(func(_ int, s *goquery.Selection) {
		if src, ok := s.Attr("src"); !ok || !strings.HasPrefix(src, "/static/") || strings.TrimSpace(s.Text()) != "" {
			t.Errorf("script not the embedded file: src %q, body %q", src, s.Text())
		}
	})
	// The hostile strings are there, as text a person can read.
	var themes []string
	byID(doc.Selection, "drill-theme").Each(func(_ int, s *goquery.Selection) { themes = append(themes, s.Text()) })
	for _, h := range hostile {
		found := false
		for _, th := range themes {
			found = found || th == h
		}
		if !found {
			t.Errorf("theme %q not shown as text; drill themes: %q", h, themes)
		}
		if !strings.Contains(text(byID(doc.Selection, "roster")), "declared: "+h) {
			t.Errorf("declared intent %q not shown as text", h)
		}
	}
	// No attribute anywhere runs script: no on* handler, no inline style.
	doc.Find("*").Each(func(_ int, s *goquery.Selection) {
		for _, a := range s.Nodes[0].Attr {
			if strings.HasPrefix(a.Key, "on") || a.Key == "style" {
				t.Errorf("<%s> carries %s=%q", goquery.NodeName(s), a.Key, a.Val)
			}
		}
	})
}

func TestPageUnknownAndBadBrain(t *testing.T) {
	ph := newPageHall(t, shop)
	tests := []struct {
		query   string
		status  int
		heading string
	}{
		{"?brain=" + url.QueryEscape("/srv/nobody/here"), http.StatusNotFound, "The Hall knows no such brain"},
		{"?brain=relative/path", http.StatusBadRequest, "That is not a brain"},
	}
	for _, tt := range tests {
		resp, _, doc := ph.page(t, tt.query)
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status got %d, want %d", tt.query, resp.StatusCode, tt.status)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("%s: content type %q, want the page", tt.query, ct)
		}
		if got := text(byID(doc.Selection, "not-found-heading")); got != tt.heading {
			t.Errorf("%s: heading got %q, want %q", tt.query, got, tt.heading)
		}
		if byID(doc.Selection, "brain-picker").Length() != 1 || doc.Find(`link[rel="stylesheet"]`).Length() != 1 {
			t.Errorf("%s: the layout (picker, stylesheet) is missing", tt.query)
		}
		if byID(doc.Selection, "hall").Length() != 0 {
			t.Errorf("%s: an error page carries the live Hall", tt.query)
		}
	}
	if _, _, doc := ph.page(t, "?brain="+url.QueryEscape("/srv/nobody/here")); !strings.Contains(text(byID(doc.Selection, "not-found-detail")), "/srv/nobody/here") {
		t.Error("the 404 page does not name the brain")
	}
}

// TestUnknownRoute: a path no route serves is, for a browser, the 404 page
// inside the layout (its picker leading back to the known brains, the
// path escaped); under /api/, or for a client that does not ask for HTML,
// the JSON error.
func TestUnknownRoute(t *testing.T) {
	ph := newPageHall(t)
	ph.beat(t, presence.Beat{AgentID: "claude-7", Brain: shop})
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	get := func(path, accept string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodGet, ph.srv.URL+path, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}

	for _, path := range []string{"/nope", "/deeper/still%3Cb%3E?x=1", "/api"} {
		resp, body := get(path, browser)
		if resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("browser %s: got %d %q, want 404 and the page", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			continue
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		if got := text(byID(doc.Selection, "not-found-heading")); got != "Nothing here" {
			t.Errorf("browser %s: heading got %q", path, got)
		}
		if byID(doc.Selection, "brain-picker").Find(`a[href="/?brain=`+url.QueryEscape(shop)+`"]`).Length() != 1 {
			t.Errorf("browser %s: the picker does not lead to the known brain", path)
		}
		if strings.Contains(string(body), "<b>") {
			t.Errorf("browser %s: the path is not escaped:\n%s", path, body)
		}
	}
	if _, body := get("/deeper/still", browser); !strings.Contains(string(body), "/deeper/still") {
		t.Errorf("the 404 page does not name the path")
	}

	for _, tt := range []struct{ path, accept string }{
		{"/api/nope", browser},
		{"/api/presences/x/y", ""},
		{"/nope", ""},
		{"/nope", "application/json"},
	} {
		resp, body := get(tt.path, tt.accept)
		var e contract.ErrorResponse
		if err := json.Unmarshal(body, &e); err != nil || resp.StatusCode != http.StatusNotFound ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || e.Error != "not_found" || e.Detail == "" {
			t.Errorf("%s (Accept %q): got %d %q %s, want 404 and the JSON error", tt.path, tt.accept, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}

func TestPageRegistryUnreadable(t *testing.T) {
	ph := newPageHall(t)
	ph.beat(t, presence.Beat{AgentID: "claude-7", Brain: shop})
	if err := os.RemoveAll(filepath.Join(ph.root, "presences")); err != nil {
		t.Fatal(err)
	}
	resp, _, doc := ph.page(t, "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status: got %d, want 200: the page still answers", resp.StatusCode)
	}
	if got := text(byID(doc.Selection, "registry-error")); !strings.HasPrefix(got, "Registry unreadable:") {
		t.Errorf("registry error: got %q", got)
	}
	if n := byID(doc.Selection, "roster-row").Length(); n != 0 {
		t.Errorf("roster rows: got %d, want the roster dropped whole", n)
	}
}

func TestPageLiveConfig(t *testing.T) {
	ph := newPageHall(t, shop)
	_, _, doc := ph.page(t, "?brain="+url.QueryEscape(shop))
	hall := byID(doc.Selection, "hall")
	for attr, want := range map[string]string{
		"data-stream":     "/api/presences/stream?brain=" + url.QueryEscape(shop),
		"data-fragment":   "/fragments/hall?brain=" + url.QueryEscape(shop),
		"data-silence-ms": "4000",
		"data-poll-ms":    "500",
		"data-retry-ms":   "1000",
		"data-brain":      shop,
	} {
		if got, _ := hall.Attr(attr); got != want {
			t.Errorf("%s: got %q, want %q", attr, got, want)
		}
	}
	if got, _ := byID(doc.Selection, "announcer").Attr("aria-live"); got != "assertive" {
		t.Errorf("announcer aria-live: got %q, want assertive", got)
	}
	if got := text(byID(doc.Selection, "status")); got == "" {
		t.Error("no status line")
	}
}

func TestStaticAssets(t *testing.T) {
	ph := newPageHall(t)
	_, _, doc := ph.page(t, "")
	css, _ := doc.Find(`link[rel="stylesheet"]`).Attr("href")
	js, _ := doc.Find(`script`).Attr("src")
	assets := static.Embedded()
	for _, tt := range []struct{ url, name, ctype string }{
		{css, "hall.css", "text/css"},
		{js, "hall.js", "text/javascript"},
	} {
		if tt.url != assets.Path(tt.name) {
			t.Errorf("%s referenced as %q, want %q", tt.name, tt.url, assets.Path(tt.name))
		}
		a, ok := assets.Lookup(strings.TrimPrefix(tt.url, static.URLPrefix))
		if !ok || !strings.Contains(tt.url, "."+a.Hash+".") {
			t.Fatalf("%s: %q is not a content-hashed name", tt.name, tt.url)
		}
		resp, err := http.Get(ph.srv.URL + tt.url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != string(a.Body) {
			t.Errorf("%s: status %d, %d bytes, want 200 and the embedded %d", tt.url, resp.StatusCode, len(body), len(a.Body))
		}
		if got := resp.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q", tt.url, got)
		}
		if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, tt.ctype) {
			t.Errorf("%s: Content-Type %q, want %s", tt.url, got, tt.ctype)
		}
		// A revalidation by ETag costs nothing.
		req, _ := http.NewRequest("GET", ph.srv.URL+tt.url, nil)
		req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
		resp2, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp2.Body.Close()
		if resp2.StatusCode != http.StatusNotModified {
			t.Errorf("%s with its ETag: got %d, want 304", tt.url, resp2.StatusCode)
		}
	}
	for _, bad := range []string{"/static/hall.css", "/static/hall.0000000000.css", "/static/..%2fembed.go", "/static/embed.go"} {
		resp, err := http.Get(ph.srv.URL + bad)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: got %d, want 404", bad, resp.StatusCode)
		}
		if cc := resp.Header.Get("Cache-Control"); strings.Contains(cc, "immutable") {
			t.Errorf("%s: a 404 is cached forever (%q)", bad, cc)
		}
	}
}

func TestSecurityHeaders(t *testing.T) {
	ph := newPageHall(t)
	for _, path := range []string{"/", "/static/nothing", "/?brain=%2Fnope"} {
		resp, err := http.Get(ph.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := map[string]string{
			"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
			"X-Content-Type-Options":  "nosniff",
			"X-Frame-Options":         "DENY",
			"Referrer-Policy":         "no-referrer",
		}
		for k, w := range want {
			if got := resp.Header.Get(k); got != w {
				t.Errorf("%s %s: got %q, want %q", path, k, got, w)
			}
		}
	}
}
