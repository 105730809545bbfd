// Package natsstore is the distributed presence store: presence.Store on a
// NATS JetStream Key-Value bucket, for Halls and relays on several machines
// that share one roster. The sidecar directory (internal/dirstore) stays
// the embedded default; this package is the only one that knows NATS.
//
// The layout is the sidecar's, moved into a bucket: one key per presence
// id, the value the same m1nd-presence-v0 JSON. The engine does the work it
// is made for:
//
//   - Expiry is pushed by the engine. Every write carries a per-message TTL
//     (the record's remaining life plus a little grace) and the bucket's
//     max-age, derived from the ttl, is the ceiling for anything written
//     without one. The bucket keeps limit markers, so a watcher sees an
//     expiry as a delete. Staleness is still filtered at read by the
//     caller: the engine is never trusted to be on time.
//   - Writes are compare-and-set on the key's revision; a conflicting
//     writer re-reads and merges (presence.Merge), so two Halls never lose a beat.
//   - A key watch replaces file watching as the change source, and keeps a
//     local view of the bucket that List serves while the watch is healthy.
//
// What it does not do: decide staleness, collisions or anything about the
// roster (package presence), or know HTTP.
package natsstore
