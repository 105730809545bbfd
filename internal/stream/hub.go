package stream

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream/sock"
)

// Defaults for a Hub's Config.
const (
	DefaultHistory      = 1024
	DefaultHistoryItems = 1 << 16
	DefaultBuffer       = 64
	DefaultHeartbeat    = 15 * time.Second
	DefaultRetry        = 2 * time.Second
	DefaultWriteTimeout = 10 * time.Second
	DefaultMinInterval  = 20 * time.Millisecond
)

// Source is what the Hub needs from the domain: the live roster and a
// signal after each change. *presence.Service is one; the Hub must be its
// only reader of Changed.
type Source interface {
	Snapshot(ctx context.Context) (presence.Snapshot, error)
	Changed() <-chan struct{}
}

// versionedSource is a Source that tells cheaply whether anything changed
// since a Snapshot (*presence.Service is one): reads then serve the cached
// roster, with no work, until the version moves or a ttl runs out.
type versionedSource interface {
	Version() uint64
	Now() time.Time
}

// Config tunes a Hub. Zero values take the defaults.
type Config struct {
	History      int           // diffs kept for resume
	HistoryItems int           // presences, collisions and counts those diffs may hold in all
	Buffer       int           // events queued for one subscriber before it is dropped
	Heartbeat    time.Duration // comment line sent on every stream this often, ≤ 15 s keeps proxies open
	Retry        time.Duration // reconnect delay advertised to clients (retry:)
	WriteTimeout time.Duration // a write blocked longer drops its subscriber
	MinInterval  time.Duration // least time between two diffs from the source's signals
	Events       int           // lines of recent history kept for GET /api/events
	// MaxSubscribers bounds the streams open at once; one more is refused
	// (ErrFull: a 503 with Retry-After) rather than let each stream's
	// socket and queue grow the Hall past what it was measured to carry.
	// No bound when 0.
	MaxSubscribers int
	// FullRetryAfter is what a stream refused for MaxSubscribers is told
	// to wait before trying again; DefaultFullRetryAfter.
	FullRetryAfter time.Duration
	Log            *slog.Logger
	// FanoutTime, when set, is told how long each diff took to fan out:
	// encoded once per filter and queued on every subscriber (the socket
	// writes follow on the pool's writers). Called under the hub's lock,
	// once a diff with subscribers: a histogram's Observe, nothing slower.
	FanoutTime presence.Observer
}

// DefaultFullRetryAfter is how long a stream refused at MaxSubscribers is
// asked to wait: long enough that a herd of refused clients does not come
// back at once, as short as the page's own retry of a failed stream.
const DefaultFullRetryAfter = 10 * time.Second

// ErrClosed is returned to subscribers arriving after Close.
var ErrClosed = errors.New("stream: hub closed")

// ErrFull is returned to a subscriber arriving while MaxSubscribers
// streams are open.
var ErrFull = errors.New("stream: too many streams open")

// Hub turns the source's change signals into numbered diffs and fans them
// out. Every diff gets the next seq; the last History diffs are kept so a
// reconnecting subscriber resumes without loss; each subscriber has a
// bounded queue and is dropped (its connection closed, so its client
// reconnects and resumes) when it falls behind, never stalling the others.
//
// The Hub is also a cached live view of the roster (web.Roster): Snapshot
// and SnapshotCursor bring it up to date first, so a read always sees every
// change signalled before it, and the cursor they return is the event id
// the state matches.
type Hub struct {
	src  Source
	cfg  Config
	log  *slog.Logger
	base uint64 // the run's start in Unix nanoseconds: event ids are base+seq

	// syncMu orders the syncs: one at a time takes the source's snapshot
	// (which takes the source's own locks, and may read its store), keys
	// and diffs it, then records the diff under mu. mu is never held
	// across the source's snapshot, so subscribers, drops, heartbeats and
	// fresh reads never wait on one. Lock order: syncMu, then the
	// source's locks (presence.Service's), then mu; mu is taken last and
	// alone (the pool's locks below it). cur and synced are the sync's:
	// written under syncMu and mu both, so read under either.
	syncMu sync.Mutex
	cur    roster
	synced bool

	mu      sync.Mutex
	snap    presence.Snapshot
	err     error
	seq     uint64
	hist    ring
	subs    map[*sock.Stream]Filter // the open streams, each with its filter
	closed  bool
	started bool
	stats   Stats
	ver     uint64    // the source's version when snap was taken
	verOK   bool      // ver is known (the source is versioned)
	nextExp int64     // snap.NextExpiryMs(): the roster changes then by itself
	teller  Teller    // tells each diff as lines, and when each collision opened
	events  eventRing // the lines told, for GET /api/events

	stop     chan struct{}
	loopDone chan struct{}
	changed  chan struct{} // a token after each diff emitted (Changed)

	frames   snapshotFrames // encoded snapshot events of the latest seq
	pool     *sock.Pool     // writes the streams (internal/stream/sock)
	sched    []*sock.Stream // sendLocked's scratch, under mu
	tendDone chan struct{}
}

