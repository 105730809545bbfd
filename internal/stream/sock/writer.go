package sock

import (
	"runtime"
	"sync"
)

// writers holds the streams with frames to write. The pool's write
// loop takes them all at once and writes to each socket without blocking,
// spread over the cores when there are many: one diff to ten thousand
// streams is ten thousand short syscalls, not ten thousand goroutines
// waking up. A socket that is full hands its stream to a flusher.
type writers struct {
	mu    sync.Mutex
	ready []*Stream
	wake  chan struct{}
}

// writeBatch is how many streams one goroutine writes to before another
// core is asked to share the work.
const writeBatch = 256

// Schedule hands streams to the write loop: those Enqueue answered
// Scheduled for, each now owned by the writers.
func (p *Pool) Schedule(subs ...*Stream) {
	if len(subs) == 0 {
		return
	}
	p.wr.mu.Lock()
	p.wr.ready = append(p.wr.ready, subs...)
	p.wr.mu.Unlock()
	select {
	case p.wr.wake <- struct{}{}:
	default:
	}
}

// writeLoop writes what is scheduled until the pool closes.
func (p *Pool) writeLoop() {
	defer close(p.writeDone)
	for {
		select {
		case <-p.stop:
			return
		case <-p.wr.wake:
		}
		for {
			p.wr.mu.Lock()
			batch := p.wr.ready
			p.wr.ready = nil
			p.wr.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			p.writeAll(batch)
		}
	}
}

// writeAll writes to every stream in batch, sharing the work among the
// cores when there is enough of it.
func (p *Pool) writeAll(batch []*Stream) {
	parts := min(runtime.GOMAXPROCS(0), (len(batch)+writeBatch-1)/writeBatch)
	if parts <= 1 {
		for _, s := range batch {
			p.writeOne(s)
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
				p.writeOne(s)
			}
		}()
	}
	for _, s := range batch[:size] {
		p.writeOne(s)
	}
	wg.Wait()
}

// writeOne writes a scheduled stream's frames without blocking. What
// the socket does not take goes to a flusher; frames queued meanwhile are
// written by the next round.
func (p *Pool) writeOne(s *Stream) {
	frames := s.take()
	if len(frames) == 0 {
		return
	}
	rest, err := writeNow(s.raw, frames)
	if err != nil {
		p.gone(s)
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
		go p.flush(s)
	case len(s.pending) > 0:
		s.mu.Unlock()
		p.Schedule(s)
	default:
		s.owner = ownedByNone
		s.mu.Unlock()
	}
}
