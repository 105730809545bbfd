package natsstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hall-dev/hall/internal/presence"
)

// DefaultBucket is the Key-Value bucket the Hall keeps presences in.
const DefaultBucket = "hall-presences"

const (
	// maxAgeGrace is added to the ttl to make the bucket's max-age, so the
	// engine never removes a record before the reader would call it stale.
	maxAgeGrace = 2 * time.Second
	// expiryGrace is added to a record's remaining life to make the TTL of
	// the message that carries it; the engine counts whole seconds.
	expiryGrace = time.Second
	// markerTTL is how long delete and expiry markers stay in the bucket:
	// long enough for every watcher to see them, short enough that a
	// bucket with much churn holds few of them.
	markerTTL = time.Minute
	// casAttempts bounds the re-read-and-merge loop of one upsert. Each
	// conflict means another writer made progress, so this is only reached
	// under a pathological write storm on one presence.
	casAttempts = 16
	// maxPingsOut is how many pings may go unanswered before the client
	// takes the connection for stale.
	maxPingsOut = 2
	// listTimeouts is how many OpTimeouts a whole read of the bucket may
	// take: it streams every record, not one.
	listTimeouts = 5
)

// Options configure a Store. Zero values take the defaults noted.
type Options struct {
	// URLs are the servers, comma separated: "nats://a:4222,nats://b:4222".
	URLs string
	// Bucket is the Key-Value bucket; DefaultBucket.
	Bucket string
	// TTL is the longest record ttl the bucket must hold (the Hall's or the
	// relay's --ttl). The bucket's max-age is TTL plus a grace; opening an
	// existing bucket raises its max-age to that, never lowers it, so a
	// Hall with a short ttl cannot cut the records of one with a long ttl.
	// presence.DefaultTTL.
	TTL time.Duration
	// Replicas of a bucket this store creates; 0 picks 3 when the client
	// knows 3 or more servers (a cluster), else 1. An existing bucket keeps
	// its own.
	Replicas int
	// CredsFile is a NATS credentials file (JWT and nkey seed).
	CredsFile string
	// TLSCAFile is a PEM file of the CAs that sign the servers' certificates.
	TLSCAFile string
	// Name is the client name shown in the server's monitoring.
	Name string
	// ReconnectWait is the pause between reconnect attempts to one server;
	// 1 s.
	ReconnectWait time.Duration
	// OpTimeout bounds every request to the server, whatever the
	// caller's deadline (a shorter one holds); 1 s. A request that runs
	// out of it marks the server stalled: a server that holds its TCP
	// connection open and answers nothing (frozen, SIGSTOP, a black-holed
	// route) is then an outage, as a dead one is, and every operation
	// fails fast until it answers again. A whole read of the bucket (List
	// without a loaded view) has listTimeouts of it.
	OpTimeout time.Duration
	// PingInterval is how often the client pings the server; after
	// maxPingsOut unanswered pings it drops the connection and redials,
	// so an idle Hall notices a frozen server too. 1 s.
	PingInterval time.Duration
	// OutageGrace is how long List keeps serving the watched view after the
	// connection dropped, so a failover to another cluster node (usually
	// milliseconds) does not flash an empty roster; after it, List reports
	// the store unavailable. 5 s.
	OutageGrace time.Duration
	// OnConnect is called, from the client's goroutine, after the first
	// connection and after every reconnect. It must not block.
	OnConnect func()
	// Logger; slog.Default() when nil.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Bucket == "" {
		o.Bucket = DefaultBucket
	}
	if o.TTL <= 0 {
		o.TTL = presence.DefaultTTL
	}
	if o.Name == "" {
		o.Name = "hall"
	}
	if o.ReconnectWait <= 0 {
		o.ReconnectWait = time.Second
	}
	if o.OpTimeout <= 0 {
		o.OpTimeout = time.Second
	}
	if o.PingInterval <= 0 {
		o.PingInterval = time.Second
	}
	if o.OutageGrace <= 0 {
		o.OutageGrace = 5 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Store is presence.Store on a JetStream Key-Value bucket. It also is a
// presence.Watcher. It is safe for concurrent use; at most one Watch runs
// at a time.
type Store struct {
	opts Options
	log  *slog.Logger
	nc   *nats.Conn
	js   jetstream.JetStream

	stops  sync.WaitGroup // watchers being stopped, and stall probes, in the background
	closed chan struct{}  // closed by Close: a probe stops waiting
	once   sync.Once

	bucketMu sync.Mutex
	kv       jetstream.KeyValue // nil until the bucket was opened once

	// connEvents carries a token after each connect, reconnect or
	// disconnect, for the running Watch.
	connEvents chan struct{}

	mu             sync.Mutex
	connGen        uint64    // counts (re)connections
	disconnectedAt time.Time // zero while connected and answering
	// stalledAt is when a request last ran out of OpTimeout against a
	// connection the client still calls up; zero once the server answered
	// a probe (or the client reconnected).
	stalledAt time.Time
	watching  bool
	notify    func() // the running Watch's, for this store's own writes
	view      *view  // the watched bucket; nil when no watch is loaded
	warnedTTL bool
	// The oldest write of this store its watch has not delivered yet.
	echoRev   uint64
	echoSince time.Time
}

// Open connects to the servers and returns the store. An unreachable server
// is not an error: the client keeps retrying forever in the background, and
// until it is connected every operation fails fast with an EUNREACHABLE
// error, so the Hall starts and says so on its surfaces. Open fails only on
// options that can never work (no URL, an unreadable credentials file).
func Open(o Options) (*Store, error) {
	o = o.withDefaults()
	if strings.TrimSpace(o.URLs) == "" {
		return nil, errors.New("nats store: no server URL")
	}
	s := &Store{opts: o, log: o.Logger, connEvents: make(chan struct{}, 1), closed: make(chan struct{})}
	copts := []nats.Option{
		nats.Name(o.Name),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(o.ReconnectWait),
		// No reconnect buffer: a write while disconnected fails at once
		// (and the Hall holds the beat) instead of waiting out a timeout.
		nats.ReconnectBufSize(-1),
		nats.PingInterval(o.PingInterval),
		nats.MaxPingsOutstanding(maxPingsOut),
		nats.ConnectHandler(func(nc *nats.Conn) { s.connected(nc, "connected") }),
		nats.ReconnectHandler(func(nc *nats.Conn) { s.connected(nc, "reconnected") }),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { s.disconnected(err) }),
	}
	if o.CredsFile != "" {
		if _, err := os.Stat(o.CredsFile); err != nil {
			return nil, fmt.Errorf("nats store: credentials: %w", err)
		}
		copts = append(copts, nats.UserCredentials(o.CredsFile))
	}
	if o.TLSCAFile != "" {
		if _, err := os.Stat(o.TLSCAFile); err != nil {
			return nil, fmt.Errorf("nats store: tls ca: %w", err)
		}
		copts = append(copts, nats.RootCAs(o.TLSCAFile))
	}
	s.mu.Lock()
	s.disconnectedAt = time.Now() // until the first connect
	s.mu.Unlock()
	nc, err := nats.Connect(o.URLs, copts...)
	if err != nil {
		return nil, fmt.Errorf("nats store: connect %s: %w", redact(o.URLs), err)
	}
	js, err := jetstream.New(nc, jetstream.WithDefaultTimeout(o.OpTimeout))
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("nats store: jetstream: %w", err)
	}
	s.nc, s.js = nc, js
	if nc.Status() != nats.CONNECTED {
		s.log.Warn("nats unreachable; the Hall starts without its roster and keeps retrying", "servers", redact(o.URLs))
	}
	return s, nil
}

