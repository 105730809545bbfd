package sock

import (
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// Stream is one open stream: its connection and the frames waiting for
// it, in order, at most Config.Buffer of them. At any moment at most one
// goroutine writes them, named by owner:
//
//   - nobody, while nothing is pending;
//   - the pool's writers, which write to a socket without blocking: a
//     client that keeps up costs no goroutine of its own;
//   - a flusher, a goroutine that waits on the socket with a deadline:
//     the stream's first events, a client whose socket was full, and a
//     stream served through its ResponseWriter (whose handler is its
//     flusher for its whole life).
//
// end closes gone and the connection, which fails any write in flight, so
// a flusher stuck on a client that stopped reading lets go at once.
type Stream struct {
	limit   int           // frames pending before the stream is dropped
	timeout time.Duration // a blocking write may take this long

	conn net.Conn        // the hijacked connection; nil when served through w
	raw  syscall.RawConn // conn's descriptor for non-blocking writes; nil when unavailable
	w    http.ResponseWriter
	rc   *http.ResponseController
	kick chan struct{} // wakes the handler of a stream served through w
	gone chan struct{}

	mu      sync.Mutex
	pending [][]byte // frames (and parts of frames) to write, in order
	queued  int      // frames enqueued since the owner last took them
	owner   owner
	ended   bool
}

// owner is who writes a stream's pending frames.
type owner uint8

const (
	ownedByNone    owner = iota // nothing pending
	ownedByWriters              // in the pool's ready list, or being written by a writer
	ownedByFlusher              // a goroutine blocking on the socket
)

// NewStream returns a stream not yet served. Frames enqueued before Serve
// wait behind the stream's first events: Serve writes those first, as a
// flusher.
func (p *Pool) NewStream() *Stream {
	return &Stream{limit: p.cfg.Buffer, timeout: p.cfg.WriteTimeout, gone: make(chan struct{}), owner: ownedByFlusher}
}

// Queued is what Enqueue did with a frame.
type Queued uint8

const (
	Added     Queued = iota // behind others, for the stream's owner
	Scheduled               // the first: hand the stream to the writers (Pool.Schedule)
	Full                    // Buffer frames behind: drop the stream
	Ended                   // the stream is over
)

// Enqueue adds fr to the frames to write. fr is shared with other
// streams and must not be modified.
func (s *Stream) Enqueue(fr []byte) Queued {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.ended:
		return Ended
	case s.queued >= s.limit:
		return Full
	}
	s.pending = append(s.pending, fr)
	s.queued++
	if s.kick != nil {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
	if s.owner != ownedByNone {
		return Added
	}
	s.owner = ownedByWriters
	return Scheduled
}

// take hands the pending frames to their owner; nil when there are none
// (the owner then lets go) or the stream ended.
func (s *Stream) take() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil
	}
	frames := s.pending
	s.pending, s.queued = nil, 0
	if len(frames) == 0 && s.kick == nil {
		s.owner = ownedByNone
	}
	return frames
}

func (s *Stream) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended = true
	s.pending = nil
	close(s.gone)
	if s.conn != nil {
		// Fails a blocked write at once and frees the socket.
		_ = s.conn.Close()
		return
	}
	if s.rc != nil {
		// A deadline in the past fails the blocked write, if any, now.
		_ = s.rc.SetWriteDeadline(time.Unix(1, 0))
	}
}
