package main

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
)

// attacker serves pages of another loopback origin (127.0.0.1, another
// port: same-site, cross-origin) that try every write a page can send
// without a CORS preflight: text/plain and untyped fetches ("/"), a
// text/plain form whose body is valid JSON ("/form-plain") and a
// urlencoded one ("/form-urlencoded"), each submitted on load as a top
// level navigation; and a DELETE, which needs a preflight the Hall never
// grants.
func attacker(t *testing.T, hall, leaveID string) *httptest.Server {
	beat := html.EscapeString(hall + "/api/presences/beat")
	pages := map[string]string{
		"/": fmt.Sprintf(`<script>
window.sent = 0;
const hall = %q;
const note = () => { window.sent++; };
fetch(hall + '/api/presences/beat', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
  body: JSON.stringify({agent_id: 'csrf-fetch-plain', brain: '/srv/csrf'})}).then(note, note);
fetch(hall + '/api/presences/beat', {method: 'POST', mode: 'no-cors',
  body: JSON.stringify({agent_id: 'csrf-fetch-untyped', brain: '/srv/csrf'})}).then(note, note);
fetch(hall + '/api/presences/%s', {method: 'DELETE'}).then(note, note);
</script>`, hall, leaveID),
		"/form-plain": `<form method="POST" enctype="text/plain" action="` + beat + `">
<input type="hidden" name='{"agent_id":"csrf-form-plain","brain":"/srv/csrf","theme":"' value='"}'></form>
<script>document.forms[0].submit();</script>`,
		"/form-urlencoded": `<form method="POST" action="` + beat + `">
<input type="hidden" name="agent_id" value="csrf-form"><input type="hidden" name="brain" value="/srv/csrf"></form>
<script>document.forms[0].submit();</script>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><html><body>"+pages[r.URL.Path]+"</body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestBrowserForeignPageCannotWrite: pages on another loopback origin try
// to beat and to leave through the browser; the Hall refuses every write
// it receives (403) and nothing is written, nothing removed.
func TestBrowserForeignPageCannotWrite(t *testing.T) {
	m := MustOpenHall(t, Config{})
	own := beatHall(t, m.URL(), contract.BeatRequest{AgentID: "own-agent", Brain: "/srv/csrf"})
	evil := attacker(t, m.URL(), own.PresenceID)

	b := openBrowser(t)
	var mu sync.Mutex
	sent := map[string]string{} // request id → method and path, of requests to the Hall
	answered := map[string]int64{}
	requests := chromedp.Events(b.ctx, network.RequestWillBeSent)
	go func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			if u, perr := url.Parse(ev.Request.URL); perr == nil && "http://"+u.Host == m.URL() {
				mu.Lock()
				sent[string(ev.RequestID)] = ev.Request.Method + " " + u.Path
				mu.Unlock()
			}
		}
	}()
	responses := chromedp.Events(b.ctx, network.ResponseReceived)
	go func() {
		for ev, err := range responses {
			if err != nil {
				return
			}
			mu.Lock()
			answered[string(ev.RequestID)] = ev.Response.Status
			mu.Unlock()
		}
	}()
	b.do(t, "open the foreign page", chromedp.Navigate(evil.URL+"/"))
	b.waitFor(t, "the page's fetches to settle", `window.sent === 3`)
	for _, form := range []string{"/form-plain", "/form-urlencoded"} {
		b.do(t, "open "+form, chromedp.Navigate(evil.URL+form))
		b.waitFor(t, form+" to post to the Hall", `location.href.startsWith(`+jsString(m.URL())+`)`)
	}
	beats := func() (n int, statuses []int64) {
		mu.Lock()
		defer mu.Unlock()
		for id, what := range sent {
			if what == "POST /api/presences/beat" {
				if s, ok := answered[id]; ok {
					n++
					statuses = append(statuses, s)
				}
			}
			if s, ok := answered[id]; ok && strings.HasPrefix(what, "DELETE ") {
				t.Errorf("a foreign page's %s was answered %d: its preflight must stop it", what, s)
			}
		}
		return n, statuses
	}
	eventually.True(t, wait, "the Hall to answer the two fetches and the two forms", func() bool { n, _ := beats(); return n >= 4 })
	for _, s := range func() []int64 { _, st := beats(); return st }() {
		if s != http.StatusForbidden {
			t.Errorf("a foreign page's beat was answered %d, want 403", s)
		}
	}

	got := contractNow(t, m.URL()+"/api/presences")
	if len(got.Presences) != 1 || got.Presences[0].PresenceID != own.PresenceID {
		t.Errorf("after the foreign pages: roster %v, want only %s (nothing written, nothing removed)", ids(got.Presences), own.PresenceID)
	}
	files, _ := os.ReadDir(filepath.Join(m.Config.RegistryRoot, "presences"))
	if len(files) != 1 {
		t.Errorf("after the foreign pages: %d files in the registry, want 1", len(files))
	}
}

// TestBrowserStoreUnreachable: the live page says so in its status line
// when NATS goes away under the Hall, and drops the roster whole.
func TestBrowserStoreUnreachable(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	m := natsHall(t, srv.URL())
	beatHall(t, m.URL(), beatOf("claude-1", "/srv/shop", "/srv/shop-wt1"))
	b := openBrowser(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/"))
	b.waitFor(t, "the stream to be live with the presence", `tid('status').dataset.state === 'live' && txt(tid('root-line')).startsWith('1 agent')`)
	srv.Shutdown()
	srv.WaitForShutdown()
	b.waitFor(t, "the page to say the store is unreachable", `tid('registry-error') && txt(tid('registry-error')).startsWith('Store unreachable: ')`)
	if got := eval[string](t, b, `txt(tid('root-line'))`); !strings.HasPrefix(got, "0 agents") {
		t.Errorf("root line with the store unreachable: got %q, want the roster dropped", got)
	}
}

// TestBrowserReadToken: a Hall with --read-token shows a browser only its
// form; the form takes the token once, the page comes back without it in
// the address, live over its stream on an HttpOnly cookie no script reads.
func TestBrowserReadToken(t *testing.T) {
	m := MustOpenHall(t, Config{ReadToken: "r3ad-t0ken"})
	beatHall := func(agent string) {
		t.Helper()
		if r := postBeat(t, m.URL(), `{"agent_id":"`+agent+`","brain":"/srv/shop"}`, map[string]string{"Authorization": "Bearer r3ad-t0ken"}); r.status != 200 {
			t.Fatalf("beat: %d %s", r.status, r.body)
		}
	}
	beatHall("before")
	b := openBrowser(t)
	b.do(t, "open the page", chromedp.Navigate(m.URL()+"/?brain=/srv/shop"))
	b.waitFor(t, "the form", `tid('login-form') && !tid('hall')`)
	if strings.Contains(eval[string](t, b, `document.body.textContent`), "before") {
		t.Error("the form shows the roster")
	}
	b.do(t, "give the token",
		chromedp.SendKeys(`[data-testid="login-token"]`, "r3ad-t0ken"),
		chromedp.Click(`[data-testid="login-submit"]`))
	b.do(t, "the page after the form", chromedp.WaitVisible(`[data-testid="hall"]`))
	b.waitFor(t, "the page, live", `tid('hall') && tid('status').dataset.state === 'live'`)
	if got := eval[string](t, b, `location.pathname + location.search`); got != "/?brain=%2Fsrv%2Fshop" {
		t.Errorf("address after the form: got %q, want the brain kept and no token", got)
	}
	if got := eval[string](t, b, `document.cookie`); got != "" {
		t.Errorf("document.cookie: got %q, want nothing a script can read", got)
	}
	beatHall("after")
	b.waitFor(t, "a beat to arrive over the stream", `txt(tid('root-line')).startsWith('2 agents')`)
}
