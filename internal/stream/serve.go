package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// subscriber is one open stream. The frames meant for it wait in pending,
// in order, at most Config.Buffer of them; at any moment at most one
// goroutine writes them, named by owner:
//
//   - nobody, while nothing is pending;
//   - the hub's writers, which write to a socket without blocking: a
//     client that keeps up costs no goroutine of its own;
//   - a flusher, a goroutine that waits on the socket with a deadline:
//     the stream's first events, a client whose socket was full, and a
//     stream served through its ResponseWriter (whose handler is its
//     flusher for its whole life).
//
// end closes gone and the connection, which fails any write in flight, so
// a flusher stuck on a client that stopped reading lets go at once.
type subscriber struct {
	filter  Filter
	limit   int           // frames pending before the subscriber is dropped
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

// owner is who writes a subscriber's pending frames.
type owner uint8

const (
	ownedByNone    owner = iota // nothing pending
	ownedByWriters              // in the hub's ready list, or being written by a writer
	ownedByFlusher              // a goroutine blocking on the socket
)

func newSubscriber(f Filter, cfg Config) *subscriber {
	// The stream's start is written by its handler, as a flusher: frames
	// that arrive meanwhile queue behind it.
	return &subscriber{filter: f, limit: cfg.Buffer, timeout: cfg.WriteTimeout, gone: make(chan struct{}), owner: ownedByFlusher}
}

// queued is what enqueue did with a frame.
type queued uint8

const (
	queueAdded     queued = iota // behind others, for the subscriber's owner
	queueScheduled               // the first: hand the subscriber to the writers
	queueFull                    // Buffer frames behind: drop the subscriber
	queueEnded                   // the stream is over
)

// enqueue adds fr to the frames to write.
func (s *subscriber) enqueue(fr []byte) queued {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.ended:
		return queueEnded
	case s.queued >= s.limit:
		return queueFull
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
		return queueAdded
	}
	s.owner = ownedByWriters
	return queueScheduled
}

