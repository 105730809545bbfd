package sock

import (
	"log/slog"
	"sync"
	"time"
)

// Config tunes a Pool.
type Config struct {
	Buffer       int           // frames queued for one stream before Enqueue answers Full
	WriteTimeout time.Duration // a blocking write that takes longer drops its stream
	Log          *slog.Logger
}

// Pool writes a set of open streams: its writers write each socket
// without blocking, spread over the cores; a flusher goroutine waits on a
// socket that is full; one liveness watch notices clients that left.
//
// The pool does not keep the set of streams: its owner does, and is told
// through gone when a stream's client left or a write to it failed. The
// owner then forgets the stream and calls End.
type Pool struct {
	cfg  Config
	log  *slog.Logger
	gone func(*Stream)

	mu      sync.Mutex
	started bool
	closed  bool

	stop      chan struct{}
	live      liveness // hijacked streams, watched for clients gone
	wr        writers  // streams with frames to write
	writeDone chan struct{}
	liveDone  chan struct{}
}

// NewPool returns a pool; gone is called, from any goroutine and without
// the pool's locks held, when a stream's client is gone. Call Start before
// serving streams, and Close to stop.
func NewPool(cfg Config, gone func(*Stream)) *Pool {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Pool{
		cfg:       cfg,
		log:       cfg.Log,
		gone:      gone,
		stop:      make(chan struct{}),
		wr:        writers{wake: make(chan struct{}, 1)},
		writeDone: make(chan struct{}),
		liveDone:  make(chan struct{}),
	}
}

// Start opens the liveness watch and starts the writers.
func (p *Pool) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || p.closed {
		return
	}
	p.started = true
	p.openLiveness()
	go p.writeLoop()
	go p.liveLoop()
}

// End ends s: its connection closes, which fails any write in flight, and
// it is no longer watched. It may come before Serve (the owner dropped a
// stream whose first events were not written yet): Serve then closes the
// connection at once. Unwatching and closing happen under the liveness
// lock, so watchConn sees a stream either before both or after both.
func (p *Pool) End(s *Stream) {
	p.live.mu.Lock()
	defer p.live.mu.Unlock()
	p.unwatchLocked(s)
	s.end()
}

// Close stops the writers and the liveness watch and waits for them. It
// ends no stream: the owner ends each.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	started := p.started
	p.mu.Unlock()
	close(p.stop)
	if started {
		<-p.writeDone
		<-p.liveDone
	}
}
