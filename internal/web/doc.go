// Package web holds the Hall's HTTP handlers, one concern a file, written
// against net/http, and the one table of its routes (Handler.Routes:
// method, net/http pattern, handler, whether it writes or streams). The
// router at the edge (Echo, in cmd/hall) mounts that table in a loop, and
// the tests mount it on an http.ServeMux: a move to another router or Echo
// major version touches cmd/hall/routes.go alone. Handlers read the domain (internal/presence), speak the wire
// contract (internal/contract) and render the page (views).
package web
