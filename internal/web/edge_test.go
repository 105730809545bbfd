package web

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/presence"
)

// send makes one request, following no redirect. host, when set, is the
// Host header.
func (th *testHall) send(t *testing.T, method, path, host, body string, header map[string]string) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, th.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if method == http.MethodGet {
		schematest.CheckAnswer(t, th.srv.URL+path, resp.StatusCode, b)
	}
	return reply{resp.StatusCode, resp.Header, b}
}

func (r reply) code(t *testing.T) string {
	t.Helper()
	var e contract.ErrorResponse
	if strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		r.decode(t, &e)
	}
	return e.Error
}

const jsonType = "application/json"

// The edge's rules on writes, table-driven: the Host, the origin of a
// browser request, the body's type; each refusal is its own status and
// code, and writes nothing.
func TestEdgeWriteRules(t *testing.T) {
	body := beatBody("claude-7", "/srv/shop", nil)
	cases := []struct {
		name   string
		token  string // the Hall's --token
		host   string
		header map[string]string
		status int
		code   string
	}{
		{"a client", "", "", map[string]string{"Content-Type": jsonType}, 200, ""},
		{"charset is fine", "", "", map[string]string{"Content-Type": "application/json; charset=utf-8"}, 200, ""},
		{"same origin, by Sec-Fetch-Site", "", "", map[string]string{"Content-Type": jsonType, "Sec-Fetch-Site": "same-origin"}, 200, ""},
		{"typed by a person, Sec-Fetch-Site none", "", "", map[string]string{"Content-Type": jsonType, "Sec-Fetch-Site": "none"}, 200, ""},
		{"same origin, by Origin", "", "localhost:7433", map[string]string{"Content-Type": jsonType, "Origin": "http://localhost:7433"}, 200, ""},

		{"text/plain", "", "", map[string]string{"Content-Type": "text/plain"}, 415, "unsupported_media_type"},
		{"no type", "", "", nil, 415, "unsupported_media_type"},
		{"a form", "", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"multipart", "", "", map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, 415, "unsupported_media_type"},
		{"json-ish", "", "", map[string]string{"Content-Type": "application/jsonx"}, 415, "unsupported_media_type"},
		{"garbage type", "", "", map[string]string{"Content-Type": ";;"}, 415, "unsupported_media_type"},

		{"same-site page (another port)", "", "", map[string]string{"Content-Type": jsonType, "Sec-Fetch-Site": "same-site"}, 403, "cross_origin"},
		{"cross-site page", "", "", map[string]string{"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site"}, 403, "cross_origin"},
		{"cross-site page with the token", "s3cret", "", map[string]string{"Content-Type": jsonType, "Sec-Fetch-Site": "cross-site", "Authorization": "Bearer s3cret"}, 403, "cross_origin"},
		{"old browser, foreign Origin", "", "127.0.0.1:7433", map[string]string{"Content-Type": jsonType, "Origin": "http://127.0.0.1:8080"}, 403, "cross_origin"},
		{"old browser, null Origin", "", "", map[string]string{"Content-Type": jsonType, "Origin": "null"}, 403, "cross_origin"},
		{"old browser, foreign Origin, with the token", "s3cret", "127.0.0.1:7433", map[string]string{"Content-Type": jsonType, "Origin": "http://evil.example", "Authorization": "Bearer s3cret"}, 403, "cross_origin"},

		{"token: none", "s3cret", "", map[string]string{"Content-Type": jsonType}, 401, "unauthorized"},
		{"token: right", "s3cret", "", map[string]string{"Content-Type": jsonType, "Authorization": "Bearer s3cret"}, 200, ""},

		{"rebound name", "", "evil.example:7433", map[string]string{"Content-Type": jsonType}, 421, "host_not_allowed"},
		{"rebound name with the token", "s3cret", "evil.example", map[string]string{"Content-Type": jsonType, "Authorization": "Bearer s3cret"}, 421, "host_not_allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			th := newTestHall(t, tc.token)
			r := th.send(t, http.MethodPost, "/api/presences/beat", tc.host, body, tc.header)
			if r.status != tc.status || (tc.code != "" && r.code(t) != tc.code) {
				t.Errorf("got %d %s, want %d %s", r.status, r.body, tc.status, tc.code)
			}
			if files := th.files(t); tc.status != 200 && len(files) != 0 {
				t.Errorf("a refused beat wrote %v", files)
			}
		})
	}
}

