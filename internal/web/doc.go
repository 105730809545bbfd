// Package web holds the Hall's HTTP handlers, one concern a file, written
// against net/http, and the one table of its routes (Handler.Routes:
// method, net/http pattern, handler, and the flags the edge needs: whether
// it writes, streams, is public or is the page). The router at the edge
// (Echo, in cmd/hall) mounts that table in a loop, and the tests mount it
// on an http.ServeMux: a move to another router or Echo major version
// touches cmd/hall/routes.go alone.
//
// Every route of the table comes guarded by the edge's rules (edge.go),
// derived from its flags and method: allowed Host names only (DNS
// rebinding), no state-changing request from a browser page of another
// origin, JSON bodies, the write token on writes and the read token on
// everything but the public assets. Handlers read the domain
// (internal/presence), speak the wire contract (internal/contract) and
// render the page (views).
package web
