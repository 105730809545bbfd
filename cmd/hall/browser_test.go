package main

// The browser tests drive Debian's chromium with chromedp against the real
// Hall on 127.0.0.1:0: the page as a person uses it, live over the stream,
// polling when the stream is blocked, complete with JavaScript off, and the
// demo (which also writes the README's screenshot when asked). They are
// named TestBrowser… so `task e2e` (-run Browser) runs exactly them.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/internal/web"
)

// browserWait bounds every "the page eventually shows it": generous, for a
// loaded 2-core machine under -race; never a measure of speed.
const browserWait = 30 * time.Second

// chromiumPath finds the browser: Debian's /usr/bin/chromium, else one on PATH.
func chromiumPath() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless chromium with a fresh profile, watching for what
// must never happen on the page: a JavaScript dialog (an injected alert),
// an uncaught exception, or a Content-Security-Policy violation.
type browser struct {
	ctx context.Context

	mu       sync.Mutex
	problems []string
}

func (b *browser) problem(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
}

// openBrowser starts chromium for one test. Without chromium the test
// skips, saying how to install it, except in CI (CI=true), where it fails.
func openBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed and CI=true: the browser tests must run (apt-get install -y chromium)")
		}
		t.Skip("chromium is not installed; to run the browser tests: apt-get install -y chromium")
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium (%s): %v", path, err)
	}
	b := &browser{ctx: ctx}

	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			b.problem("a JavaScript %s dialog opened: %q", ev.Type, ev.Message)
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.IsException() || m.Source == "security" {
				b.problem("%s (%s:%d)", m, m.URL, m.Line)
			}
		}
	}()
	t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, p := range b.problems {
			t.Errorf("in the browser: %s", p)
		}
	})
	return b
}

func (b *browser) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// pageJS are helpers every expression below may use: tid finds by
// data-testid, txt reads an element's text as a person does.
const pageJS = `const tid = (id, s) => (s || document).querySelector('[data-testid="' + id + '"]');
const txt = (e) => e ? e.textContent.replace(/\s+/g, ' ').trim() : null;`

// eval runs an expression (pageJS helpers in scope) and decodes its value.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T]("(() => { "+pageJS+" return ("+expr+"); })()"))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor polls a condition in the page until it holds, or fails the test
// after browserWait, showing the status line and root line.
func (b *browser) waitFor(t *testing.T, what, cond string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool]("(() => { "+pageJS+" return !!("+cond+"); })()",
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(browserWait)))
	if err != nil {
		state := eval[string](t, b, `(txt(tid('status')) || '') + ' | ' + (txt(tid('root-line')) || '')`)
		t.Fatalf("waiting for %s: %v (page: %s)", what, err, state)
	}
}

// sidecar is a record written into the registry by hand, the way another
// writer (an m1nd runtime) does: a temp file in the folder, then rename.
type sidecarRecord struct {
	Agent, Brain, Worktree, Theme, Intent string
	Observed                              bool
	FirstSeenMs                           int64
}

func (s sidecarRecord) id() string { return presence.ID(s.Agent, s.Brain) }

func writeSidecarRecord(t *testing.T, registryRoot string, s sidecarRecord) {
	t.Helper()
	now := nowMs()
	r := presencetest.Rec(s.Agent, s.Brain, presencetest.Worktree(s.Worktree), presencetest.Theme(s.Theme),
		presencetest.NoMutation(), presencetest.At(now), presencetest.TTL(600_000))
	r.Kind = "executor"
	if s.FirstSeenMs != 0 {
		r.FirstSeenMs = s.FirstSeenMs
	}
	if s.Observed {
		r.Mutation.ObservedAtMs = now
	}
	r.Mutation.DeclaredIntent = s.Intent
	dirstoretest.Upsert(t, registryRoot, r)
}

func removeSidecarRecord(t *testing.T, registryRoot string, s sidecarRecord) {
	t.Helper()
	dirstoretest.Remove(t, registryRoot, s.id())
}

func rowExists(id string) string {
	return `!!document.querySelector('[data-testid="roster-row"][data-presence-id="` + id + `"]')`
}