// Stats counts what the hub did.
type Stats struct {
	Seq         uint64 // diffs emitted this run
	Subscribers int    // open now
	Subscribed  int64  // ever
	Dropped     int64  // cut off for falling behind
	Resumed     int64  // reconnects served from history
	Snapshots   int64  // connects served a snapshot
	Refused     int64  // connects refused because MaxSubscribers streams were open

	MaxSubscribers int // Config.MaxSubscribers: 0 for no bound
}

// NewHub returns a hub over src. Call Start to follow src, and Close to end
// every stream.
func NewHub(src Source, cfg Config) *Hub {
	// A zero setting takes its default, and so does a negative one
	// (max(…, 0) first: cmp.Or keeps anything but zero, and a negative
	// heartbeat would panic its ticker).
	cfg.History = cmp.Or(max(cfg.History, 0), DefaultHistory)
	cfg.HistoryItems = cmp.Or(max(cfg.HistoryItems, 0), DefaultHistoryItems)
	cfg.Buffer = cmp.Or(max(cfg.Buffer, 0), DefaultBuffer)
	cfg.Heartbeat = cmp.Or(max(cfg.Heartbeat, 0), DefaultHeartbeat)
	cfg.Retry = cmp.Or(max(cfg.Retry, 0), DefaultRetry)
	cfg.WriteTimeout = cmp.Or(max(cfg.WriteTimeout, 0), DefaultWriteTimeout)
	cfg.MinInterval = cmp.Or(max(cfg.MinInterval, 0), DefaultMinInterval)
	cfg.Events = cmp.Or(max(cfg.Events, 0), DefaultEvents)
	cfg.FullRetryAfter = cmp.Or(max(cfg.FullRetryAfter, 0), DefaultFullRetryAfter)
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	h := &Hub{
		src:      src,
		cfg:      cfg,
		log:      cfg.Log,
		base:     uint64(time.Now().UnixNano()),
		hist:     newRing(cfg.History, cfg.HistoryItems),
		events:   eventRing{buf: make([]contract.Line, cfg.Events)},
		subs:     map[*sock.Stream]Filter{},
		stop:     make(chan struct{}),
		loopDone: make(chan struct{}),
		changed:  make(chan struct{}, 1),
		tendDone: make(chan struct{}),
	}
	h.pool = sock.NewPool(sock.Config{Buffer: cfg.Buffer, WriteTimeout: cfg.WriteTimeout, Log: cfg.Log}, func(s *sock.Stream) { h.drop(s, false) })
	return h
}

// Start takes the first snapshot and follows the source's changes until
// ctx ends or Close.
func (h *Hub) Start(ctx context.Context) {
	h.mu.Lock()
	if h.started || h.closed {
		h.mu.Unlock()
		return
	}
	h.started = true
	h.mu.Unlock()
	h.sync(ctx, false)
	go h.loop(ctx)
	h.pool.Start()
	go h.tendLoop()
}