// Close closes the connection; a running Watch ends with an error.
func (s *Store) Close() error {
	s.once.Do(func() { close(s.closed) })
	if s.nc != nil {
		s.nc.Close()
	}
	s.stops.Wait()
	return nil
}

// Where names the servers the store dials, passwords redacted, for logs.
func (s *Store) Where() string { return redact(s.opts.URLs) + " bucket " + s.opts.Bucket }

// connected runs on the client's callback goroutine, possibly before Open
// has stored the connection: it uses the one it is handed.
func (s *Store) connected(nc *nats.Conn, what string) {
	s.mu.Lock()
	s.connGen++
	s.disconnectedAt, s.stalledAt = time.Time{}, time.Time{}
	s.mu.Unlock()
	s.log.Info("nats "+what, "server", nc.ConnectedUrlRedacted())
	s.signal()
	if s.opts.OnConnect != nil {
		s.opts.OnConnect()
	}
}

func (s *Store) disconnected(err error) {
	s.mu.Lock()
	if s.disconnectedAt.IsZero() {
		s.disconnectedAt = time.Now()
	}
	s.mu.Unlock()
	if err != nil {
		s.log.Warn("nats disconnected; reconnecting", "err", err)
	}
	s.signal()
}

func (s *Store) signal() {
	select {
	case s.connEvents <- struct{}{}:
	default:
	}
}

