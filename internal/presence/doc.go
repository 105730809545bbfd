// Package presence is the Hall's domain: the m1nd-presence-v0 record, its
// stable id, the interface of the stores that keep records, staleness, and
// the collision predicate derived at read.
//
// It knows no HTTP, no HTML and no SSE: those live at the edge (internal/web,
// views, internal/stream). It knows no files and no NATS either: the stores
// are internal/dirstore (the sidecar folder) and internal/natsstore, and
// both pass the contract in internal/presence/storetest. Everything here is
// plain Go over plain values, with the clock injected so tests can stand on
// an exact millisecond.
package presence
