// Package sock is the socket transport of the Hall's live stream: it
// writes already-encoded SSE frames to many open streams at once, and
// knows nothing of what they say (diffs, filters, history and resume are
// the hub's, in internal/stream).
//
//   - Stream is one open stream: its connection and its bounded queue of
//     frames, written by at most one goroutine at a time (stream.go).
//   - Pool.Serve hijacks the connection from net/http, so a stream that
//     keeps up costs no goroutine; a connection that cannot be hijacked is
//     served through its ResponseWriter (serve.go).
//   - The pool's writers write every ready socket without blocking
//     (writev), spread over the cores; a socket that is full hands its
//     stream to a flusher goroutine that waits under the write timeout
//     (writer.go, rawconn_*.go).
//   - One liveness watch notices clients that left: an epoll set on Linux,
//     a sweep elsewhere (liveness_*.go).
//
// The narrow interface to the hub: NewPool (with a callback for a stream
// whose client is gone), NewStream, Serve, Stream.Enqueue (which says
// whether the stream must be Scheduled, or is Full and must be dropped),
// Schedule, End, Start and Close. The hub keeps the set of streams and
// their filters; the pool keeps none.
package sock