func (h *Hub) loop(ctx context.Context) {
	defer close(h.loopDone)
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.stop:
			return
		case <-h.src.Changed():
			h.sync(ctx, false)
			// Leading edge: a change after a quiet spell goes out at once;
			// a storm of changes (hundreds of beats a second) is gathered
			// into at most one diff per MinInterval, so fan-out and
			// snapshot work stay bounded whatever the beat rate.
			select {
			case <-ctx.Done():
				return
			case <-h.stop:
				return
			case <-time.After(h.cfg.MinInterval):
			}
		}
	}
}

// Close ends every open stream at once (so http.Server.Shutdown need not
// wait on them) and stops following the source. Streams asked for after
// Close are refused.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	subs := h.subs
	h.subs = map[*sock.Stream]Filter{}
	started := h.started
	h.mu.Unlock()
	close(h.stop)
	for s := range subs {
		h.pool.End(s)
	}
	h.pool.Close()
	if started {
		<-h.loopDone
		<-h.tendDone
	}
}

// Stats returns a copy of the counters.
func (h *Hub) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.stats
	st.Seq, st.Subscribers, st.MaxSubscribers = h.seq, len(h.subs), h.cfg.MaxSubscribers
	return st
}

// Snapshot returns the live roster, brought up to date first.
func (h *Hub) Snapshot(ctx context.Context) (presence.Snapshot, error) {
	snap, _, err := h.SnapshotCursor(ctx)
	return snap, err
}

