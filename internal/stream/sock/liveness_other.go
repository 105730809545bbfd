//go:build !linux

package sock

import (
	"sync"
	"time"
)

// liveness holds the hijacked streams, swept for clients that went away:
// one goroutine for all streams, where net/http would keep one per stream.
type liveness struct {
	mu    sync.Mutex
	conns map[*Stream]struct{}
}

// livenessSweep is how often gone clients are looked for.
const livenessSweep = 500 * time.Millisecond

// openLiveness has nothing to open for a sweep.
func (p *Pool) openLiveness() {}

// watchConn adds s to the swept set, unless it has ended.
func (p *Pool) watchConn(s *Stream) {
	p.live.mu.Lock()
	defer p.live.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	if p.live.conns == nil {
		p.live.conns = map[*Stream]struct{}{}
	}
	p.live.conns[s] = struct{}{}
}

// unwatchLocked takes s out of the set; the caller holds its lock.
func (p *Pool) unwatchLocked(s *Stream) {
	delete(p.live.conns, s)
}

// liveLoop peeks at every hijacked connection each livenessSweep, without
// blocking, and ends the streams whose client closed, until the pool closes.
func (p *Pool) liveLoop() {
	defer close(p.liveDone)
	t := time.NewTicker(livenessSweep)
	defer t.Stop()
	buf := make([]byte, 512)
	var subs []*Stream
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		p.live.mu.Lock()
		for s := range p.live.conns {
			subs = append(subs, s)
		}
		p.live.mu.Unlock()
		for _, s := range subs {
			if peerGone(s.raw, buf) {
				p.gone(s)
			}
		}
		clear(subs)
		subs = subs[:0]
	}
}
