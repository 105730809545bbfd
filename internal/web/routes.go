package web

import "net/http"

// Route is one endpoint of the Hall: where it is, what serves it, and what
// the edge needs to know of it. The table is the one declaration of the
// Hall's routes: cmd/hall adapts it to its router, the tests mount it on
// an http.ServeMux.
//
// The edge's rules (edge.go) follow from a route's flags and method, so a
// route added here is guarded with nothing more to write: every route
// answers only to allowed Host names; a method other than GET, HEAD and
// OPTIONS is refused from a browser page of another origin and, with a
// body, must be JSON; every route but a Public one needs the read token
// when one is set.
type Route struct {
	Method string // "GET", "POST", "DELETE"
	// Path is a net/http pattern path: "{name}" is a path value
	// (r.PathValue), "{$}" ends an exact match.
	Path    string
	Handler http.HandlerFunc
	Write   bool // changes the roster: guarded by the write token
	Stream  bool // a long-lived event stream, not a request and a response: the server's read timeout is lifted
	Public  bool // open to all even with a read token (the page's own assets)
	Page    bool // a page for people: without the read token it answers a form, and it takes the token once as ?token=
}

// Routes returns every route the Hall serves, each handler already wrapped
// in the edge's rules for its flags (edge.go): set the Handler's tokens
// and hosts before calling. A path none of them serves is NotFound's.
func (h *Handler) Routes() []Route {
	routes := []Route{
		{Method: http.MethodGet, Path: "/{$}", Handler: h.HandlePage, Page: true},
		{Method: http.MethodGet, Path: "/static/{name}", Handler: h.serve(h.HandleStatic), Public: true},
		{Method: http.MethodGet, Path: "/fragments/{name}", Handler: h.serve(h.HandleFragment)},
		{Method: http.MethodGet, Path: "/api/presences", Handler: h.serve(h.HandlePresencesIndex)},
		{Method: http.MethodGet, Path: "/api/presences/stream", Handler: h.serve(h.HandlePresencesStream), Stream: true},
		{Method: http.MethodGet, Path: "/api/events", Handler: h.serve(h.HandleEvents)},
		{Method: http.MethodGet, Path: "/api/health", Handler: h.serve(h.HandleHealth)},
		{Method: http.MethodGet, Path: "/api/north", Handler: h.serve(h.HandleNorth)},
		{Method: http.MethodGet, Path: "/api/cockpit", Handler: h.serve(h.HandleCockpit)},
		{Method: http.MethodGet, Path: "/api/snapshots", Handler: h.serve(h.HandleSnapshots)},
		{Method: http.MethodGet, Path: "/api/snapshots/{id}", Handler: h.serve(h.HandleSnapshot)},
		// The contract's schemas are the same for every Hall and say
		// nothing of its roster: public, as the page's assets.
		{Method: http.MethodGet, Path: "/api/schema", Handler: h.serve(h.HandleSchemaIndex), Public: true},
		{Method: http.MethodGet, Path: "/api/schema/{$}", Handler: h.serve(h.HandleSchemaIndex), Public: true},
		{Method: http.MethodGet, Path: "/api/schema/{name}", Handler: h.serve(h.HandleSchema), Public: true},
		{Method: http.MethodGet, Path: "/metrics", Handler: h.serve(h.HandleMetrics)},
		{Method: http.MethodPost, Path: "/api/presences/beat", Handler: h.serve(h.HandleBeat), Write: true},
		// A check writes nothing: a read, behind the read token.
		{Method: http.MethodPost, Path: "/api/presences/check", Handler: h.serve(h.HandleCheck)},
		{Method: http.MethodPost, Path: "/api/hooks/{agent}", Handler: h.serve(h.HandleHook), Write: true},
		{Method: http.MethodDelete, Path: "/api/presences/{presence_id}", Handler: h.serve(h.HandleLeave), Write: true},
		// MCP over streamable HTTP (internal/mcp): POST carries the calls,
		// GET is a session's stream, DELETE ends a session. Not Write: its
		// reads stay open, and its writing tools check the token per call.
		{Method: http.MethodPost, Path: "/mcp", Handler: h.serve(h.HandleMCP)},
		{Method: http.MethodGet, Path: "/mcp", Handler: h.serve(h.HandleMCP), Stream: true},
		{Method: http.MethodDelete, Path: "/mcp", Handler: h.serve(h.HandleMCP)},
	}
	e := newEdge(h)
	for i := range routes {
		routes[i].Handler = e.guard(routes[i])
	}
	return routes
}

// NotFound answers a path no route serves (HandleNotFound) behind the
// edge's rules for a read: the Host rule and the read token hold there
// too, so the 404 page's picker shows no brain to a stranger.
func (h *Handler) NotFound() http.HandlerFunc {
	return newEdge(h).guard(Route{Method: http.MethodGet, Handler: h.HandleNotFound})
}
