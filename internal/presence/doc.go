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
//
// # The Service's parts and their locks
//
// A Service is three owned parts, each with its own lock, and its
// counters:
//
//   - the mirror (mirror.mu): the store's records as the last listing and
//     the rereads since found them, this Hall's own writes over them, the
//     stale versions found, the reclaim queue. mirror.refreshMu orders
//     the listings and rereads themselves (held across the store's read).
//   - the projection (projection.mu): this Hall's beat of each presence it
//     takes beats for (an entry), and each entry's copy for readers
//     (entry.shown). An entry's own mu serializes that presence's beats,
//     held across its store write.
//   - the derivation (derivation.collMu, derivation.overMu): the last
//     snapshot's collisions by brain, and when each open overlap was first
//     derived. A snapshot copies its live records under the mirror's and
//     the projection's locks, lets go of them, then derives: beats never
//     wait for a derivation.
//   - the counters (statsMu), a leaf.
//
// The lock order (a lock is only taken while holding those before it in
// its line, never one after it):
//
//	entry.mu → mirror.mu → projection.mu → statsMu
//	mirror.refreshMu → mirror.mu
//
// A reader of live records (a snapshot, a beat's collisions, LiveBeside)
// holds mirror.mu and projection.mu together, in that order; a beat
// publishes to both under the two, so no reader sees one without the
// other. refreshMu and entry.mu are never held together (a listing marks
// an entry left without its lock); prune only tries an entry's lock
// (TryLock) under projection.mu, never waits for it. collMu and overMu
// are taken holding none of the others and not together; overMu is held
// across the OverlapFinder (git's answers, internal/gitscan's locks
// below it). A caller's own locks come before all of these: the stream
// hub takes a snapshot holding its sync lock, never its hub lock.
package presence