// The leave follows the same rules, but has no body and needs no type.
func TestEdgeLeaveRules(t *testing.T) {
	th := newTestHall(t, "")
	id := presence.ID("claude-7", "/srv/shop")
	beat := func() {
		t.Helper()
		if r := th.do(t, "POST", "/api/presences/beat", beatBody("claude-7", "/srv/shop", nil), nil); r.status != 200 {
			t.Fatalf("beat: %d %s", r.status, r.body)
		}
	}
	beat()
	for _, tc := range []struct {
		name   string
		host   string
		header map[string]string
		status int
	}{
		{"cross-site", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"foreign Origin", "", map[string]string{"Origin": "http://127.0.0.1:1"}, 403},
		{"rebound name", "evil.example", nil, 421},
		{"a client, no type", "", nil, 204},
	} {
		if r := th.send(t, http.MethodDelete, "/api/presences/"+id, tc.host, "", tc.header); r.status != tc.status {
			t.Errorf("%s: got %d %s, want %d", tc.name, r.status, r.body, tc.status)
		}
		if tc.status != 204 && len(th.files(t)) != 1 {
			t.Errorf("%s: a refused leave removed the presence", tc.name)
		}
	}
	beat()
	if r := th.send(t, http.MethodDelete, "/api/presences/"+id, "", "x", map[string]string{"Content-Type": "text/plain"}); r.status != 415 {
		t.Errorf("a leave with a text body: got %d, want 415", r.status)
	}
}

// Host names: loopback names and IP addresses with any port, and the
// --allowed-host names (case and a trailing dot aside); anything else is a
// 421 on every route, reads included.
func TestEdgeHosts(t *testing.T) {
	th := newTestHallWith(t, func(h *Handler) { h.AllowedHosts = []string{"hall.example.com", "Other.Example:8443"} })
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:7433", true}, {"127.0.0.1", true}, {"[::1]:7433", true}, {"[::1]", true},
		{"localhost:7433", true}, {"LOCALHOST", true}, {"localhost.:80", true},
		{"192.168.1.5:7433", true}, {"[fe80::1%25eth0]:7433", true},
		{"hall.example.com", true}, {"hall.example.com:1234", true}, {"HALL.example.com.", true},
		{"other.example:8443", true}, {"other.example:8444", false}, {"other.example", false},
		{"evil.example", false}, {"evil.example:7433", false}, {"localhost.evil.example", false},
		{"127.0.0.1.nip.io", false}, {"sub.hall.example.com", false},
	} {
		for _, path := range []string{"/api/presences", "/api/health", "/"} {
			r := th.send(t, http.MethodGet, path, tc.host, "", nil)
			if got := r.status != http.StatusMisdirectedRequest; got != tc.ok {
				t.Errorf("GET %s with Host %q: got %d, want allowed=%v", path, tc.host, r.status, tc.ok)
			}
			if !tc.ok && r.code(t) != "host_not_allowed" {
				t.Errorf("GET %s with Host %q: got %s, want host_not_allowed", path, tc.host, r.body)
			}
		}
	}
}