// TestBrowserLiveJoinsCollidesAndEscapes opens the page, waits for the
// stream, and watches it follow the registry without a reload: a sidecar
// file joins, a second one makes a collision that rides the strip label,
// is announced and bannered, and leaving closes it. Both agents' themes
// are markup that must show as text and never run.
func TestBrowserLiveJoinsCollidesAndEscapes(t *testing.T) {
	m := MustOpenHall(t, Config{})
	root := m.Config.RegistryRoot
	b := openBrowser(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the stream to be live", `tid('status').dataset.state === 'live' && txt(tid('status')) === 'live'`)
	if got := eval[string](t, b, `txt(tid('root-line'))`); got != "0 agents · all brains" {
		t.Errorf("empty root line: got %q", got)
	}
	eval[bool](t, b, `(window.__sameDocument = true)`)

	brain := "/srv/browser-test/shop"
	wt := brain + "-wt2"
	one := sidecarRecord{Agent: "sidecar-1", Brain: brain, Worktree: wt, Theme: `<script>alert(1)</script>`, FirstSeenMs: nowMs() - 5_000}
	writeSidecarRecord(t, root, one)
	b.waitFor(t, "the new presence in the roster", rowExists(one.id()))
	if got := eval[string](t, b, `txt(tid('root-line'))`); got != "1 agent · all brains" {
		t.Errorf("root line after the join: got %q", got)
	}
	if got := eval[string](t, b, `tid('drill-theme').textContent`); got != one.Theme {
		t.Errorf("drill theme: got %q, want the markup shown as text", got)
	}
	age := eval[string](t, b, `txt(tid('drill-age'))`)
	b.waitFor(t, "the age to tick", `txt(tid('drill-age')) !== `+jsString(age))

	two := sidecarRecord{Agent: "sidecar-2", Brain: brain, Worktree: wt, Theme: `"><img src=x onerror=alert(1)>`, Observed: true}
	one.Intent = "mutate"
	writeSidecarRecord(t, root, two)
	writeSidecarRecord(t, root, one)
	b.waitFor(t, "the collision warning on the strip label",
		`txt(tid('collision-warning', tid('scope-label'))) === '⚠ 1 collision'`)
	for expr, want := range map[string]string{
		`txt(tid('root-line'))`: "2 agents · all brains · ⚠ 1 collision",
		`String(tid('strip').classList.contains('has-collision'))`:             "true",
		`String(getComputedStyle(tid('collision-banner')).display !== 'none')`: "true",
		`txt(tid('collision-place'))`:                                          wt,
		`txt(tid('collision-clauses'))`:                                        "same worktree",
		`String(document.title.includes('⚠ 1 collision'))`:                     "true",
		`txt(tid('brain-collisions', tid('brain-item')))`:                      "⚠ 1",
		`String(document.querySelectorAll('img, script:not([src])').length)`:   "0",
	} {
		if got := eval[string](t, b, expr); got != want {
			t.Errorf("%s: got %q, want %q", expr, got, want)
		}
	}
	if got := eval[string](t, b, `tid('announcer').textContent`); !strings.HasPrefix(got, "New collision: ") || !strings.Contains(got, wt) {
		t.Errorf("aria-live announcement: got %q", got)
	}
	themes := eval[[]string](t, b, `Array.from(document.querySelectorAll('[data-testid="drill-theme"]'), e => e.textContent)`)
	if strings.Join(themes, "\n") != strings.Join([]string{one.Theme, two.Theme}, "\n") &&
		strings.Join(themes, "\n") != strings.Join([]string{two.Theme, one.Theme}, "\n") {
		t.Errorf("themes shown: got %q, want both as text", themes)
	}
	if got := eval[bool](t, b, `getComputedStyle(tid('drill-theme')).display !== 'none' && tid('drill-theme').getBoundingClientRect().width > 0`); !got {
		t.Error("the theme text is not visible")
	}

	removeSidecarRecord(t, root, two)
	b.waitFor(t, "the collision to close", `!tid('collision-warning') && tid('collision-banner').hidden && !`+rowExistsJS(two.id()))
	if got := eval[string](t, b, `txt(tid('root-line'))`); got != "1 agent · all brains" {
		t.Errorf("root line after the leave: got %q", got)
	}
	if !eval[bool](t, b, `window.__sameDocument === true`) {
		t.Error("the page reloaded; it must update in place")
	}
}

func rowExistsJS(id string) string { return "(" + rowExists(id) + ")" }

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestBrowserPollsWhenTheStreamIsBlocked fails every request to the stream
// in the browser, as a proxy that refuses it would: the page says it polls,
// stays current through GET /fragments/hall (with 304s while nothing
// changes), and goes live again once the stream answers.
func TestBrowserPollsWhenTheStreamIsBlocked(t *testing.T) {
	m := MustOpenHall(t, Config{Page: web.PageConfig{Poll: 250 * time.Millisecond, Retry: time.Second, Silence: 5 * time.Second}})
	root := m.Config.RegistryRoot
	b := openBrowser(t)

	var blocked atomic.Bool
	blocked.Store(true)
	var notModified, streamTries atomic.Int64
	paused := chromedp.Events(b.ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if blocked.Load() {
				streamTries.Add(1)
				_, _ = chromedp.Call(b.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionRefused})
			} else {
				_, _ = chromedp.Call(b.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			}
		}
	}()
	responses := chromedp.Events(b.ctx, network.ResponseReceived)
	go func() {
		for ev, err := range responses {
			if err != nil {
				return
			}
			if u, err := url.Parse(ev.Response.URL); err == nil && u.Path == "/fragments/hall" && ev.Response.Status == 304 {
				notModified.Add(1)
			}
		}
	}()
	if _, err := chromedp.Call(b.ctx, fetch.Enable, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/presences/stream*"}},
	}); err != nil {
		t.Fatalf("intercept the stream: %v", err)
	}

	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the page to poll", `tid('status').dataset.state === 'polling' && txt(tid('status')).startsWith('polling (stream unavailable)')`)

	brain := "/srv/browser-test/shop"
	one := sidecarRecord{Agent: "poll-1", Brain: brain, Worktree: brain + "-wt2", Theme: "polled join", Intent: "mutate"}
	writeSidecarRecord(t, root, one)
	b.waitFor(t, "the join, by polling", rowExists(one.id()))
	two := sidecarRecord{Agent: "poll-2", Brain: brain, Worktree: brain + "-wt2", Theme: "polled collision", Observed: true}
	writeSidecarRecord(t, root, two)
	b.waitFor(t, "the collision warning, by polling", `txt(tid('collision-warning', tid('scope-label'))) === '⚠ 1 collision'`)
	eventually.True(t, wait, "a conditional poll answered 304", func() bool { return notModified.Load() > 0 })
	if streamTries.Load() == 0 {
		t.Error("the page never tried the stream")
	}
	if got := eval[string](t, b, `tid('status').dataset.state`); got != "polling" {
		t.Errorf("status while the stream is blocked: got %q, want polling", got)
	}

	blocked.Store(false)
	b.waitFor(t, "the stream to be live again", `tid('status').dataset.state === 'live'`)
	three := sidecarRecord{Agent: "live-3", Brain: brain, Worktree: brain + "-wt3", Theme: "back on the stream"}
	writeSidecarRecord(t, root, three)
	b.waitFor(t, "a join over the stream", rowExists(three.id()))
	if got := eval[string](t, b, `txt(tid('root-line'))`); got != "3 agents · all brains · ⚠ 1 collision" {
		t.Errorf("root line: got %q", got)
	}
}