// SnapshotCursor returns the live roster and the id of the stream event it
// matches: a client that reads it, then streams with that id as its
// Last-Event-ID, misses nothing and sees nothing twice.
func (h *Hub) SnapshotCursor(ctx context.Context) (presence.Snapshot, string, error) {
	h.mu.Lock()
	closed, fresh := h.closed, h.freshLocked()
	h.mu.Unlock()
	if closed {
		// No stream will follow: answer from the source, with no cursor.
		snap, err := h.src.Snapshot(ctx)
		return snap, "", err
	}
	if !fresh {
		h.sync(ctx, true)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.snap, formatID(h.base, h.seq), h.err
}

// freshLocked reports whether the cached roster still stands: the source
// signalled nothing since it was taken, and no presence in it has expired.
// When it does, the roster is restamped with the time it is served at: a
// client measures ages against served_at_ms, which must not lag behind.
func (h *Hub) freshLocked() bool {
	v, ok := h.src.(versionedSource)
	if !ok || !h.synced || !h.verOK || v.Version() != h.ver {
		return false
	}
	now := v.Now().UnixMilli()
	if h.nextExp != 0 && now >= h.nextExp {
		return false
	}
	h.snap.AtMs = now
	return true
}

// sync reads the source, and when the roster changed records the diff
// under the next seq and sends it to every subscriber. One sync runs at a
// time (syncMu), so seqs, history and deliveries stay in the order the
// snapshots were taken; h.mu is held only to record what it found. A read
// (ifStale) does nothing when a sync that ran while it waited left the
// roster fresh.
func (h *Hub) sync(ctx context.Context, ifStale bool) {
	h.syncMu.Lock()
	defer h.syncMu.Unlock()
	h.mu.Lock()
	skip := h.closed || (ifStale && h.freshLocked())
	h.mu.Unlock()
	if skip {
		return
	}
	// The version is read before the snapshot: a change that lands during
	// it moves the version past ver, so the next read syncs again.
	var ver uint64
	vs, versioned := h.src.(versionedSource)
	if versioned {
		ver = vs.Version()
	}
	snap, err := h.src.Snapshot(ctx)
	if err != nil && ctx.Err() != nil {
		return // cancelled: says nothing about the store
	}
	// Keyed and diffed outside h.mu: cur and synced change only here.
	next := rosterOf(snap, err, h.cur)
	var c *change
	if h.synced {
		c = diffRosters(h.cur, next)
	}
	nextExp := snap.NextExpiryMs()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.snap, h.err = snap, err
	h.ver, h.verOK, h.nextExp = ver, versioned, nextExp
	if !h.synced {
		h.synced, h.cur = true, next
		h.firstLookLocked(next)
		return
	}
	prev := h.cur.collisions
	h.cur = next
	if c.empty() {
		return
	}
	h.seq++
	c.seq = h.seq
	h.hist.push(c)
	h.tellLocked(c, prev)
	h.fanout(c)
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// Changed delivers a token after each diff the hub emits (a join, update
// or leave, a collision opened or closed, an expiry, the registry dropped
// or back); many diffs between two reads coalesce into one token. It has
// one reader: the Hall's live MCP resources (internal/mcp).
func (h *Hub) Changed() <-chan struct{} { return h.changed }

// fanout queues the diff for each subscriber whose filter keeps any of it,
// encoding once per distinct filter. A subscriber Buffer frames behind is
// dropped here rather than waited for.
func (h *Hub) fanout(c *change) {
	if len(h.subs) == 0 {
		return
	}
	defer presence.ObserveSince(h.cfg.FanoutTime, time.Now())
	id := formatID(h.base, c.seq)
	frames := map[Filter][]byte{}
	h.sendLocked(func(f Filter) []byte {
		fr, ok := frames[f]
		if !ok {
			if d, keep := f.diff(c); keep {
				fr = encodeEvent(id, "diff", d)
			}
			frames[f] = fr
		}
		return fr
	})
}

// sendLocked queues for each subscriber the frame frameOf gives for its
// filter (none when nil) and hands those that need it to the pool's
// writers. The caller holds h.mu, so every subscriber gets frames in one
// order.
func (h *Hub) sendLocked(frameOf func(Filter) []byte) {
	sched := h.sched[:0]
	for s, f := range h.subs {
		fr := frameOf(f)
		if fr == nil {
			continue
		}
		switch s.Enqueue(fr) {
		case sock.Full:
			h.dropLocked(s, true)
			h.log.Debug("stream subscriber fell behind; dropped", "filter", f)
		case sock.Ended:
			h.dropLocked(s, false)
		case sock.Scheduled:
			sched = append(sched, s)
		}
	}
	h.pool.Schedule(sched...)
	clear(sched) // do not hold subscribers that may end
	h.sched = sched[:0]
}

// drop ends s and forgets it; behind counts it as cut off for falling
// behind.
func (h *Hub) drop(s *sock.Stream, behind bool) {
	h.mu.Lock()
	h.dropLocked(s, behind)
	h.mu.Unlock()
}

// dropLocked ends s and forgets it; the caller holds h.mu.
func (h *Hub) dropLocked(s *sock.Stream, behind bool) {
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		if behind {
			h.stats.Dropped++
		}
	}
	h.pool.End(s)
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

// start is what a new subscriber is sent first: the diffs it missed, or a
// snapshot when it cannot resume.
type start struct {
	resume  bool
	replay  []*change
	snap    presence.Snapshot
	snapErr error
	seq     uint64
}

// subscribe registers s, narrowed by f, and returns, in the same instant,
// what it must be sent first: together they miss no diff and repeat none.
//
// A roster no longer fresh is brought up to date first, outside h.mu; s
// is registered and its start taken together under h.mu, so a diff that
// lands between the two is in its start or sent to it, never both.
func (h *Hub) subscribe(ctx context.Context, s *sock.Stream, f Filter, lastID string) (start, error) {
	h.mu.Lock()
	// One refused (below) costs no snapshot.
	fresh := h.closed || (h.cfg.MaxSubscribers > 0 && len(h.subs) >= h.cfg.MaxSubscribers) || h.freshLocked()
	h.mu.Unlock()
	if !fresh {
		h.sync(ctx, true)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return start{}, ErrClosed
	}
	if h.cfg.MaxSubscribers > 0 && len(h.subs) >= h.cfg.MaxSubscribers {
		h.stats.Refused++
		return start{}, ErrFull
	}
	h.subs[s] = f
	h.stats.Subscribed++
	if seq, ok := parseID(lastID, h.base, h.seq); ok && h.hist.covers(seq, h.seq) {
		h.stats.Resumed++
		return start{resume: true, replay: h.hist.since(seq), seq: h.seq}, nil
	}
	h.stats.Snapshots++
	return start{snap: h.snap, snapErr: h.err, seq: h.seq}, nil
}
