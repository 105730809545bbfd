package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/views"
)

// fetch GETs path with the headers and returns the response and its body.
func (lh *liveHall) fetch(t *testing.T, path string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, lh.srv.URL+path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
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
	return resp, string(body)
}

func (lh *liveHall) mutate(t *testing.T, agent, brain, worktree string) {
	t.Helper()
	if _, err := lh.svc.Beat(context.Background(), presence.Beat{AgentID: agent, Brain: brain, Worktree: worktree, Tool: "Edit"}); err != nil {
		t.Fatal(err)
	}
	if _, err := lh.hub.Snapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func parseHTML(t *testing.T, body string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestFragmentsServedAlone: each region of the page is served alone, its
// root marked with its region name; "hall" is every region the live page
// swaps, in the order it shows them.
func TestFragmentsServedAlone(t *testing.T) {
	lh := newLiveHall(t, true)
	brain := "/srv/known"
	lh.mutate(t, "a", brain, brain+"/wt")
	lh.mutate(t, "b", brain, brain+"/wt")
	q := "?brain=" + url.QueryEscape(brain)
	for _, tt := range []struct {
		name    string
		regions string
		has     string // a data-testid the fragment holds
	}{
		{"hall", "banner strip recent losses collisions overlaps roster picker", "collision"},
		{"banner", "banner", "banner-text"},
		{"strip", "strip", "drill-row"},
		{"drill", "drill", "drill-row"},
		{"recent", "recent", "recent-item"},
		{"losses", "losses", "losses"},
		{"collisions", "collisions", "collision-open"},
		{"overlaps", "overlaps", "overlaps"},
		{"roster", "roster", "roster-row"},
		{"picker", "picker", "brain-item"},
	} {
		resp, body := lh.fetch(t, "/fragments/"+tt.name+q, nil)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %s", tt.name, resp.StatusCode, resp.Header.Get("Content-Type"))
			continue
		}
		doc := parseHTML(t, body)
		var got []string
		doc.Find("body > [data-region]").Each(func(_ int, s *goquery.Selection) {
			got = append(got, s.AttrOr("data-region", ""))
		})
		if strings.Join(got, " ") != tt.regions {
			t.Errorf("%s: regions %q, want %q", tt.name, got, tt.regions)
		}
		if byID(doc.Selection, tt.has).Length() == 0 {
			t.Errorf("%s: no %s in %s", tt.name, tt.has, body)
		}
		if strings.Contains(body, "<html") {
			t.Errorf("%s: a fragment is not a page", tt.name)
		}
	}
	_, body := lh.fetch(t, "/fragments/strip"+q, nil)
	strip := parseHTML(t, body).Find(`[data-region="strip"]`)
	if got := strip.AttrOr("data-title", ""); got != "2 agents · this brain · ⚠ 1 collision — Hall" {
		t.Errorf("strip title: %q", got)
	}
	if got := strip.AttrOr("data-collisions", ""); got != "1" || strip.AttrOr("data-sig", "") == "" {
		t.Errorf("strip: collisions %q, sig %q", got, strip.AttrOr("data-sig", ""))
	}
	_, body = lh.fetch(t, "/fragments/collisions"+q, nil)
	open := byID(parseHTML(t, body).Selection, "collision-open")
	if got := text(open); got != "open" || open.Find("time").AttrOr("data-ms", "") == "" {
		t.Errorf("collision age: got %q, want \"open\" and the instant it opened, ticked by the page", got)
	}
}

// TestFragmentHave: each region is marked with a hash of its bytes, the
// same at every cursor while the region does not change (ages are left to
// the page); a request listing hashes it has gets only the other regions.
func TestFragmentHave(t *testing.T) {
	lh := newLiveHall(t, true)
	lh.mutate(t, "a", "/srv/known", "/srv/known/wt")
	hashes := func(body string) map[string]string {
		out := map[string]string{}
		parseHTML(t, body).Find("body > [data-region]").Each(func(_ int, s *goquery.Selection) {
			out[s.AttrOr("data-region", "")] = s.AttrOr("data-hash", "")
		})
		return out
	}
	_, body := lh.fetch(t, "/fragments/hall", nil)
	before := hashes(body)
	var have []string
	for _, h := range before {
		have = append(have, h)
	}
	if _, body := lh.fetch(t, "/fragments/hall", map[string]string{"X-Hall-Have": strings.Join(have, " ")}); body != "" {
		t.Errorf("with every hash: got %s, want nothing", body)
	}
	lh.mutate(t, "b", "/srv/other", "/srv/other") // another brain: this brain's regions but the picker stay
	resp, body := lh.fetch(t, "/fragments/hall?brain=%2Fsrv%2Fknown", nil)
	scoped := hashes(body)
	lh.mutate(t, "c", "/srv/other", "/srv/other")
	var scopedHave []string
	for _, h := range scoped {
		scopedHave = append(scopedHave, h)
	}
	resp2, body := lh.fetch(t, "/fragments/hall?brain=%2Fsrv%2Fknown", map[string]string{"X-Hall-Have": strings.Join(scopedHave, " ")})
	if resp2.Header.Get("ETag") == resp.Header.Get("ETag") {
		t.Fatal("the cursor did not move")
	}
	got := hashes(body)
	if len(got) != 1 || got["picker"] == "" || got["picker"] == scoped["picker"] {
		t.Errorf("after a change elsewhere: got regions %v, want only the picker, changed", got)
	}
}

// TestFragmentRowsHave: a roster row whose signature X-Hall-Have lists
// comes back as its opening tag alone (the page keeps the row it has); a
// row the page does not have, or has in another state, comes whole; a
// list longer than a page's is ignored.
func TestFragmentRowsHave(t *testing.T) {
	lh := newLiveHall(t, true)
	lh.mutate(t, "a", "/srv/known", "/srv/known/wt")
	lh.mutate(t, "b", "/srv/known", "/srv/known/other")
	rows := func(body string) map[string]*goquery.Selection {
		out := map[string]*goquery.Selection{}
		parseHTML(t, body).Find(`[data-testid="roster-row"]`).Each(func(_ int, s *goquery.Selection) {
			out[text(s.Find(`[data-testid="roster-agent"]`))+"|"+s.AttrOr("data-presence-id", "")] = s
		})
		return out
	}
	_, body := lh.fetch(t, "/fragments/roster", nil)
	full := rows(body)
	if len(full) != 2 {
		t.Fatalf("roster rows: %d, want 2", len(full))
	}
	var aSig, aID string
	for k, r := range full {
		if strings.HasPrefix(k, "a|") {
			aSig, aID = r.AttrOr("data-h", ""), r.AttrOr("data-presence-id", "")
		}
	}
	_, body = lh.fetch(t, "/fragments/roster", map[string]string{"X-Hall-Have": "nothing-here " + aSig})
	doc := parseHTML(t, body)
	stub := doc.Find(`tr[data-presence-id="` + aID + `"]`)
	if stub.Length() != 1 || stub.AttrOr("data-h", "") != aSig || stub.Children().Length() != 0 {
		t.Errorf("a's row, had: %d rows, signature %q, %d cells; want its opening tag alone", stub.Length(), stub.AttrOr("data-h", ""), stub.Children().Length())
	}
	if n := doc.Find(`[data-testid="roster-row"]`).Length(); n != 2 {
		t.Errorf("rows: %d, want both, a's empty", n)
	}
	if b := doc.Find(`[data-testid="roster-row"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.AttrOr("data-presence-id", "") != aID
	}); b.Find("td").Length() == 0 {
		t.Error("b's row, not had, came without its cells")
	}
	lh.mutate(t, "a", "/srv/known", "/srv/known/wt2") // a's row changes: its old signature no longer matches
	_, body = lh.fetch(t, "/fragments/roster", map[string]string{"X-Hall-Have": aSig})
	if got := parseHTML(t, body).Find(`tr[data-presence-id="` + aID + `"] td`).Length(); got == 0 {
		t.Error("a's changed row came without its cells")
	}
	long := strings.Repeat("x ", maxHave) + aSig
	_, body = lh.fetch(t, "/fragments/roster", map[string]string{"X-Hall-Have": long})
	if got := parseHTML(t, body).Find(`[data-testid="roster-row"] td`).Length(); got == 0 {
		t.Error("with a list longer than a page's, rows were left out")
	}
}

// TestFragmentETag: a fragment carries an ETag per cursor, brain and name;
// If-None-Match gets 304 until the roster changes, and a change gives a
// new tag and the new content.
func TestFragmentETag(t *testing.T) {
	lh := newLiveHall(t, true)
	lh.mutate(t, "a", "/srv/known", "/srv/known/wt")
	resp, first := lh.fetch(t, "/fragments/hall", nil)
	etag := resp.Header.Get("ETag")
	if etag == "" || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("tag %q, cache-control %q", etag, resp.Header.Get("Cache-Control"))
	}
	if resp, again := lh.fetch(t, "/fragments/hall", nil); again != first || resp.Header.Get("ETag") != etag {
		t.Error("the same cursor rendered differently")
	}
	if resp, _ := lh.fetch(t, "/fragments/hall", map[string]string{"If-None-Match": etag}); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match at the same cursor: %d, want 304", resp.StatusCode)
	}
	for _, other := range []string{"/fragments/roster", "/fragments/hall?roster=all", "/fragments/hall?brain=%2Fsrv%2Fknown"} {
		if resp, _ := lh.fetch(t, other, map[string]string{"If-None-Match": etag}); resp.StatusCode != 200 || resp.Header.Get("ETag") == etag {
			t.Errorf("%s with another fragment's tag: %d, tag %q", other, resp.StatusCode, resp.Header.Get("ETag"))
		}
	}
	lh.mutate(t, "b", "/srv/known", "/srv/known/wt")
	resp, body := lh.fetch(t, "/fragments/hall", map[string]string{"If-None-Match": etag})
	if resp.StatusCode != 200 || resp.Header.Get("ETag") == etag || !strings.Contains(body, "⚠ 1 collision") {
		t.Errorf("after a change: %d, tag %q", resp.StatusCode, resp.Header.Get("ETag"))
	}
}

// TestFragmentBadInput: an unknown fragment is 404 and a relative brain 400,
// each with {"error","detail"}; a brain the Hall does not know renders
// empty, as a client treats the contract's 404 for it.
func TestFragmentBadInput(t *testing.T) {
	lh := newLiveHall(t, true)
	for path, want := range map[string]struct {
		status int
		code   string
	}{
		"/fragments/nope":                {404, "unknown_fragment"},
		"/fragments/hall?brain=relative": {400, "invalid_brain"},
	} {
		resp, body := lh.fetch(t, path, nil)
		var e struct{ Error, Detail string }
		_ = json.Unmarshal([]byte(body), &e)
		if resp.StatusCode != want.status || e.Error != want.code || e.Detail == "" {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	resp, body := lh.fetch(t, "/fragments/strip?brain=%2Fsrv%2Fgone", nil)
	if resp.StatusCode != 200 || text(byID(parseHTML(t, body).Selection, "root-line")) != "0 agents · this brain" {
		t.Errorf("unknown brain: %d %s", resp.StatusCode, body)
	}
}

// TestFragmentsBounded: with 10× the rows the page shows, the roster shows
// its first RosterShown rows and says how many more, with a link to all;
// "roster=all" shows all. The collision list shows CollisionsShown cards
// (one a place) and "+N more places".
func TestFragmentsBounded(t *testing.T) {
	lh := newLiveHall(t, true)
	brain := "/srv/known"
	pairs := views.CollisionsShown + 3
	for i := range pairs {
		wt := fmt.Sprintf("%s/wt-%03d", brain, i)
		lh.mutate(t, fmt.Sprintf("a-%03d", i), brain, wt)
		lh.mutate(t, fmt.Sprintf("b-%03d", i), brain, wt)
	}
	n := 2 * pairs
	_, body := lh.fetch(t, "/fragments/hall", nil)
	doc := parseHTML(t, body)
	if got := byID(doc.Selection, "roster-row").Length(); got != views.RosterShown {
		t.Errorf("roster rows: %d, want %d", got, views.RosterShown)
	}
	if got := text(byID(doc.Selection, "roster-more")); got != fmt.Sprintf("+%d more · show all", n-views.RosterShown) {
		t.Errorf("roster more: %q", got)
	}
	if got := byID(doc.Selection, "roster-show-all").AttrOr("href", ""); got != "/?roster=all" {
		t.Errorf("show all: %q", got)
	}
	if got := byID(doc.Selection, "collision").Length(); got != views.CollisionsShown {
		t.Errorf("collision cards: %d, want %d", got, views.CollisionsShown)
	}
	if got := text(byID(doc.Selection, "collisions-more")); got != "+3 more places" {
		t.Errorf("collisions more: %q", got)
	}
	if got := text(byID(doc.Selection, "collision-count")); got != fmt.Sprint(pairs) { // one place each
		t.Errorf("collision count: %q", got)
	}
	_, body = lh.fetch(t, "/fragments/roster?roster=all", nil)
	if got := byID(parseHTML(t, body).Selection, "roster-row").Length(); got != n {
		t.Errorf("roster=all rows: %d, want %d", got, n)
	}
}

// TestEvents: GET /api/events serves the hub's recent events newest first
// with hall watch --json's types and fields, narrowed to a brain, bounded
// by limit (saying how many it left out); bad input is a 400, an unknown
// brain a 404.
func TestEvents(t *testing.T) {
	lh := newLiveHall(t, true)
	brain, other := "/srv/known", "/srv/other"
	lh.mutate(t, "a", brain, brain+"/wt")
	lh.mutate(t, "b", brain, brain+"/wt")
	lh.mutate(t, "c", other, other)
	lh.mutate(t, "b", brain, brain+"/elsewhere")

	get := func(path string) (int, contract.EventsResponse, string) {
		resp, body := lh.fetch(t, path, nil)
		var out contract.EventsResponse
		if resp.StatusCode == 200 {
			if err := json.Unmarshal([]byte(body), &out); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		return resp.StatusCode, out, body
	}
	types := func(ls []contract.Line) string {
		var s []string
		for _, l := range ls {
			s = append(s, l.Type)
		}
		return strings.Join(s, " ")
	}
	status, all, body := get("/api/events")
	if status != 200 || types(all.Events) != "collision_closed join collision_opened join join" || all.LeftOut != 0 || all.Kept != stream.DefaultEvents {
		t.Fatalf("events: %d %s", status, body)
	}
	closed := all.Events[0]
	if closed.Collision == nil || closed.LastedMs == nil || *closed.LastedMs < 0 || closed.OpenedAtMs == 0 || closed.EventID == "" || closed.AtMs == 0 {
		t.Errorf("collision_closed: %+v", closed)
	}
	for _, key := range []string{`"type":"collision_closed"`, `"event_id":`, `"seq":`, `"at_ms":`, `"collision":{"collision_id":`, `"opened_at_ms":`, `"lasted_ms":`, `"left_out":0`} {
		if !strings.Contains(body, key) {
			t.Errorf("body lacks %s: %s", key, body)
		}
	}
	if _, one, _ := get("/api/events?brain=" + url.QueryEscape(brain) + "&limit=2"); types(one.Events) != "collision_closed collision_opened" || one.LeftOut != 2 {
		t.Errorf("one brain, limit 2: %q left %d", types(one.Events), one.LeftOut)
	}
	for path, want := range map[string]int{
		"/api/events?limit=0":                      400,
		"/api/events?limit=1001":                   400,
		"/api/events?limit=x":                      400,
		"/api/events?brain=relative":               400,
		"/api/events?brain=%2Fsrv%2Fnobody":        404,
		"/api/events?limit=1000":                   200,
		"/api/events?brain=%2Fsrv%2Fknown&limit=1": 200,
	} {
		if status, _, body := get(path); status != want || (want != 200 && !strings.Contains(body, `"detail"`)) {
			t.Errorf("%s: %d %s, want %d", path, status, body, want)
		}
	}
}