// take hands the pending frames to their owner; nil when there are none
// (the owner then lets go) or the subscriber ended.
func (s *subscriber) take() [][]byte {
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

func (s *subscriber) end() {
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

// ServeStream serves one SSE stream of the roster narrowed by f: a snapshot
// event (or, for a Last-Event-ID this run can resume from, exactly the
// diffs after it), then diff events as they happen, and a comment line
// every Heartbeat. The caller has already refused bad input (an unknown
// brain gets its 404 before this is called). Last-Event-ID comes from the
// header, else the last_event_id query parameter (for clients that cannot
// set headers); an id that is malformed, too old, or from another run gets
// a fresh snapshot, never an error.
func (h *Hub) ServeStream(w http.ResponseWriter, r *http.Request, f Filter) {
	lastID := r.Header.Get("Last-Event-ID")
	if lastID == "" {
		lastID = r.URL.Query().Get("last_event_id")
	}
	s := newSubscriber(f, h.cfg)
	st, err := h.subscribe(r.Context(), s, lastID)
	if err != nil {
		body, after := contract.ErrorResponse{Error: "shutting_down", Detail: "the Hall is shutting down"}, time.Second
		if errors.Is(err, ErrFull) {
			after = h.cfg.FullRetryAfter
			body = contract.ErrorResponse{Error: "too_many_streams", Detail: fmt.Sprintf(
				"this Hall serves at most %d live streams at once (--max-streams); try again in %s, or poll GET /api/presences", h.cfg.MaxSubscribers, after)}
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Retry-After", strconv.Itoa(int(after.Round(time.Second)/time.Second)))
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(body)
		return
	}

	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Connection", "keep-alive")
	hd.Set("X-Accel-Buffering", "no") // nginx: pass each event through at once
	first := h.firstEvents(f, st)
	if head, ok := h.hijack(s, w, hd); ok {
		// The connection is the stream's own now. This handler writes the
		// start, then returns, letting go of all that net/http and the
		// router hold for the request; the hub's writers carry on, and
		// its liveness watch notices the client leaving.
		s.mu.Lock()
		s.pending = append(append([][]byte{head}, first...), s.pending...)
		s.mu.Unlock()
		h.watchConn(s)
		h.flush(s)
		return
	}
	// Served through w: this handler is the stream's flusher for its life.
	defer h.drop(s, false)
	s.mu.Lock()
	s.w, s.rc = w, http.NewResponseController(w)
	s.kick = make(chan struct{}, 1)
	s.pending = append(first, s.pending...)
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
	for {
		frames := s.take()
		if len(frames) > 0 && !s.writeTo(frames) {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.gone:
			return
		case <-s.kick:
		}
	}
}

// firstEvents is what a stream starts with: the reconnect delay, then the
// snapshot or the diffs to resume from.
func (h *Hub) firstEvents(f Filter, st start) [][]byte {
	var first bytes.Buffer
	first.WriteString("retry: " + strconv.FormatInt(h.cfg.Retry.Milliseconds(), 10) + "\n\n")
	if !st.resume {
		return append([][]byte{first.Bytes()}, h.snapshotFrame(f, st)...)
	}
	for _, c := range st.replay {
		if d, keep := f.diff(c); keep {
			first.Write(encodeEvent(formatID(h.base, c.seq), "diff", d))
		}
	}
	return [][]byte{first.Bytes()}
}

// hijack takes the connection over from net/http, so a stream costs no
// goroutine while its client keeps up: net/http keeps a reader goroutine
// per open request to notice a client going away and the handler's own,
// and with ten thousand subscribers those stacks (and the buffers the
// connection holds) would be most of the Hall's memory. It returns the
// response head to write first; the body runs until the connection
// closes. False when w cannot be hijacked (a test recorder, HTTP/2): the
// stream is then served through w.
func (h *Hub) hijack(s *subscriber, w http.ResponseWriter, hd http.Header) ([]byte, bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, false
	}
	// The request was read whole: nothing in net/http's buffers is needed.
	hd.Set("Connection", "close")
	hd.Del("Content-Length")
	var head bytes.Buffer
	head.WriteString("HTTP/1.1 200 OK\r\n")
	_ = hd.Write(&head)
	head.WriteString("\r\n")
	s.mu.Lock()
	s.conn, s.raw = conn, rawConn(conn)
	s.mu.Unlock()
	return head.Bytes(), true
}

// flush writes the subscriber's pending frames with blocking writes until
// none are left, then lets go; a write that fails or outlasts the write
// timeout drops the subscriber.
func (h *Hub) flush(s *subscriber) {
	// The writers' non-blocking writes obey the deadline too: lift it
	// before handing the subscriber back.
	defer func() { _ = s.conn.SetWriteDeadline(time.Time{}) }()
	for {
		frames := s.take()
		if len(frames) == 0 {
			return
		}
		_ = s.conn.SetWriteDeadline(time.Now().Add(s.timeout))
		bufs := net.Buffers(frames)
		if _, err := bufs.WriteTo(s.conn); err != nil {
			h.drop(s, false)
			return
		}
	}
}

// writeTo writes frames through the ResponseWriter and flushes them; false
// when the stream is over.
func (s *subscriber) writeTo(frames [][]byte) bool {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	for _, fr := range frames {
		if _, err := s.w.Write(fr); err != nil {
			return false
		}
	}
	err := s.rc.Flush()
	return err == nil || errors.Is(err, http.ErrNotSupported)
}

// encodeEvent frames one SSE event. JSON never holds a raw newline, so the
// data is one line; the id is a number, so no field can break the framing.
func encodeEvent(id, event string, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		// The wire types always marshal; this is a programming error.
		panic("stream: encode " + event + ": " + err.Error())
	}
	b := make([]byte, 0, len(data)+len(id)+len(event)+24)
	b = append(b, "id: "...)
	b = append(b, id...)
	b = append(b, "\nevent: "...)
	b = append(b, event...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	return b
}

// snapshotFrames caches the encoded snapshot event of the latest seq, per
// filter: a thousand subscribers arriving at one roster share one encoding
// (and the heap is spared a copy of the roster per subscriber); each frame
// is stamped with its own served_at_ms.
type snapshotFrames struct {
	mu sync.Mutex
	m  map[Filter]snapshotFrame
}

type snapshotFrame struct {
	seq     uint64
	failed  bool // the roster was dropped (an unreadable store)
	stamped contract.Stamped
}

// maxSnapshotFrames bounds the cache: one entry per distinct filter.
const maxSnapshotFrames = 256

// snapshotFrame returns the snapshot event that starts a stream at st, in
// parts: the roster's encoding is shared by every subscriber arriving at
// it (and must not be modified); only the id and served_at_ms are the
// stream's own.
func (h *Hub) snapshotFrame(f Filter, st start) [][]byte {
	id := formatID(h.base, st.seq)
	h.frames.mu.Lock()
	fr, ok := h.frames.m[f]
	h.frames.mu.Unlock()
	if !ok || fr.seq != st.seq || fr.failed != (st.snapErr != nil) {
		stamped, err := contract.NewStamped(f.response(st.snap, st.snapErr, id))
		if err != nil {
			panic("stream: " + err.Error()) // the wire types always encode
		}
		fr = snapshotFrame{seq: st.seq, failed: st.snapErr != nil, stamped: stamped}
		h.frames.mu.Lock()
		if h.frames.m == nil || len(h.frames.m) >= maxSnapshotFrames {
			h.frames.m = map[Filter]snapshotFrame{}
		}
		h.frames.m[f] = fr
		h.frames.mu.Unlock()
	}
	head, stamp, tail := fr.stamped.Split(st.snap.AtMs)
	return [][]byte{[]byte("id: " + id + "\nevent: snapshot\ndata: "), head, stamp, tail, eventEnd}
}

// eventEnd ends an event.
var eventEnd = []byte("\n\n")
