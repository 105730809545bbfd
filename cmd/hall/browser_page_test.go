package main

// Browser tests of what the page does beyond following the roster: the
// life of a collision on every part of the page (banner, card and its age,
// recent events, favicon), focus and scroll kept across an update, and the
// opt-in notification.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/hall-dev/hall/internal/contract"

	"github.com/hall-dev/hall/views"
)

// TestBrowserCollisionLifecycle: a beat reaches the live page, then a
// collision opens and closes on it: the banner, the card with how long it has been open (ticking), the
// Recent panel (opened, then closed with how long it lasted), the favicon
// red while it is open, and the Recent panel equal to GET /api/events.
func TestBrowserCollisionLifecycle(t *testing.T) {
	m := MustOpenHall(t, Config{})
	root := m.Config.RegistryRoot
	b := openBrowser(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the stream to be live", `tid('status').dataset.state === 'live'`)
	icon := `document.querySelector('link[rel="icon"]').getAttribute('href')`
	calm := eval[string](t, b, icon)
	if !strings.Contains(calm, "/static/icon.") {
		t.Fatalf("favicon with no collision: %q", calm)
	}
	if got := eval[string](t, b, `txt(tid('recent-empty'))`); !strings.HasPrefix(got, "Nothing yet") {
		t.Errorf("recent before anything happened: %q", got)
	}

	brain := "/srv/browser-test/shop"
	wt := brain + "-wt"
	two := sidecarRecord{Agent: "two", Brain: brain, Worktree: wt, Theme: "cart", Observed: true}
	// One agent beats through the API, as a hook does; the other is a
	// sidecar file written by another process.
	beatHall(t, m.URL(), contract.BeatRequest{AgentID: "one", Brain: brain, Worktree: wt, Theme: "checkout", Tool: "Edit"})
	b.waitFor(t, "the join in Recent", `txt(tid('recent-item')) && txt(tid('recent-item')).startsWith('+ one joined')`)
	beatHall(t, m.URL(), contract.BeatRequest{AgentID: "one", Brain: brain, Worktree: wt, Theme: "checkout, part 2", Tool: "Edit"})
	b.waitFor(t, "the beat's new theme on the drill", `txt(tid('drill-theme')) === 'checkout, part 2'`)
	writeSidecarRecord(t, root, two)
	b.waitFor(t, "the collision on the page", `!tid('collision-banner').hidden && tid('collision')`)
	for expr, want := range map[string]string{
		`txt(tid('banner-text'))`:                              "one and two are both mutating in " + wt,
		`tid('recent-item').dataset.type`:                      "collision_opened",
		`txt(tid('recent-item').firstElementChild)`:            "⚠ collision: one and two at " + wt + " (same worktree)",
		`String(` + icon + `.includes('/static/icon-alert.'))`: "true",
	} {
		if got := eval[string](t, b, expr); got != want {
			t.Errorf("%s: got %q, want %q", expr, got, want)
		}
	}
	if got := eval[string](t, b, `txt(tid('collision-open'))`); !strings.HasPrefix(got, "open ") || strings.Contains(got, "≥") {
		t.Errorf("collision age: %q", got)
	}
	b.waitFor(t, "the collision's age to tick", `/^open [1-9]\d*s$/.test(txt(tid('collision-open')))`)

	removeSidecarRecord(t, root, two)
	b.waitFor(t, "the collision to close", `tid('collision-banner').hidden && !tid('collision')`)
	if got := eval[string](t, b, `txt(tid('recent-item').firstElementChild)`); !strings.HasPrefix(got, "✓ collision closed: one and two at "+wt+", lasted ") {
		t.Errorf("recent after the close: %q", got)
	}
	if got := eval[string](t, b, icon); got != calm {
		t.Errorf("favicon after the close: %q, want %q", got, calm)
	}

	var events struct {
		Events []struct {
			Type    string `json:"type"`
			EventID string `json:"event_id"`
		} `json:"events"`
	}
	getJSON(t, m.URL()+"/api/events", &events)
	var api []string
	for _, e := range events.Events {
		api = append(api, e.Type+"@"+e.EventID)
	}
	page := eval[[]string](t, b, `Array.from(document.querySelectorAll('[data-testid="recent-item"]'), e => e.dataset.type + '@' + e.dataset.eventId)`)
	if strings.Join(page, " ") != strings.Join(api, " ") || len(api) != 5 {
		t.Errorf("Recent panel %q, GET /api/events %q; want the same five events", page, api)
	}
}

// TestBrowserKeepsFocusAndScroll: an update changes the regions in place,
// yet the page keeps its scroll position, Recent's opened earlier events
// stay open, and focus stays on the control it was on.
func TestBrowserKeepsFocusAndScroll(t *testing.T) {
	m := MustOpenHall(t, Config{})
	root := m.Config.RegistryRoot
	brain := "/srv/browser-test/many"
	for i := range 40 {
		writeSidecarRecord(t, root, sidecarRecord{Agent: fmt.Sprintf("agent-%02d", i), Brain: brain, Worktree: fmt.Sprintf("%s/wt-%02d", brain, i), Theme: "one of many"})
		time.Sleep(5 * time.Millisecond) // one join an event, more or less: a long Recent list
	}
	b := openBrowser(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the stream to be live and the roster full", fmt.Sprintf(`tid('status').dataset.state === 'live' && txt(tid('roster-count')) === '40' && document.querySelectorAll('[data-testid="roster-row"]').length === %d`, views.RosterShown))
	if !eval[bool](t, b, `!!tid('recent-earlier')`) {
		t.Fatal("Recent has no earlier events to open; the test needs them")
	}

	// Focus the picker's link to the brain, scroll the page and the list.
	item := `document.querySelector('[data-testid="brain-item"][data-brain="` + brain + `"]')`
	eval[bool](t, b, `(() => {
		window.__focused = tid('brain-link', `+item+`);
		window.__focused.focus();
		tid('recent-earlier').open = true;
		window.scrollTo(0, 200);
		return document.activeElement === window.__focused;
	})()`)
	before := eval[[]float64](t, b, `[window.scrollY, tid('recent-earlier').open ? 1 : 0]`)

	newcomer := sidecarRecord{Agent: "newcomer", Brain: brain, Worktree: brain + "/wt-new", Theme: "late"}
	writeSidecarRecord(t, root, newcomer)
	b.waitFor(t, "the update", rowExists(newcomer.id())+` && txt(tid('brain-live', `+item+`)) === '41' && txt(tid('recent-item')).startsWith('+ newcomer joined')`)
	// The update left out the rows the page had (their opening tags alone):
	// each row is whole, as the server renders it.
	if got := eval[string](t, b, `Array.from(document.querySelectorAll('[data-testid="roster-row"]')).filter(r => r.cells.length !== 11 || !txt(tid('roster-agent', r))).map(r => r.dataset.presenceId).join(' ')`); got != "" {
		t.Errorf("rows left without their cells after the update: %s", got)
	}
	after := eval[[]float64](t, b, `[window.scrollY, tid('recent-earlier').open ? 1 : 0]`)
	if after[0] != before[0] || after[1] != before[1] || after[1] != 1 {
		t.Errorf("scroll, Recent's earlier events open: before %v, after %v", before, after)
	}
	if got := eval[string](t, b, `document.activeElement === window.__focused ? 'kept' : 'focus on ' + document.activeElement.tagName`); got != "kept" {
		t.Errorf("focus after the update: %s", got)
	}
}

// TestBrowserNotifyOptIn: the page never asks for notifications by itself;
// a click on "notify me" asks (granted here), and a new collision while the
// tab is hidden (its window minimized) shows a notification.
func TestBrowserNotifyOptIn(t *testing.T) {
	m := MustOpenHall(t, Config{})
	root := m.Config.RegistryRoot
	b := openBrowser(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the stream to be live", `tid('status').dataset.state === 'live'`)
	for expr, want := range map[string]string{
		`Notification.permission`:                    "default",
		`txt(tid('notify'))`:                         "notify me",
		`tid('notify').getAttribute('aria-pressed')`: "false",
		`String(tid('notify').hidden)`:               "false",
	} {
		if got := eval[string](t, b, expr); got != want {
			t.Errorf("before the click, %s: got %q, want %q", expr, got, want)
		}
	}

	if _, err := chromedp.CallBrowser(b.ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: m.URL(),
	}); err != nil {
		t.Fatal(err)
	}
	b.do(t, "click notify me", chromedp.Click(`[data-testid="notify"]`))
	b.waitFor(t, "the opt-in", `tid('notify').getAttribute('aria-pressed') === 'true'`)
	if got := eval[string](t, b, `txt(tid('notify'))`); got != "notifying of new collisions" {
		t.Errorf("after the click: %q", got)
	}

	// A collision while the tab is visible is on the page, not notified.
	brain := "/srv/browser-test/shop"
	writeSidecarRecord(t, root, sidecarRecord{Agent: "v-1", Brain: brain, Worktree: brain + "/a", Observed: true})
	writeSidecarRecord(t, root, sidecarRecord{Agent: "v-2", Brain: brain, Worktree: brain + "/a", Observed: true})
	b.waitFor(t, "the visible collision", `tid('collision')`)
	if got := eval[string](t, b, `tid('notify').dataset.notified || '0'`); got != "0" {
		t.Errorf("notified while visible: %s", got)
	}

	win, err := chromedp.CallBrowser(b.ctx, cdpbrowser.GetWindowForTarget, cdpbrowser.GetWindowForTargetParams{TargetID: chromedp.FromContext(b.ctx).Target.TargetID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.CallBrowser(b.ctx, cdpbrowser.SetWindowBounds, cdpbrowser.SetWindowBoundsParams{WindowID: win.WindowID, Bounds: &cdpbrowser.Bounds{WindowState: cdpbrowser.WindowStateMinimized}}); err != nil {
		t.Fatal(err)
	}
	b.waitFor(t, "the tab to be hidden", `document.hidden`)
	writeSidecarRecord(t, root, sidecarRecord{Agent: "h-1", Brain: brain, Worktree: brain + "/b", Observed: true})
	writeSidecarRecord(t, root, sidecarRecord{Agent: "h-2", Brain: brain, Worktree: brain + "/b", Observed: true})
	b.waitFor(t, "a notification for the hidden collision", `tid('notify').dataset.notified === '1'`)
}

// fetchWatchJS wraps the page's fetch from its first script on: a fetch of
// the regions is in flight from the call until its body has been read (or
// its answer came without one, a 304), as the page's own code sees it.
// window.__regionFetches holds how many were made and the most in flight at
// once. The browser's network events cannot say this: the renderer may read
// a body to its end before the network process reports the load finished,
// so a next fetch the page rightly starts can look, on those clocks, as if
// it began a fraction of a millisecond early.
const fetchWatchJS = `(() => {
  const seen = { made: 0, now: 0, most: 0 };
  window.__regionFetches = seen;
  const real = window.fetch.bind(window);
  window.fetch = function (url, opts) {
    if (String(url).indexOf('/fragments/hall') < 0) { return real(url, opts); }
    seen.made++;
    seen.now++;
    seen.most = Math.max(seen.most, seen.now);
    let open = true;
    const done = () => { if (open) { open = false; seen.now--; } };
    return real(url, opts).then((r) => {
      if (r.status !== 200) { done(); return r; }
      const text = r.text.bind(r);
      r.text = () => text().then((t) => { done(); return t; }, (e) => { done(); throw e; });
      return r;
    }, (e) => { done(); throw e; });
  };
})();`

// TestBrowserOneFetchInFlight: a burst of changes, diffs arriving while the
// page is still fetching, never has two fetches of the regions in flight;
// the diffs that arrive meanwhile are coalesced into the next fetch, and
// the page ends up showing every change.
func TestBrowserOneFetchInFlight(t *testing.T) {
	m := MustOpenHall(t, Config{})
	root := m.Config.RegistryRoot
	b := openBrowser(t)
	b.onEveryPage(t, "watch the page's fetches", fetchWatchJS)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the stream to be live", `tid('status').dataset.state === 'live'`)

	const n = 40
	for i := range n {
		writeSidecarRecord(t, root, sidecarRecord{Agent: fmt.Sprintf("burst-%02d", i), Brain: "/srv/browser-test/burst", Worktree: fmt.Sprintf("/srv/browser-test/burst/wt-%02d", i)})
		time.Sleep(10 * time.Millisecond)
	}
	b.waitFor(t, "every change on the page", fmt.Sprintf(`txt(tid('roster-count')) === '%d' && document.querySelectorAll('[data-testid="roster-row"]').length === %d`, n, min(n, views.RosterShown)))
	made := eval[float64](t, b, `window.__regionFetches.made`)
	most := eval[float64](t, b, `window.__regionFetches.most`)
	if made < 2 {
		t.Fatalf("the page fetched its regions %v times over a burst of %d changes; want at least the snapshot's and one after it", made, n)
	}
	if most != 1 {
		t.Errorf("%v fetches of the regions in flight at once (of %v made); want one at a time", most, made)
	}
}
