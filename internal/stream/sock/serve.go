package sock

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Serve writes the stream s to w: the response head (w's header, status
// 200), first, then every frame enqueued on s, until the stream ends. The
// caller has set the header.
//
// The connection is hijacked from net/http when it can be, so a stream
// costs no goroutine while its client keeps up: net/http keeps a reader
// goroutine per open request to notice a client going away and the
// handler's own, and with ten thousand streams those stacks (and the
// buffers the connection holds) would be most of the Hall's memory. Serve
// then writes the start and returns at once, letting go of all that
// net/http and the router hold for the request; the pool's writers carry
// on, and its liveness watch notices the client leaving. When w cannot be
// hijacked (a test recorder, HTTP/2), the stream is served through w and
// Serve returns when it ends (ctx ends, the client goes, the pool drops
// it); either way the pool's gone callback is told of its end.
func (p *Pool) Serve(ctx context.Context, w http.ResponseWriter, s *Stream, first [][]byte) {
	if head, ok := hijack(s, w); ok {
		s.mu.Lock()
		if s.ended {
			// Ended before it was served: End found no connection to
			// close. Nothing will write it; its client reconnects.
			s.mu.Unlock()
			_ = s.conn.Close()
			return
		}
		s.pending = append(append([][]byte{head}, first...), s.pending...)
		s.mu.Unlock()
		p.watchConn(s)
		p.flush(s)
		return
	}
	// Served through w: this handler is the stream's flusher for its life.
	defer p.gone(s)
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
		case <-ctx.Done():
			return
		case <-s.gone:
			return
		case <-s.kick:
		}
	}
}

// hijack takes the connection over from net/http and returns the response
// head to write first; the body runs until the connection closes. False
// when w cannot be hijacked.
func hijack(s *Stream, w http.ResponseWriter) ([]byte, bool) {
	hd := w.Header()
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

// flush writes the stream's pending frames with blocking writes until
// none are left, then lets go; a write that fails or outlasts the write
// timeout drops the stream.
func (p *Pool) flush(s *Stream) {
	// The writers' non-blocking writes obey the deadline too: lift it
	// before handing the stream back.
	defer func() { _ = s.conn.SetWriteDeadline(time.Time{}) }()
	for {
		frames := s.take()
		if len(frames) == 0 {
			return
		}
		_ = s.conn.SetWriteDeadline(time.Now().Add(s.timeout))
		bufs := net.Buffers(frames)
		if _, err := bufs.WriteTo(s.conn); err != nil {
			p.gone(s)
			return
		}
	}
}

// writeTo writes frames through the ResponseWriter and flushes them; false
// when the stream is over.
func (s *Stream) writeTo(frames [][]byte) bool {
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	for _, fr := range frames {
		if _, err := s.w.Write(fr); err != nil {
			return false
		}
	}
	err := s.rc.Flush()
	return err == nil || errors.Is(err, http.ErrNotSupported)
}
