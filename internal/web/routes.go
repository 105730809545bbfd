package web

import "net/http"

// Route is one endpoint of the Hall: where it is, what serves it, and what
// the edge needs to know of it. The table is the one declaration of the
// Hall's routes: cmd/hall adapts it to its router, the tests mount it on
// an http.ServeMux.
type Route struct {
	Method string // "GET", "POST", "DELETE"
	// Path is a net/http pattern path: "{name}" is a path value
	// (r.PathValue), "{$}" ends an exact match.
	Path    string
	Handler http.HandlerFunc
	Write   bool // changes the roster: guarded by the write token (applied in Handler)
	Stream  bool // a long-lived event stream, not a request and a response
}

// Pattern is the route as an http.ServeMux pattern: "GET /api/presences".
func (rt Route) Pattern() string { return rt.Method + " " + rt.Path }

// Routes returns every route the Hall serves. The write routes' handlers
// already require h.WriteToken (see RequireToken): set it before calling.
func (h *Handler) Routes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/{$}", Handler: h.HandlePage},
		{Method: http.MethodGet, Path: "/static/{name}", Handler: h.HandleStatic},
		{Method: http.MethodGet, Path: "/api/presences", Handler: h.HandlePresencesIndex},
		{Method: http.MethodGet, Path: "/api/presences/stream", Handler: h.HandlePresencesStream, Stream: true},
		{Method: http.MethodGet, Path: "/api/health", Handler: h.HandleHealth},
		{Method: http.MethodGet, Path: "/api/north", Handler: h.HandleNorth},
		{Method: http.MethodGet, Path: "/api/cockpit", Handler: h.HandleCockpit},
		{Method: http.MethodPost, Path: "/api/presences/beat", Handler: RequireToken(h.WriteToken, h.HandleBeat), Write: true},
		{Method: http.MethodDelete, Path: "/api/presences/{presence_id}", Handler: RequireToken(h.WriteToken, h.HandleLeave), Write: true},
	}
}
