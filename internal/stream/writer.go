package stream

import (
	"runtime"
	"sync"
	"time"
)

// writers holds the subscribers with frames to write. The hub's write
// loop takes them all at once and writes to each socket without blocking,
// spread over the cores when there are many: one diff to ten thousand
// streams is ten thousand short syscalls, not ten thousand goroutines
// waking up. A socket that is full hands its subscriber to a flusher.
type writers struct {
	mu    sync.Mutex
	ready []*subscriber
	wake  chan struct{}
}

// writeBatch is how many streams one goroutine writes to before another
// core is asked to share the work.
const writeBatch = 256

// schedule hands subscribers (each owned by the writers) to the write loop.
func (h *Hub) schedule(subs ...*subscriber) {
	if len(subs) == 0 {
		return
	}
	h.wr.mu.Lock()
	h.wr.ready = append(h.wr.ready, subs...)
	h.wr.mu.Unlock()
	select {
	case h.wr.wake <- struct{}{}:
	default:
	}
}

// writeLoop writes what is scheduled until the hub stops.
func (h *Hub) writeLoop() {
	defer close(h.writeDone)
	for {
		select {
		case <-h.stop:
			return
		case <-h.wr.wake:
		}
		for {
			h.wr.mu.Lock()
			batch := h.wr.ready
			h.wr.ready = nil
			h.wr.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			h.writeAll(batch)
		}
	}
}

// writeAll writes to every subscriber in batch, sharing the work among the
// cores when there is enough of it.
func (h *Hub) writeAll(batch []*subscriber) {
	parts := min(runtime.GOMAXPROCS(0), (len(batch)+writeBatch-1)/writeBatch)
	if parts <= 1 {
		for _, s := range batch {
			h.writeOne(s)
		}
		return
	}
	var wg sync.WaitGroup
	size := (len(batch) + parts - 1) / parts
	for lo := size; lo < len(batch); lo += size {
		part := batch[lo:min(lo+size, len(batch))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range part {
				h.writeOne(s)
			}
		}()
	}
	for _, s := range batch[:size] {
		h.writeOne(s)
	}
	wg.Wait()
}

// writeOne writes a scheduled subscriber's frames without blocking. What
// the socket does not take goes to a flusher; frames queued meanwhile are
// written by the next round.
func (h *Hub) writeOne(s *subscriber) {
	frames := s.take()
	if len(frames) == 0 {
		return
	}
	rest, err := writeNow(s.raw, frames)
	if err != nil {
		h.drop(s, false)
		return
	}
	s.mu.Lock()
	switch {
	case s.ended:
		s.mu.Unlock()
	case len(rest) > 0:
		s.pending = append(rest, s.pending...)
		s.owner = ownedByFlusher
		s.mu.Unlock()
		go h.flush(s)
	case len(s.pending) > 0:
		s.mu.Unlock()
		h.schedule(s)
	default:
		s.owner = ownedByNone
		s.mu.Unlock()
	}
}

// drop ends s and forgets it; behind counts it as cut off for falling
// behind.
func (h *Hub) drop(s *subscriber, behind bool) {
	h.mu.Lock()
	h.dropLocked(s, behind)
	h.mu.Unlock()
}

// heartbeatFrame is the comment that keeps an idle stream open through
// proxies.
var heartbeatFrame = []byte(": heartbeat\n\n")

// tendLoop sends every stream a heartbeat each Heartbeat, until the hub
// stops.
func (h *Hub) tendLoop() {
	defer close(h.tendDone)
	heartbeat := time.NewTicker(h.cfg.Heartbeat)
	defer heartbeat.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-heartbeat.C:
			h.mu.Lock()
			h.sendLocked(func(Filter) []byte { return heartbeatFrame })
			h.mu.Unlock()
		}
	}
}
