package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"time"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/natsstore"
	"github.com/hall-dev/hall/internal/presence"
)

// RelayConfig is everything relay needs, parsed from flags and HALL_*
// variables.
type RelayConfig struct {
	RegistryRoot string        // the local sidecar folder's root, watched
	Store        string        // nats://host:port[,…], mirrored into
	NATSCreds    string        // NATS credentials file
	NATSTLSCA    string        // PEM CAs of the NATS servers' certificates
	TTL          time.Duration // the longest record ttl the bucket must hold
	Rescan       time.Duration // full re-mirror, the safety net under the watch
	Retry        time.Duration // how soon failed writes are tried again; 1 s
	LogLevel     slog.Level
}

// relayAbout opens relay's usage.
const relayAbout = `usage: hall relay --store nats://host:port [flags]

Watch this machine's sidecar folder (the one an m1nd runtime or a Hall
writes) and mirror its presences into the NATS bucket a central Hall reads.
Only records this relay mirrored are ever withdrawn from the bucket.
`

// parseRelayConfig reads relay's flags.
func parseRelayConfig(args []string, stdout, stderr io.Writer) (RelayConfig, error) {
	fs := flag.NewFlagSet("hall relay", flag.ContinueOnError)
	var cfg RelayConfig
	var level string
	fs.StringVar(&cfg.RegistryRoot, "registry-root", defaultRegistryRoot(), "registry root to watch; presences live in <root>/presences")
	fs.StringVar(&cfg.Store, "store", "", "the NATS servers to mirror into: nats://host:port[,host:port…] (required)")
	fs.StringVar(&cfg.NATSCreds, "nats-creds", "", "NATS credentials file (JWT and nkey seed)")
	fs.StringVar(&cfg.NATSTLSCA, "nats-tls-ca", "", "PEM file of the CAs that sign the NATS servers' certificates")
	fs.DurationVar(&cfg.TTL, "ttl", presence.DefaultTTL, "the longest record ttl in the folder; the bucket's max-age is raised to it")
	fs.DurationVar(&cfg.Rescan, "rescan", 30*time.Second, "full re-mirror of the folder, the safety net under its watch")
	fs.StringVar(&level, "log-level", "info", "debug, info, warn or error")
	if err := parseFlags(fs, relayAbout, args, stdout, stderr); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, &exitError{code: 2, err: fmt.Errorf("relay takes no arguments, got %q", fs.Args())}
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(level)); err != nil {
		return cfg, &exitError{code: 2, err: fmt.Errorf("--log-level: %w", err)}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, &exitError{code: 2, err: err}
	}
	return cfg, nil
}

// Validate refuses a relay with nowhere to mirror to.
func (c RelayConfig) Validate() error {
	spec, err := parseStoreSpec(c.Store)
	if err != nil {
		return err
	}
	if spec.Kind != storeNATS {
		return errors.New("relay needs --store nats://host:port (or HALL_STORE): it mirrors a local folder into a NATS bucket")
	}
	if c.TTL <= 0 || c.TTL > presence.MaxTTL {
		return fmt.Errorf("--ttl must be positive and at most %s, got %s", presence.MaxTTL, c.TTL)
	}
	return nil
}

// Relay mirrors one machine's sidecar folder into the shared NATS bucket,
// so sessions on many hosts appear in one central Hall.
//
// Ownership: the relay remembers what it wrote, and withdraws a record
// from the bucket only when it left the folder (or went stale) AND the
// bucket's copy is not newer than the one it wrote. Relays on two hosts
// never step on each other: different agents have different ids, and when
// the same agent on the same brain path shows up on two hosts, the writes
// merge by compare-and-set (the newest last_beat_ms carries the
// declarations, counters take the max; see natsstore.merge), and the host
// whose copy stopped beating cannot withdraw the record the other host
// keeps alive. A relay that stops withdraws nothing: its records expire in
// the bucket after their ttl, as the sessions would if nobody watched.
type Relay struct {
	Config RelayConfig
	Log    *slog.Logger

	src   *dirstore.Store
	dst   *natsstore.Store
	where string        // the bucket and servers, passwords redacted
	kicks chan struct{} // a reconnect: re-mirror everything
	// failing is set while writes fail, so a long outage logs once.
	failing bool

	mirrored map[string]presence.Record // what this relay last wrote, by id
	cancel   context.CancelFunc
	done     chan struct{}
}

// NewRelay returns a Relay for the config.
func NewRelay(cfg RelayConfig, log *slog.Logger) *Relay {
	if log == nil {
		log = slog.Default()
	}
	if cfg.Rescan <= 0 {
		cfg.Rescan = 30 * time.Second
	}
	if cfg.Retry <= 0 {
		cfg.Retry = time.Second
	}
	return &Relay{Config: cfg, Log: log, kicks: make(chan struct{}, 1), mirrored: map[string]presence.Record{}}
}

