package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/web/httpwire"
	"github.com/hall-dev/hall/views"
)

// The edge: the rules every route of the table follows, by its flags and
// its method, applied in one place (guard) so a route added to the table
// gets them with nothing to remember.
//
//   - Host: a request must name the Hall by a loopback name or an IP
//     address, or by a name given with --allowed-host (AllowedHosts); any
//     other Host is a 421. DNS rebinding needs a name the attacker's DNS
//     answers: a page on evil.example whose name now points at 127.0.0.1
//     reaches the Hall with "Host: evil.example", and is refused.
//   - Cross-origin: a request that may change state (any method but GET,
//     HEAD and OPTIONS) from a browser page of another origin, same-site
//     ones included (another port of 127.0.0.1), is a 403, token or not
//     (net/http's CrossOriginProtection: Sec-Fetch-Site, else Origin
//     against Host). Clients that send neither header (curl, hall beat,
//     hooks, SDKs) are not browsers and pass.
//   - Body type: a POST, PUT or PATCH, and any request with a body, must
//     say Content-Type: application/json, or it is a 415. HTML forms and
//     text/plain fetches, the only bodies a foreign page can send without
//     a preflight, never reach a handler.
//   - Read token (ReadToken, --read-token): when set, every route but the
//     public ones (the page's assets) needs it: "Authorization: Bearer
//     <token>" from clients, the HttpOnly cookie from a browser (reads
//     only). The write token counts as a read token. The page takes the
//     token once as ?token=, sets the cookie and redirects without it; a
//     browser without it gets a small form. 401 otherwise.
//   - Write token (WriteToken, --token): when set, Write routes need it
//     as a bearer token. 401 otherwise.
//   - Stream routes lift the server's read timeout: they read nothing
//     after their headers and live on.

// ReadCookie is the cookie that carries a browser's read access.
const ReadCookie = "hall_read"

// edge is the rules above, with the Handler's tokens and hosts.
type edge struct {
	h           *Handler
	writeToken  string
	readToken   string
	cookieValue string // what ReadCookie holds: derived from the read token, never the token
	hosts       hostNames
	cop         *http.CrossOriginProtection
}

func newEdge(h *Handler) *edge {
	e := &edge{h: h, writeToken: h.WriteToken, readToken: h.ReadToken, hosts: newHostNames(h.AllowedHosts), cop: http.NewCrossOriginProtection()}
	if e.readToken != "" {
		mac := hmac.New(sha256.New, []byte(e.readToken))
		mac.Write([]byte("hall read cookie v1"))
		e.cookieValue = hex.EncodeToString(mac.Sum(nil))
	}
	return e
}

// guard wraps a route's handler in the rules its flags and method call for.
func (e *edge) guard(rt Route) http.HandlerFunc {
	next := rt.Handler
	safe := rt.Method == http.MethodGet || rt.Method == http.MethodHead || rt.Method == http.MethodOptions
	return func(w http.ResponseWriter, r *http.Request) {
		if !e.hosts.allowed(r.Host) {
			misdirected(w, r, e.h.Log)
			return
		}
		if err := e.cop.Check(r); err != nil {
			e.h.writeError(w, contract.Refuse(contract.KindForbidden, "cross_origin",
				"a request that changes the Hall is refused from a page of another origin (Sec-Fetch-Site or Origin)"))
			return
		}
		if rt.Page && e.readToken != "" && r.URL.Query().Has("token") {
			e.login(w, r)
			return
		}
		if !e.authorized(w, r, rt, safe) {
			return
		}
		if needsJSON(r) && !isJSON(r.Header.Get("Content-Type")) {
			e.h.writeError(w, contract.Refuse(contract.KindUnsupportedMedia, "unsupported_media_type",
				"the body must be Content-Type: application/json, got %q", r.Header.Get("Content-Type")))
			return
		}
		if rt.Stream {
			// The server's read timeout would end the stream's request
			// (and, served through its ResponseWriter, its context).
			_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		}
		next(w, r)
	}
}