// pageClockJS holds the page's clock (Date.now) for the test: it stands
// still from the page's first script on and moves only when the test says
// (window.__advanceClock). The page's silence rules read that clock, so a
// loaded machine, however slow, never makes a silence the test did not.
const pageClockJS = `(() => {
  let now = Date.now();
  Date.now = () => now;
  window.__advanceClock = (ms) => { now += ms; return now; };
})();`

// holdClock holds the clock of every page the browser opens from now on
// (pageClockJS).
func (b *browser) holdClock(t *testing.T) {
	t.Helper()
	b.onEveryPage(t, "hold the page's clock", pageClockJS)
}

// onEveryPage runs script first in every page the browser opens from now
// on, before the page's own scripts.
func (b *browser) onEveryPage(t *testing.T, what, script string) {
	t.Helper()
	if _, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// advanceClock moves a held page clock on by d.
func (b *browser) advanceClock(t *testing.T, d time.Duration) {
	t.Helper()
	eval[float64](t, b, fmt.Sprintf("window.__advanceClock(%d)", d.Milliseconds()))
}

// holdingWriter is the response side of a buffering proxy on the stream:
// it passes the stream through until it has flushed the snapshot (or from
// the start, when holdAll), then swallows everything, heartbeats included,
// as a proxy that buffers an endless response would.
type holdingWriter struct {
	http.ResponseWriter
	held bool
	seen bytes.Buffer
}

func (w *holdingWriter) Write(b []byte) (int, error) {
	if w.held {
		return len(b), nil
	}
	w.seen.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *holdingWriter) Flush() {
	if w.held {
		return
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
	w.held = bytes.Contains(w.seen.Bytes(), []byte("event: snapshot"))
}

// bufferingProxy serves the Hall through a reverse proxy that holds the
// stream back; every other request passes.
func bufferingProxy(t *testing.T, hall string, holdAll bool) string {
	t.Helper()
	target, err := url.Parse(hall)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/presences/stream" {
			w = &holdingWriter{ResponseWriter: w, held: holdAll}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv.URL
}

// TestBrowserPollsBehindABufferingProxy: a proxy that buffers the stream
// never says it failed; the stream just goes quiet. The page notices
// silence past its threshold: a stream that never delivered its snapshot
// is left at once; one that went quiet is checked against the Hall, and
// when the Hall shows what the stream did not, the page polls and is
// current again. A stream that is quiet because the Hall is quiet passes
// the check and stays live.
//
// The page's clock is held (holdClock) and moved past the threshold only
// where the test means a silence: with a real clock, a loaded machine
// delivering the snapshot later than the threshold made the page leave a
// stream that was merely slow, and the test failed waiting for it.
func TestBrowserPollsBehindABufferingProxy(t *testing.T) {
	const silence = time.Second
	for _, tt := range []struct {
		name        string
		proxy       bool
		holdAll     bool
		wantPolling bool
	}{
		{name: "buffers everything", proxy: true, holdAll: true, wantPolling: true},
		{name: "buffers after the snapshot", proxy: true, wantPolling: true},
		{name: "no proxy, a quiet Hall", wantPolling: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := MustOpenHall(t, Config{Page: web.PageConfig{Silence: silence, Poll: 250 * time.Millisecond, Retry: time.Hour}})
			base := m.URL()
			if tt.proxy {
				base = bufferingProxy(t, m.URL(), tt.holdAll)
			}
			b := openBrowser(t)
			var fragmentGets, streamGets atomic.Int64
			requests := chromedp.Events(b.ctx, network.RequestWillBeSent)
			go func() {
				for ev, err := range requests {
					if err != nil {
						return
					}
					if u, err := url.Parse(ev.Request.URL); err == nil && u.Path == "/fragments/hall" {
						fragmentGets.Add(1)
					} else if err == nil && u.Path == "/api/presences/stream" {
						streamGets.Add(1)
					}
				}
			}()
			b.holdClock(t)
			b.do(t, "open the page", chromedp.Navigate(base+"/"))
			if tt.holdAll {
				// The stream is open and will never deliver its snapshot: a
				// silence past the threshold, and the page leaves it.
				eventually.True(t, wait, "the page to open the stream", func() bool { return streamGets.Load() > 0 })
				b.advanceClock(t, silence+time.Millisecond)
			} else {
				// Live, and the regions the page fetches on its snapshot are
				// in (a fetched region carries its hash): a record written
				// before that fetch lands would reach the page through it.
				b.waitFor(t, "the snapshot and its regions", `tid('status').dataset.state === 'live' && !!document.querySelector('[data-region="strip"][data-hash]')`)
			}
			if !tt.wantPolling {
				// The page checks the quiet stream against the Hall after each
				// silence, and finds nothing missed. (Were it to give up on
				// the stream, the next request would be a poll, sent after
				// the status changed.) The first request is the page's fetch
				// when the snapshot arrives. A check ends by marking the
				// stream heard at the page's now: a silence made while one is
				// in flight is used up by it, so the clock moves on until the
				// next check goes out.
				for i := int64(1); i <= 3; i++ {
					eventually.True(t, wait, fmt.Sprintf("check %d of the quiet stream", i), func() bool {
						if fragmentGets.Load() >= 1+i {
							return true
						}
						b.advanceClock(t, silence+time.Millisecond)
						return false
					})
				}
				if got := eval[string](t, b, `tid('status').dataset.state`); got != "live" {
					t.Fatalf("a quiet stream: status %q, want live", got)
				}
			}
			one := sidecarRecord{Agent: "behind-proxy", Brain: "/srv/browser-test/shop", Worktree: "/srv/browser-test/shop", Theme: "held back"}
			writeSidecarRecord(t, m.Config.RegistryRoot, one)
			if tt.proxy && !tt.holdAll {
				// The join is held back with the rest of the stream: once the
				// Hall serves it, a silence, and the page checks the stream
				// against the Hall (twice, half a threshold apart) and finds
				// it missing.
				eventually.True(t, wait, "the Hall to serve the join", func() bool {
					return len(contractNow(t, m.URL()+"/api/presences").Presences) == 1
				})
				b.advanceClock(t, silence+time.Millisecond)
			}
			b.waitFor(t, "the join", rowExists(one.id()))
			want := "live live"
			if tt.wantPolling {
				want = "polling polling (stream unavailable)"
				b.waitFor(t, "the status to say so", `tid('status').dataset.state === 'polling'`)
			}
			if got := eval[string](t, b, `tid('status').dataset.state + ' ' + txt(tid('status'))`); got != want {
				t.Errorf("status: got %q, want %q", got, want)
			}
		})
	}
}

// shapeJS describes the rendered Hall element by element: tag, attributes
// and own text, for the strip, banner, recent events, collision list,
// roster and picker. Ages tick, the status line and the notify button are
// the script's (data-keep), and a fetched region is marked with its hash,
// so those are left out.
const shapeJS = `(() => {
  const out = [];
  for (const id of ['collision-banner', 'strip', 'recent', 'collisions', 'roster', 'brain-picker']) {
    const region = document.querySelector('[data-testid="' + id + '"]');
    for (const e of [region, ...region.querySelectorAll('*')]) {
      if (e.closest('[data-keep]')) continue;
      const attrs = Array.from(e.attributes).filter(a => a.name !== 'data-hash').map(a => a.name + '=' + a.value).sort().join(' ');
      const own = e.closest('time') ? '' : Array.from(e.childNodes)
        .filter(n => n.nodeType === 3).map(n => n.textContent.trim()).filter(Boolean).join('|');
      out.push(e.tagName.toLowerCase() + ' ' + attrs + ' :: ' + own);
    }
  }
  return out;
})()`

// TestBrowserWithoutJavaScript: with scripts disabled the server-rendered
// page is complete (strip, drill, roster, collisions) and shows no control
// that needs a script. With scripts on, the page swaps in the regions it
// fetches as fragments, and the result is the same markup: the fragments
// are the page's own templates.
func TestBrowserWithoutJavaScript(t *testing.T) {
	m := MustOpenHall(t, Config{})
	root := m.Config.RegistryRoot
	shop, docs := "/srv/browser-test/shop", "/srv/browser-test/docs"
	long := sidecarRecord{Agent: "a-1", Brain: shop, Worktree: shop + "-wt", Theme: `<b>one</b>`, Observed: true, Intent: "refactor", FirstSeenMs: nowMs() - 2*3600_000}
	writeSidecarRecord(t, root, long)
	writeSidecarRecord(t, root, sidecarRecord{Agent: "a-2", Brain: shop, Worktree: shop + "-wt", Observed: true, Intent: `"><img src=x>`, FirstSeenMs: nowMs() - 90_000})
	writeSidecarRecord(t, root, sidecarRecord{Agent: "reader", Brain: docs, Theme: "reads", FirstSeenMs: nowMs() - 3_000})
	for i := range 6 {
		writeSidecarRecord(t, root, sidecarRecord{Agent: fmt.Sprintf("extra-%d", i), Brain: docs, Worktree: fmt.Sprintf("%s/.worktrees/team/w%d", docs, i), Theme: "more"})
	}
	eventually.True(t, wait, "the Hall to serve them all", func() bool {
		var n struct{ Presences []any }
		getJSON(t, m.URL()+"/api/presences", &n)
		return len(n.Presences) == 9
	})
	b := openBrowser(t)
	setScripts(t, b, false)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	for expr, want := range map[string]string{
		`txt(tid('root-line'))`:       "9 agents · all brains · ⚠ 1 collision",
		`tid('status').dataset.state`: "static",
		`String(document.querySelectorAll('[data-testid="drill-row"]').length)`:  "6",
		`String(document.querySelectorAll('[data-testid="roster-row"]').length)`: "9",
		`String(document.querySelectorAll('[data-testid="collision"]').length)`:  "1",
		`String(getComputedStyle(tid('collision-banner')).display !== 'none')`:   "true",
		`txt(tid('drill-more'))`: "+3 more in the roster below",
	} {
		if got := eval[string](t, b, expr); got != want {
			t.Errorf("%s: got %q, want %q", expr, got, want)
		}
	}

	if eval[bool](t, b, `getComputedStyle(tid('notify')).display !== 'none'`) {
		t.Error("the notify button shows without JavaScript, where it cannot work")
	}

	// The same page, swapped in from fragments by the script once the stream
	// is live, for all brains and for one.
	for _, path := range []string{"/", "/?brain=" + url.QueryEscape(shop)} {
		setScripts(t, b, false)
		b.do(t, "open the page without scripts", chromedp.Navigate(m.URL()+path))
		server := eval[[]string](t, b, shapeJS)
		setScripts(t, b, true)
		b.do(t, "open the page with scripts", chromedp.Navigate(m.URL()+path))
		b.waitFor(t, "the stream to be live and the regions swapped", `tid('status').dataset.state === 'live' && performance.getEntriesByType('resource').some(e => e.name.includes('/fragments/hall'))`)
		script := eval[[]string](t, b, shapeJS)
		if len(server) != len(script) {
			t.Errorf("%s: elements: server rendered %d, the script %d", path, len(server), len(script))
		}
		for i := range min(len(server), len(script)) {
			if server[i] != script[i] {
				t.Errorf("%s: element %d differs:\nserver: %s\nscript: %s", path, i, server[i], script[i])
				break
			}
		}
	}
}

func setScripts(t *testing.T, b *browser, on bool) {
	t.Helper()
	if _, err := chromedp.Call(b.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on}); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserDemo opens `hall --demo`'s page, holds the demo at its first
// collision and checks the page at 1280 px and at phone width, in light
// and dark. With HALL_SCREENSHOT_DIR set it saves the screenshots there
// (hall.png is the README's docs/hall.png).
func TestBrowserDemo(t *testing.T) {
	m := MustOpenHall(t, Config{})
	b := openBrowser(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the stream to be live", `tid('status').dataset.state === 'live'`)

	collided := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	period := 100 * time.Millisecond
	if os.Getenv("HALL_SCREENSHOT_DIR") != "" {
		period = time.Second // pictures for people: ages that differ
	}
	d := NewDemo(m.App, period, nil)
	d.afterStep = func(ctx context.Context, _ int, snap presence.Snapshot) {
		if len(snap.Collisions) == 0 {
			return
		}
		once.Do(func() {
			close(collided)
			select { // hold the collision on screen until the pictures are taken
			case <-release:
			case <-ctx.Done():
			}
		})
	}
	d.Start(context.Background())
	t.Cleanup(d.Close)
	defer close(release)
	select {
	case <-collided:
	case <-time.After(browserWait):
		t.Fatal("the demo formed no collision")
	}
	b.waitFor(t, "the demo's collision on the page", `txt(tid('collision-warning', tid('scope-label'))) === '⚠ 1 collision' && document.querySelectorAll('[data-testid="roster-row"]').length >= 5`)

	dir := os.Getenv("HALL_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	shot := func(name string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(b.ctx, browserWait)
		defer cancel()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	b.do(t, "1280 px", chromedp.EmulateViewport(1280, 900))
	if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 1280 {
		t.Errorf("at 1280 px the page is %d px wide", w)
	}
	shot("hall.png")

	b.do(t, "phone width", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	if w := eval[int](t, b, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("on a phone (390 px) the page scrolls sideways: %d px wide", w)
	}
	shot("hall-phone.png")
	top, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hall-phone-top.png"), top, 0o644); err != nil {
		t.Fatal(err)
	}

	light := eval[string](t, b, `getComputedStyle(document.body).backgroundColor`)
	if _, err := chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
	}); err != nil {
		t.Fatal(err)
	}
	b.do(t, "1280 px, dark", chromedp.EmulateViewport(1280, 900))
	dark := eval[string](t, b, `getComputedStyle(document.body).backgroundColor`)
	if dark == light {
		t.Errorf("prefers-color-scheme: dark leaves the background %s", light)
	}
	shot("hall-dark.png")
}