// --read-token: every route but the assets needs it; the bearer read or
// write token, or the page's cookie on reads; the page takes the token
// once, sets an HttpOnly, SameSite=Strict cookie and redirects without it.
func TestEdgeReadToken(t *testing.T) {
	th := newTestHallWith(t, func(h *Handler) { h.ReadToken, h.WriteToken = "r3ad", "wr1te" })
	reads := []string{"/api/presences", "/api/health", "/api/north?presence_id=prs_000000000000", "/api/cockpit", "/api/presences/stream"}
	for _, path := range reads {
		for _, tc := range []struct {
			auth string
			want int
		}{{"", 401}, {"Bearer nope", 401}, {"r3ad", 401}, {"Bearer r3ad", 200}, {"Bearer wr1te", 200}} {
			r := th.send(t, http.MethodGet, path, "", "", map[string]string{"Authorization": tc.auth})
			want := tc.want
			if want == 200 && strings.Contains(path, "/stream") {
				want = 503 // past the token: this test Hall has no stream
			}
			if r.status != want {
				t.Errorf("GET %s with %q: got %d %s, want %d", path, tc.auth, r.status, r.body, want)
			}
			if want == 401 && (r.code(t) != "unauthorized" || r.header.Get("WWW-Authenticate") == "") {
				t.Errorf("GET %s with %q: got %s, want unauthorized with WWW-Authenticate", path, tc.auth, r.body)
			}
		}
	}
	// Writes: the write token; the read token is not enough.
	body := beatBody("claude-7", "/srv/shop", nil)
	for _, tc := range []struct {
		auth string
		want int
	}{{"Bearer r3ad", 401}, {"Bearer wr1te", 200}} {
		if r := th.send(t, http.MethodPost, "/api/presences/beat", "", body, map[string]string{"Authorization": tc.auth, "Content-Type": jsonType}); r.status != tc.want {
			t.Errorf("beat with %q: got %d, want %d", tc.auth, r.status, tc.want)
		}
	}

	// The page: a form without the token, the form again with a wrong one.
	for _, q := range []string{"/", "/?token=nope"} {
		r := th.send(t, http.MethodGet, q, "", "", nil)
		if r.status != 401 || !strings.Contains(string(r.body), `data-testid="login-form"`) || strings.Contains(string(r.body), "/srv/shop") {
			t.Errorf("GET %s: got %d, want 401 with the form and nothing of the roster:\n%s", q, r.status, r.body)
		}
		if c := r.header.Get("Set-Cookie"); c != "" {
			t.Errorf("GET %s: set a cookie %q", q, c)
		}
	}
	// The right token: a cookie and a redirect without it.
	r := th.send(t, http.MethodGet, "/?brain=%2Fsrv%2Fshop&token=r3ad", "", "", nil)
	loc, _ := url.Parse(r.header.Get("Location"))
	if r.status != http.StatusSeeOther || loc == nil || loc.Path != "/" || loc.Query().Has("token") || loc.Query().Get("brain") != "/srv/shop" {
		t.Fatalf("GET /?token=right: got %d Location %q, want 303 to /?brain=/srv/shop", r.status, r.header.Get("Location"))
	}
	cookies, err := http.ParseSetCookie(r.header.Get("Set-Cookie"))
	if err != nil || cookies.Name != ReadCookie || !cookies.HttpOnly || cookies.SameSite != http.SameSiteStrictMode || cookies.Path != "/" || strings.Contains(cookies.Value, "r3ad") {
		t.Fatalf("the cookie: got %q (%v), want %s, HttpOnly, SameSite=Strict, Path=/, not the token itself", r.header.Get("Set-Cookie"), err, ReadCookie)
	}
	cookie := map[string]string{"Cookie": cookies.Name + "=" + cookies.Value}
	for _, path := range append([]string{"/", "/?brain=/srv/shop"}, reads[:4]...) {
		if r := th.send(t, http.MethodGet, path, "", "", cookie); r.status != 200 {
			t.Errorf("GET %s with the cookie: got %d, want 200", path, r.status)
		}
	}
	if r := th.send(t, http.MethodGet, "/api/presences", "", "", map[string]string{"Cookie": ReadCookie + "=" + strings.Repeat("0", 64)}); r.status != 401 {
		t.Errorf("a forged cookie: got %d, want 401", r.status)
	}
	// The cookie carries reads only.
	if r := th.send(t, http.MethodPost, "/api/presences/beat", "", body, map[string]string{"Content-Type": jsonType, "Cookie": cookie["Cookie"]}); r.status != 401 {
		t.Errorf("a beat with only the cookie: got %d, want 401", r.status)
	}
	// The assets stay public.
	login, assets := th.send(t, http.MethodGet, "/", "", "", nil), 0
	for _, line := range strings.Split(string(login.body), `"`) {
		if strings.HasPrefix(line, "/static/") {
			assets++
			if r := th.send(t, http.MethodGet, line, "", "", nil); r.status != 200 {
				t.Errorf("GET %s without a token: got %d, want 200", line, r.status)
			}
		}
	}
	if assets == 0 {
		t.Errorf("the form links no stylesheet:\n%s", login.body)
	}
}

// Without --read-token the page ignores ?token= and reads stay open.
func TestEdgeReadsOpenWithoutReadToken(t *testing.T) {
	th := newTestHall(t, "wr1te")
	for _, path := range []string{"/", "/?token=x", "/api/presences", "/api/health"} {
		if r := th.send(t, http.MethodGet, path, "", "", nil); r.status != 200 || r.header.Get("Set-Cookie") != "" {
			t.Errorf("GET %s: got %d (cookie %q), want 200 and no cookie", path, r.status, r.header.Get("Set-Cookie"))
		}
	}
}