// Run opens the folder (creating it when missing) and the bucket, and
// starts mirroring; it returns once the mirror runs. NATS being
// unreachable is not an error: the relay mirrors once it connects.
func (r *Relay) Run(ctx context.Context) error {
	if err := r.Config.Validate(); err != nil {
		return err
	}
	r.src = dirstore.New(r.Config.RegistryRoot)
	if err := r.src.Init(); err != nil {
		return fmt.Errorf("open registry %s: %w", r.Config.RegistryRoot, err)
	}
	dst, err := openStore(storeOptions{
		Spec: r.Config.Store, TTL: r.Config.TTL, NATSCreds: r.Config.NATSCreds, NATSTLSCA: r.Config.NATSTLSCA,
		Name: "hall relay", OnConnect: func() { kick(r.kicks) },
	}, r.Log)
	if err != nil {
		return err
	}
	r.dst, r.where = dst.Store.(*natsstore.Store), dst.Where
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		r.loop(runCtx)
	}()
	r.Log.Info("relay mirroring", "folder", r.src.Dir(), "into", dst.Where)
	return nil
}

// Close stops mirroring and closes the connection. It withdraws nothing.
func (r *Relay) Close() error {
	if r.cancel != nil {
		r.cancel()
		<-r.done
	}
	if r.dst != nil {
		return r.dst.Close()
	}
	return nil
}

// loop mirrors on every folder change (coalesced), on every (re)connect to
// NATS, after a failed write and on the rescan period.
func (r *Relay) loop(ctx context.Context) {
	changes := make(chan struct{}, 1)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		for ctx.Err() == nil {
			if err := r.src.Watch(ctx, func() { kick(changes) }); err != nil {
				r.Log.Debug("folder watch ended; retrying", "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(r.Config.Retry):
				kick(changes)
			}
		}
	}()
	defer func() { <-watchDone }()

	rescan := time.NewTicker(r.Config.Rescan)
	defer rescan.Stop()
	var retry <-chan time.Time
	backoff := r.Config.Retry
	for {
		full := false
		select {
		case <-ctx.Done():
			return
		case <-changes:
			// Gather the rest of a burst: one folder read for many writes.
			time.Sleep(5 * time.Millisecond)
			select {
			case <-changes:
			default:
			}
		case <-r.kicks:
			full = true
		case <-rescan.C:
			full = true
		case <-retry:
			full = true
		}
		retry = nil
		if r.sync(ctx, full) {
			backoff = r.Config.Retry
			continue
		}
		// Back off while NATS is away; its reconnect kicks a full pass
		// at once anyway.
		retry = time.After(backoff)
		backoff = min(2*backoff, r.Config.Rescan)
	}
}

// sync makes the bucket reflect the folder: it writes every live record
// that changed since this relay last wrote it (every one when full is set),
// and withdraws what this relay wrote that has left the folder or gone
// stale, unless someone wrote it since. It reports whether everything
// went through; what did not is tried again.
func (r *Relay) sync(ctx context.Context, full bool) bool {
	l, err := r.src.List(ctx)
	if err != nil {
		r.Log.Warn("relay cannot read the folder", "err", err)
		return false
	}
	now := time.Now()
	ok := true
	live := make(map[string]bool, len(l.Records))
	for _, rec := range l.Records {
		if rec.Stale(now) || !presence.ValidID(rec.PresenceID) {
			continue
		}
		live[rec.PresenceID] = true
		if last, had := r.mirrored[rec.PresenceID]; had && !full && reflect.DeepEqual(last, rec) {
			continue
		}
		if err := r.dst.Upsert(ctx, rec); err != nil {
			r.logFailure("relay cannot mirror a presence", "presence_id", rec.PresenceID, "err", err)
			ok = false
			continue
		}
		r.mirrored[rec.PresenceID] = rec
	}
	for id, last := range r.mirrored {
		if live[id] {
			continue
		}
		if _, err := r.dst.DeleteUnlessNewer(ctx, id, last.LastBeatMs); err != nil {
			r.logFailure("relay cannot withdraw a presence", "presence_id", id, "err", err)
			ok = false
			continue
		}
		delete(r.mirrored, id)
	}
	if ok && r.failing {
		r.Log.Info("relay mirroring again")
	}
	r.failing = !ok
	return ok
}

// logFailure warns on the first failure of a streak and keeps the rest of
// an outage at debug level.
func (r *Relay) logFailure(msg string, args ...any) {
	if r.failing {
		r.Log.Debug(msg, args...)
		return
	}
	r.Log.Warn(msg, args...)
}

func kick(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// runRelay is the relay command: mirror until SIGINT or SIGTERM.
func runRelay(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseRelayConfig(args, stdout, stderr)
	if err != nil {
		return err
	}
	log, flushLog := newLogger(stderr, cfg.LogLevel)
	defer flushLog()
	r := NewRelay(cfg, log)
	if err := r.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "relay: mirroring %s into %s\n", r.src.Dir(), r.where)
	<-ctx.Done()
	log.Info("shutting down")
	return r.Close()
}