// ready fails fast with EUNREACHABLE unless the client is connected, so a
// request never waits out its timeout against a server that is not there.
func (s *Store) ready() error {
	if st := s.nc.Status(); st != nats.CONNECTED {
		return presence.Errorf(presence.EUNREACHABLE, "nats %s is not connected (%s)", redact(s.opts.URLs), strings.ToLower(st.String()))
	}
	s.mu.Lock()
	stalled := !s.stalledAt.IsZero()
	s.mu.Unlock()
	if stalled {
		return presence.Errorf(presence.EUNREACHABLE, "nats %s is connected but answers nothing within %s", redact(s.opts.URLs), s.opts.OpTimeout)
	}
	return nil
}

// errOpTimeout is the cause of a request's context that ran out of this
// store's own deadline, told apart from a caller's shorter one.
var errOpTimeout = errors.New("nats store: no answer within the op timeout")

// opCtx gives a request OpTimeout, or the caller's deadline when sooner.
func (s *Store) opCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, s.opts.OpTimeout, errOpTimeout)
}

// noteTimeout marks the server stalled when err is a request, made under
// ctx, that ran out of this store's deadline (or the client's own), not a
// caller's shorter one: the store counts as disconnected from now (List serves
// the view for OutageGrace, then reports the outage, as for a dead
// server), every operation fails fast (ready), and a probe in the
// background clears the mark once the server answers.
func (s *Store) noteTimeout(ctx context.Context, err error) {
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrTimeout) {
		return
	}
	if ctx.Err() != nil && context.Cause(ctx) != errOpTimeout {
		return // the caller's own deadline, or a cancel: says nothing of the server
	}
	s.mu.Lock()
	first := s.stalledAt.IsZero()
	if first {
		s.stalledAt = time.Now()
		if s.disconnectedAt.IsZero() {
			s.disconnectedAt = s.stalledAt
		}
	}
	s.mu.Unlock()
	if !first {
		return
	}
	s.log.Warn("nats answers nothing within the op timeout; taken for an outage", "servers", redact(s.opts.URLs), "op_timeout", s.opts.OpTimeout)
	s.signal()
	s.stops.Go(s.probe)
}

// probe pings the server until it answers, then clears the stall and
// bumps the connection generation, so the watch is opened afresh (its
// consumer may have missed what the stall held up). It ends when the
// client reconnects (which clears the stall itself) or closes.
func (s *Store) probe() {
	for {
		err := s.nc.FlushTimeout(s.opts.OpTimeout)
		s.mu.Lock()
		stalled := !s.stalledAt.IsZero()
		if err == nil && stalled {
			s.stalledAt, s.disconnectedAt = time.Time{}, time.Time{}
			s.connGen++
		}
		s.mu.Unlock()
		switch {
		case !stalled || s.nc.IsClosed():
			return
		case err == nil:
			s.log.Info("nats answers again", "server", s.nc.ConnectedUrlRedacted())
			s.signal()
			return
		}
		select {
		case <-s.closed:
			return
		case <-time.After(s.opts.ReconnectWait):
		}
	}
}

