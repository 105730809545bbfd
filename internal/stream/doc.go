// Package stream pushes the live roster over Server-Sent Events: a Hub
// turns the presence service's change signals into numbered diffs (joins,
// updates, leaves, collisions opened and closed), keeps a bounded history of
// them for resume, and fans them out to subscribers, each filtered to its
// brain, presence or collisions. It also holds the other end: a Client that
// follows a Hall's stream, reconnecting and resuming by itself, and a View
// that rebuilds the roster from what the stream said.
//
// github.com/r3labs/sse/v2 lives behind this package and nowhere else. Only
// its event-stream framing reader is used (by the Client). Its Server is not:
// it replays every event it ever published (AutoReplay keeps them forever),
// one slow subscriber blocks delivery to all, removing a stream with clients
// attached leaks goroutines, a non-numeric Last-Event-ID gets a 400 that ends
// a browser's retries, replay resends the last-seen event, and an open stream
// holds http.Server.Shutdown forever. The Hub's own writer avoids each, and
// the tests prove it. Its Client is not used either: a stream the server
// ends cleanly is never reconnected, a 404 is retried for ever, and its read
// goroutine can outlive the subscription.
//
// Writing is internal/stream/sock's, the socket transport, readable apart:
// a stream's connection is hijacked from net/http, and a client that keeps
// up costs no goroutine. The hub queues a diff on every subscriber's
// stream (shared bytes, encoded once per filter) and the pool's writers
// write each socket without blocking, spread over the cores; a socket that
// is full hands its stream to a flusher goroutine that waits on it under
// the write timeout, until it has caught up or fallen Buffer diffs behind
// and is dropped (its client resumes from the history).
//
// What does not live here: the roster itself and collisions (internal/presence),
// the wire types (internal/contract), routing and query parsing (internal/web,
// cmd/hall).
package stream
