// Package web holds the Hall's HTTP handlers, one concern a file, written
// against net/http so the router at the edge (Echo, in cmd/hall) stays one
// file: a move to another router or Echo major version touches routes.go
// alone. Handlers read the domain (internal/presence), speak the wire
// contract (internal/contract) and render the page (views).
package web
