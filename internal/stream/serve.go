package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// subscriber is one open stream. Its queue is bounded; end closes gone and
// fails any write in flight, so a subscriber stuck on a client that stopped
// reading lets go of its goroutine at once.
type subscriber struct {
	filter  Filter
	queue   chan []byte
	gone    chan struct{}
	w       http.ResponseWriter
	rc      *http.ResponseController
	conn    net.Conn // the hijacked connection; nil when w could not be hijacked
	timeout time.Duration

	mu       sync.Mutex
	ended    bool
	deadline time.Time // the write deadline now set
}

func (s *subscriber) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended = true
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

// arm sets the deadline for the next write; false once the subscriber
// ended, so a write can never slip past end with a fresh deadline.
func (s *subscriber) arm() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	// Moving the deadline costs a timer update: do it only once half the
	// timeout is used, so a write always has between half and all of it.
	if now := time.Now(); s.deadline.Sub(now) < s.timeout/2 {
		s.deadline = now.Add(s.timeout)
		switch {
		case s.conn != nil:
			_ = s.conn.SetWriteDeadline(s.deadline)
		case s.rc != nil:
			_ = s.rc.SetWriteDeadline(s.deadline)
		}
	}
	return true
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
	s := &subscriber{
		filter:  f,
		queue:   make(chan []byte, h.cfg.Buffer),
		gone:    make(chan struct{}),
		w:       w,
		rc:      http.NewResponseController(w),
		timeout: h.cfg.WriteTimeout,
	}
	st, err := h.subscribe(r.Context(), s, lastID)
	if err != nil {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(contract.ErrorResponse{Error: "shutting_down", Detail: "the Hall is shutting down"})
		return
	}

	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Connection", "keep-alive")
	hd.Set("X-Accel-Buffering", "no") // nginx: pass each event through at once
	if h.hijack(s, hd) {
		// The connection is the stream's own now: pump it from a fresh
		// goroutine and let this handler (and all that net/http and the
		// router hold for the request) go. Its end is noticed by the
		// liveness sweep or a failed write, not by the request's context.
		go func() {
			defer h.unsubscribe(s)
			defer func() {
				if v := recover(); v != nil {
					h.log.Error("stream panicked", "panic", v)
				}
			}()
			h.pump(s, f, st, nil)
		}()
		return
	}
	defer h.unsubscribe(s)
	w.WriteHeader(http.StatusOK)
	h.pump(s, f, st, r.Context().Done())
}

// pump writes the stream's first events (a snapshot, or the diffs to
// resume from), then what the hub queues and a heartbeat, until the stream
// ends, a write fails, or done closes.
func (h *Hub) pump(s *subscriber, f Filter, st start, done <-chan struct{}) {
	var first bytes.Buffer
	first.WriteString("retry: " + strconv.FormatInt(h.cfg.Retry.Milliseconds(), 10) + "\n\n")
	if st.resume {
		for _, c := range st.replay {
			if d, keep := f.diff(c); keep {
				first.Write(encodeEvent(formatID(h.base, c.seq), "diff", d))
			}
		}
	} else {
		first.Write(h.snapshotFrame(f, st))
	}
	if !s.write(first.Bytes()) {
		return
	}
	first = bytes.Buffer{} // a snapshot can be large: do not hold it for the stream's life

	heartbeat := time.NewTicker(h.cfg.Heartbeat)
	defer heartbeat.Stop()
	for {
		select {
		case <-done:
			return
		case <-s.gone:
			return
		case fr := <-s.queue:
			// What else is queued goes out in the same flush.
			if n := len(s.queue); n > 0 {
				buf := bytes.NewBuffer(make([]byte, 0, len(fr)*(n+1)))
				buf.Write(fr)
				for ; n > 0 && buf.Len() < 256<<10; n-- {
					buf.Write(<-s.queue)
				}
				fr = buf.Bytes()
			}
			if !s.write(fr) {
				return
			}
		case <-heartbeat.C:
			if !s.write([]byte(": heartbeat\n\n")) {
				return
			}
		}
	}
}

// hijack takes the connection over from net/http, so a stream costs one
// goroutine rather than two: net/http keeps a reader goroutine per open
// request to notice a client going away, and with ten thousand subscribers
// those stacks (and the buffers its connection holds) are most of the
// Hall's memory. The hub's liveness sweep notices gone clients instead.
// hijack writes the response head itself; the body runs until the
// connection closes. False when w cannot be hijacked (a test recorder,
// HTTP/2): the stream is then served through w.
func (h *Hub) hijack(s *subscriber, hd http.Header) bool {
	conn, _, err := s.rc.Hijack()
	if err != nil {
		return false
	}
	// The request was read whole: nothing in net/http's buffers is needed.
	hd.Set("Connection", "close")
	hd.Del("Content-Length")
	var head bytes.Buffer
	head.WriteString("HTTP/1.1 200 OK\r\n")
	_ = hd.Write(&head)
	head.WriteString("\r\n")
	s.mu.Lock()
	s.conn, s.w, s.rc = conn, nil, nil
	s.mu.Unlock()
	if s.write(head.Bytes()) {
		h.watchConn(s)
	}
	return true
}

// write sends b and flushes it; false when the stream is over.
func (s *subscriber) write(b []byte) bool {
	if !s.arm() {
		return false
	}
	if s.conn != nil {
		_, err := s.conn.Write(b)
		return err == nil
	}
	if _, err := s.w.Write(b); err != nil {
		return false
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

// snapshotFrame returns the snapshot event that starts a stream at st.
func (h *Hub) snapshotFrame(f Filter, st start) []byte {
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
	b := make([]byte, 0, fr.stamped.Len()+len(id)+40)
	b = append(b, "id: "...)
	b = append(b, id...)
	b = append(b, "\nevent: snapshot\ndata: "...)
	b = fr.stamped.AppendAt(b, st.snap.AtMs)
	return append(b, "\n\n"...)
}

// liveness holds the hijacked streams, swept for clients that went away:
// one goroutine for all streams, where net/http would keep one per stream.
type liveness struct {
	mu    sync.Mutex
	conns map[*subscriber]struct{}
}

// livenessSweep is how often gone clients are looked for.
const livenessSweep = 500 * time.Millisecond

func (h *Hub) watchConn(s *subscriber) {
	h.live.mu.Lock()
	if h.live.conns == nil {
		h.live.conns = map[*subscriber]struct{}{}
	}
	h.live.conns[s] = struct{}{}
	h.live.mu.Unlock()
}

func (h *Hub) unwatchConn(s *subscriber) {
	h.live.mu.Lock()
	delete(h.live.conns, s)
	h.live.mu.Unlock()
}

// sweepLoop peeks at every hijacked connection each livenessSweep, without
// blocking, and ends the streams whose client closed, until the hub stops.
func (h *Hub) sweepLoop() {
	defer close(h.sweepDone)
	t := time.NewTicker(livenessSweep)
	defer t.Stop()
	buf := make([]byte, 512)
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		h.live.mu.Lock()
		subs := make([]*subscriber, 0, len(h.live.conns))
		for s := range h.live.conns {
			subs = append(subs, s)
		}
		h.live.mu.Unlock()
		for _, s := range subs {
			if peerGone(s.conn, buf) {
				s.end()
			}
		}
	}
}