// authorized applies the tokens, answering the refusal itself: true when
// the request may go on.
func (e *edge) authorized(w http.ResponseWriter, r *http.Request, rt Route, safe bool) bool {
	switch {
	case rt.Write && e.writeToken != "":
		if !bearerIs(r, e.writeToken) {
			unauthorized(w, ErrTokenRequired.Error())
			return false
		}
		return true
	case rt.Public || e.readToken == "":
		return true
	case bearerIs(r, e.readToken) || (e.writeToken != "" && bearerIs(r, e.writeToken)):
		return true
	case safe && e.hasCookie(r):
		// The cookie carries reads only: a write needs a bearer token.
		return true
	case rt.Page:
		e.loginPage(w, r, http.StatusUnauthorized, false)
		return false
	default:
		unauthorized(w, "this Hall requires its read token: Authorization: Bearer <token> (a browser gives it once on the page)")
		return false
	}
}

func unauthorized(w http.ResponseWriter, detail string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="hall"`)
	httpwire.WriteError(w, nil, contract.Refuse(contract.KindUnauthorized, "unauthorized", "%s", detail))
}

// login takes the read token from ?token= once: right, it sets the
// cookie and redirects to the same page without the token in its address
// (or history, or a Referer); wrong, the form again.
func (e *edge) login(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	given := q.Get("token")
	if !equalSecret(given, e.readToken) && (e.writeToken == "" || !equalSecret(given, e.writeToken)) {
		e.loginPage(w, r, http.StatusUnauthorized, true)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: ReadCookie, Value: e.cookieValue, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	q.Del("token")
	to := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, to.String(), http.StatusSeeOther)
}

func (e *edge) loginPage(w http.ResponseWriter, r *http.Request, status int, failed bool) {
	brain := r.URL.Query().Get("brain")
	e.h.render(r.Context(), w, status, views.LoginPage(views.Login{CSS: e.h.assets().Path("hall.css"), Brain: brain, Failed: failed}))
}

func (e *edge) hasCookie(r *http.Request) bool {
	c, err := r.Cookie(ReadCookie)
	return err == nil && equalSecret(c.Value, e.cookieValue)
}

// hostNames are the names the Hall answers to besides loopback names and
// IP addresses: lower case, each "name" (any port) or "name:port".
type hostNames map[string]bool

func newHostNames(allowed []string) hostNames {
	n := hostNames{}
	for _, host := range allowed {
		n[strings.ToLower(strings.TrimSuffix(host, "."))] = true
	}
	return n
}

// AllowedHosts answers only requests whose Host is a loopback name, an IP
// address or one of allowed; any other gets 421 host_not_allowed. The
// route table applies it to every route; it is exported for servers beside
// the Hall's own (the profiler).
func AllowedHosts(allowed []string, next http.Handler) http.Handler {
	names := newHostNames(allowed)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !names.allowed(r.Host) {
			misdirected(w, r, nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func misdirected(w http.ResponseWriter, r *http.Request, log *slog.Logger) {
	httpwire.WriteError(w, log, contract.Refuse(contract.KindMisdirected, "host_not_allowed",
		"this Hall answers to localhost, IP addresses and the names given with --allowed-host; not to %q", r.Host))
}

// allowed reports whether the Host header names the Hall as it may be
// named: a loopback name, an IP address (which no DNS answer can rebind),
// or an allowed name. A request without Host (HTTP/1.0) is no browser's.
func (n hostNames) allowed(host string) bool {
	if host == "" {
		return true
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.ToLower(strings.TrimSuffix(strings.Trim(name, "[]"), "."))
	if name == "localhost" {
		return true
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	return n[name] || n[strings.ToLower(strings.Replace(host, ".:", ":", 1))]
}

// needsJSON: every POST, PUT and PATCH, and any request with a body.
func needsJSON(r *http.Request) bool {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		return true
	}
	return r.ContentLength > 0 || len(r.TransferEncoding) > 0
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

func equalSecret(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