// bucket returns the Key-Value bucket, opening (or creating) it on first
// use: the server may not be reachable when the store opens.
func (s *Store) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	s.bucketMu.Lock()
	defer s.bucketMu.Unlock()
	if s.kv != nil {
		return s.kv, nil
	}
	// Creating a replicated bucket takes a cluster round of its own: more
	// than one request's time, once per store.
	octx, cancel := context.WithTimeoutCause(context.WithoutCancel(ctx), listTimeouts*s.opts.OpTimeout, errOpTimeout)
	defer cancel()
	kv, err := s.openBucket(octx)
	if err != nil {
		return nil, s.unavailable(octx, err, "open bucket %s", s.opts.Bucket)
	}
	s.kv = kv
	return kv, nil
}

// openBucket creates the bucket, or opens the existing one and raises its
// max-age and limit markers to what this store needs.
func (s *Store) openBucket(ctx context.Context) (jetstream.KeyValue, error) {
	maxAge := s.opts.TTL + maxAgeGrace
	stream, err := s.js.Stream(ctx, "KV_"+s.opts.Bucket)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return s.createBucket(ctx, maxAge)
	case err != nil:
		return nil, err
	}
	cfg := stream.CachedInfo().Config
	update := false
	if cfg.MaxAge != 0 && cfg.MaxAge < maxAge {
		cfg.MaxAge, update = maxAge, true
	}
	if cfg.SubjectDeleteMarkerTTL == 0 || !cfg.AllowMsgTTL {
		// Without limit markers a watcher never hears of an expiry, and
		// per-message TTLs are refused.
		cfg.AllowMsgTTL, cfg.SubjectDeleteMarkerTTL, update = true, markerTTL, true
	}
	if update {
		if _, err := s.js.UpdateStream(ctx, cfg); err != nil {
			return nil, fmt.Errorf("raise max-age and limit markers: %w", err)
		}
		s.log.Info("nats bucket updated", "bucket", s.opts.Bucket, "max_age", cfg.MaxAge)
	}
	return s.js.KeyValue(ctx, s.opts.Bucket)
}

func (s *Store) createBucket(ctx context.Context, maxAge time.Duration) (jetstream.KeyValue, error) {
	replicas := s.opts.Replicas
	if replicas <= 0 {
		replicas = 1
		if len(s.nc.Servers()) >= 3 {
			replicas = 3
		}
	}
	cfg := jetstream.KeyValueConfig{
		Bucket:         s.opts.Bucket,
		Description:    "Hall presences: m1nd-presence-v0 records by presence id",
		History:        1,
		TTL:            maxAge,
		MaxValueSize:   presence.MaxRecordBytes,
		Storage:        jetstream.FileStorage,
		Replicas:       replicas,
		LimitMarkerTTL: markerTTL,
	}
	kv, err := s.js.CreateKeyValue(ctx, cfg)
	if err != nil && replicas > 1 && s.opts.Replicas <= 0 && !errors.Is(err, jetstream.ErrBucketExists) {
		// Several servers need not mean a JetStream cluster.
		s.log.Warn("nats bucket with replicas refused; creating it unreplicated", "replicas", replicas, "err", err)
		cfg.Replicas = 1
		kv, err = s.js.CreateKeyValue(ctx, cfg)
	}
	if errors.Is(err, jetstream.ErrBucketExists) {
		// Another Hall created it first.
		return s.js.KeyValue(ctx, s.opts.Bucket)
	}
	if err == nil {
		s.log.Info("nats bucket created", "bucket", s.opts.Bucket, "max_age", maxAge, "replicas", cfg.Replicas)
	}
	return kv, err
}

// unavailable wraps a NATS failure as the domain's EUNREACHABLE: whatever
// failed, the roster lives on servers this Hall cannot use right now. A
// request that ran out of its deadline also marks the server stalled
// (noteTimeout); ctx is the request's.
func (s *Store) unavailable(ctx context.Context, err error, format string, args ...any) error {
	s.noteTimeout(ctx, err)
	return presence.Errorf(presence.EUNREACHABLE, "nats: %s: %v", fmt.Sprintf(format, args...), err)
}

// redact drops user info from server URLs before they reach a log.
func redact(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if at := strings.LastIndex(p, "@"); at >= 0 {
			scheme := ""
			if k := strings.Index(p, "://"); k >= 0 && k < at {
				scheme = p[:k+3]
			}
			p = scheme + "***@" + p[at+1:]
		}
		parts[i] = p
	}
	return strings.Join(parts, ",")
}
