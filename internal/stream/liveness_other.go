//go:build !linux

package stream

import (
	"sync"
	"time"
)

// liveness holds the hijacked streams, swept for clients that went away:
// one goroutine for all streams, where net/http would keep one per stream.
type liveness struct {
	mu    sync.Mutex
	conns map[*subscriber]struct{}
}

// livenessSweep is how often gone clients are looked for.
const livenessSweep = 500 * time.Millisecond

// openLiveness has nothing to open for a sweep.
func (h *Hub) openLiveness() {}

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

// liveLoop peeks at every hijacked connection each livenessSweep, without
// blocking, and ends the streams whose client closed, until the hub stops.
func (h *Hub) liveLoop() {
	defer close(h.liveDone)
	t := time.NewTicker(livenessSweep)
	defer t.Stop()
	buf := make([]byte, 512)
	var subs []*subscriber
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		h.live.mu.Lock()
		for s := range h.live.conns {
			subs = append(subs, s)
		}
		h.live.mu.Unlock()
		for _, s := range subs {
			if peerGone(s.raw, buf) {
				h.drop(s, false)
			}
		}
		clear(subs)
		subs = subs[:0]
	}
}
