package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/gcfloor"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hookinstall"
	"github.com/hall-dev/hall/internal/mcp"
	"github.com/hall-dev/hall/internal/metrics"
	"github.com/hall-dev/hall/internal/natsstore"
	"github.com/hall-dev/hall/internal/peershare"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/recovery"
	"github.com/hall-dev/hall/internal/remotewatch"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/web"
)

// The server's timeouts. A request (headers and body: a beat is at most
// 64 KiB) has 30 s to arrive whole, far more than any client on a working
// network needs and far less than a connection held open to exhaust the
// Hall's descriptors; the stream, which reads nothing once its headers are
// in, lifts it (cmd/hall/routes.go). A kept-alive connection is closed
// after a minute without a request: the page polls every 3 s, so its
// connection stays in use while it needs one.
const (
	DefaultReadTimeout = 30 * time.Second
	DefaultIdleTimeout = time.Minute
)

// Config is everything serve needs, parsed from flags and HALL_* variables.
type Config struct {
	Addr                string
	RegistryRoot        string
	Brains              []string
	TTL                 time.Duration
	Token               string   // bearer token that writes require
	ReadToken           string   // bearer token (or page cookie) that every read requires; reads open when empty
	AllowedHosts        []string // Host names answered besides loopback names and IP addresses
	AllowInsecureRemote bool
	MutatingTools       []string
	Rescan              time.Duration
	LogLevel            slog.Level
	PprofAddr           string         // loopback address for net/http/pprof; off when empty
	Demo                bool           // a temporary registry with simulated agents (cmd/hall/demo.go)
	Page                web.PageConfig // timings of the live page's script; defaults when zero
	StreamHeartbeat     time.Duration  // comment line on an idle live stream; 15 s when zero
	MaxStreams          int            // live streams served at once; no bound when zero (the flag defaults to defaultMaxStreams)
	MaxCollisions       int            // most collisions listed on one brain; presence.DefaultMaxCollisions when zero
	// CheckRate is the checks a second each client may make (twice that at
	// once) before a 429 rate_limited; no limit when zero (the flag
	// defaults to hall.DefaultCheckRate).
	CheckRate float64
	// SnapshotReadRate is the snapshot reads (GET /api/snapshots, one
	// snapshot's comparison, the MCP tool) a second each client may make
	// (twice that at once) before a 429 rate_limited; no limit when zero
	// (the flag defaults to hall.DefaultSnapshotReadRate).
	SnapshotReadRate float64
	// ReadTimeout bounds reading one request, headers and body, on every
	// route but the stream (which reads nothing after its headers and
	// lives on); IdleTimeout how long a kept-alive connection may wait for
	// its next request. DefaultReadTimeout and DefaultIdleTimeout when
	// zero; no flag sets them.
	ReadTimeout time.Duration
	IdleTimeout time.Duration
	Store       string // "dir" (the default) or nats://host:port[,…] (cmd/hall/store.go)
	NATSCreds   string // NATS credentials file, for a nats:// store
	NATSTLSCA   string // PEM CAs of the NATS servers' certificates
	// HostName names this machine on the records of the beats this Hall
	// takes (--host-name; os.Hostname by default): a Hall on another
	// host never asks its git about a side whose record names this one.
	// "" writes none (a test's Hall, unless it names one).
	HostName string
	// ShareChanges is what this Hall shares with Halls on other hosts
	// over a NATS store (--share-changes): "paths" (the default: the
	// records only) or "content" (the base and blobs of files in an
	// overlap across hosts; package peershare, docs/nats.md).
	ShareChanges string
	// Git is the git program the worktree scanner runs ("" looks git up
	// on PATH); GitBase overrides the base branch worktrees are compared
	// against ("" takes each repository's default: origin/HEAD, else the
	// main worktree's branch). docs/worktrees.md.
	Git     string
	GitBase string
	// GitIdle runs git under SCHED_IDLE besides its nice value
	// (--git-priority idle; gitscan.RunnerConfig.Idle).
	GitIdle bool
	// GCFloor is the heap, in bytes, under which the garbage collector
	// starts no cycle (--gc-floor-mib; internal/gcfloor); 0 leaves Go's
	// own pacing. Process-wide: runServe keeps it, not Main.
	GCFloor uint64
	// RemoteInterval is the time between two looks at a remote a live
	// worktree fetches from (--remote-interval; 0: no watch of pushed
	// work); RemoteActiveDays and RemoteMaxBranches say which of its
	// branches are active (--remote-active-days, --remote-max-branches).
	// docs/worktrees.md#pushed-work.
	RemoteInterval    time.Duration
	RemoteActiveDays  int
	RemoteMaxBranches int
	// GitInterval is the least time between two scans of one worktree;
	// gitscan.DefaultInterval when zero. No flag sets it: tests shorten it.
	GitInterval time.Duration
	// Snapshots keeps a snapshot of a worktree before a destructive
	// command, in <registry-root>/recovery (--snapshots; package
	// recovery), within SnapshotLimits (--snapshot-max-*).
	Snapshots      bool
	SnapshotLimits recovery.Limits
	// SnapshotBudget bounds a hook's snapshot (--snapshot-budget).
	SnapshotBudget time.Duration

	// Autostarted marks a Hall a client started (--autostarted;
	// internal/autostart): it serves only if it takes its registry's lock,
	// logs to <registry-root>/hall.log, and stops when idle (IdleStop,
	// DefaultIdleStop unless given).
	Autostarted bool
	// IdleStop stops the Hall once it has had no live presence, no stream
	// subscriber and no request for this long (--idle-stop); 0 never.
	IdleStop time.Duration

	// Now is the Hall's clock, time.Now when nil. No flag sets it: the
	// fault suite steps it (cmd/hall/fault_test.go).
	Now func() time.Time
}

// DefaultIdleStop is how long an autostarted Hall waits, idle, before it
// stops.
const DefaultIdleStop = 30 * time.Minute

// maxGCFloorMiB bounds --gc-floor-mib (64 GiB).
const maxGCFloorMiB = 64 << 10

// The --git-priority values.
const (
	gitPriorityLow  = "low"
	gitPriorityIdle = "idle"
)

// serveAbout opens serve's usage: serve is the default command, so its
// usage is hall's.
func serveAbout() string {
	return usage() + `
hall serve, the default command, runs the Hall; its flags follow.
`
}

// parseServeConfig reads serve's flags.
func parseServeConfig(args []string, stdout, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("hall serve", flag.ContinueOnError)
	var cfg Config
	var brains, tools cli.StringList
	var level string
	var token, readToken cli.Secret
	var hosts cli.HostList
	fs.StringVar(&cfg.Addr, "addr", cli.DefaultAddr, "address to listen on (loopback by default)")
	fs.StringVar(&cfg.RegistryRoot, "registry-root", defaultRegistryRoot(), "registry root; presences live in <root>/presences")
	fs.Var(&brains, "brain", "a brain known before anyone beats (repeatable)")
	fs.DurationVar(&cfg.TTL, "ttl", presence.DefaultTTL, "ttl written into the records of beats this Hall takes")
	token.Register(fs, "token", "bearer token that writes (beat, leave) require")
	readToken.Register(fs, "read-token", "bearer token that every read (page, API, stream, metrics) requires; a browser gives it once on the page")
	fs.Var(&hosts, "allowed-host", "a Host name to answer besides loopback names and IP addresses, as name or name:port (repeatable; HALL_ALLOWED_HOST separates them with commas); any other is refused (421) against DNS rebinding")
	fs.BoolVar(&cfg.AllowInsecureRemote, "allow-insecure-remote", false, "allow a non-loopback address without --token")
	fs.Var(&tools, "mutating-tool", "a tool name that counts as a mutation (repeatable; replaces the defaults)")
	fs.DurationVar(&cfg.Rescan, "rescan", 30*time.Second, "full rescan of the store, the safety net under its watch")
	fs.StringVar(&cfg.PprofAddr, "pprof-addr", "", "serve net/http/pprof on this loopback address (for profiling; off by default)")
	fs.StringVar(&level, "log-level", "info", "debug, info, warn or error")
	fs.DurationVar(&cfg.StreamHeartbeat, "stream-heartbeat", stream.DefaultHeartbeat, "heartbeat comment on an idle live stream (keeps proxies from closing it)")
	fs.IntVar(&cfg.MaxStreams, "max-streams", defaultMaxStreams(), "live streams served at once; one more gets a 503 with Retry-After (0: no bound). Default: 10000, or half the open-file limit when that is lower")
	fs.BoolVar(&cfg.Demo, "demo", false, "run over a temporary registry with simulated agents, to see the Hall alive")
	fs.StringVar(&cfg.Store, "store", storeDir, "where presences live: dir (the sidecar folder under --registry-root) or nats://host:port[,host:port…] (a JetStream bucket several Halls share)")
	fs.StringVar(&cfg.NATSCreds, "nats-creds", "", "NATS credentials file (JWT and nkey seed), for --store nats://")
	fs.StringVar(&cfg.NATSTLSCA, "nats-tls-ca", "", "PEM file of the CAs that sign the NATS servers' certificates, for --store nats://")
	fs.StringVar(&cfg.HostName, "host-name", defaultHostName(), "this machine's name on the records of the beats this Hall takes (Halls sharing a NATS store tell their hosts' worktrees apart by it)")
	fs.StringVar(&cfg.ShareChanges, "share-changes", string(peershare.Paths), "what this Hall shares with Halls on other hosts over a NATS store: paths (the records only) or content (also the base commit and the uncommitted content of files in an overlap across hosts, so their merge is predicted; docs/nats.md)")
	fs.Float64Var(&cfg.CheckRate, "check-rate", hall.DefaultCheckRate, "checks a second each client (by remote address; MCP by session) may make, twice that at once, before a 429 rate_limited with Retry-After (0: no limit)")
	fs.IntVar(&cfg.MaxCollisions, "max-collisions", presence.DefaultMaxCollisions, "most collisions the contract, page and stream list on one brain (the first by presence id); collisions_total counts them all")
	fs.StringVar(&cfg.Git, "git", "", "the git program the worktree scanner runs (default: git on PATH); without a usable git (2.38 or newer) overlaps count the hooks' observed files only, and health says so")
	gitPriority := fs.String("git-priority", gitPriorityLow, "how git's processes are scheduled beside the Hall and the agents: "+gitPriorityLow+" (nice 10: a smaller share of the CPU) or "+gitPriorityIdle+" (also Linux's SCHED_IDLE: only CPU time nothing else wants, so git never delays a hook answer, and waits on a machine kept busy)")
	gcFloor := fs.Uint64("gc-floor-mib", gcfloor.Default>>20, "the heap, in MiB, under which Go's garbage collector starts no cycle (fewer cycles, so fewer answers paying for one: a shorter p99, for up to this much memory more); 0 leaves Go's own pacing")
	fs.StringVar(&cfg.GitBase, "git-base", "", "the base branch each worktree's changes are measured against (default: the repository's origin/HEAD, else its main worktree's branch)")
	fs.DurationVar(&cfg.RemoteInterval, "remote-interval", remotewatch.DefaultInterval, "the time between two looks (git ls-remote) at each remote a live worktree fetches from, for branches pushed there that change the same files (docs/worktrees.md#pushed-work); 0: no watch")
	fs.IntVar(&cfg.RemoteActiveDays, "remote-active-days", int(remotewatch.DefaultActiveFor/(24*time.Hour)), "a pushed branch is active when its tip was committed within this many days")
	fs.IntVar(&cfg.RemoteMaxBranches, "remote-max-branches", remotewatch.DefaultMaxBranches, "the most active branches compared per remote, newest first; the rest are counted")
	fs.BoolVar(&cfg.Snapshots, "snapshots", true, "keep a snapshot of a worktree's uncommitted work before a destructive command, in <registry-root>/recovery, for hall restore (docs/recovery.md)")
	fs.DurationVar(&cfg.SnapshotLimits.MaxAge, "snapshot-max-age", recovery.DefaultMaxAge, "drop snapshots older than this")
	fs.Int64Var(&cfg.SnapshotLimits.MaxBytes, "snapshot-max-bytes", recovery.DefaultMaxBytes, "the most bytes the snapshots take on disk; past it the oldest are dropped")
	fs.IntVar(&cfg.SnapshotLimits.MaxCount, "snapshot-max-count", recovery.DefaultMaxCount, "the most snapshots kept; past it the oldest are dropped")
	fs.Float64Var(&cfg.SnapshotReadRate, "snapshot-read-rate", hall.DefaultSnapshotReadRate, "snapshot reads a second each client (by remote address; MCP by session) may make (GET /api/snapshots, /api/snapshots/{id}, the snapshots tool), twice that at once, before a 429 rate_limited with Retry-After (0: no limit)")
	fs.DurationVar(&cfg.SnapshotBudget, "snapshot-budget", hall.DefaultSnapshotBudget, "the most a hook answer waits for its snapshot before a destructive command; past it the answer says \"not saved\" (at most the hook deadline, 2s)")
	fs.BoolVar(&cfg.Autostarted, "autostarted", false, "this Hall is started by a hook, hall beat or hall mcp that found none (docs/hooks.md#the-hall-starts-itself): it serves only if no other Hall holds its registry, logs to <registry-root>/hall.log, and stops when idle (--idle-stop, 30m unless given)")
	fs.DurationVar(&cfg.IdleStop, "idle-stop", 0, "stop after this long with no live presence, no stream subscriber (an open page is one) and no request, the store kept (0: never, but 30m for an --autostarted Hall)")
	if err := parseFlags(fs, serveAbout(), args, stdout, stderr); err != nil {
		return cfg, err
	}
	if cfg.IdleStop < 0 {
		return cfg, &exitError{code: 2, err: fmt.Errorf("--idle-stop %s: want 0 (never) or a positive duration", cfg.IdleStop)}
	}
	if cfg.Autostarted && cfg.IdleStop == 0 {
		cfg.IdleStop = DefaultIdleStop
	}
	if cfg.SnapshotLimits.MaxAge < 0 || cfg.SnapshotLimits.MaxBytes < 0 || cfg.SnapshotLimits.MaxCount < 0 {
		return cfg, &exitError{code: 2, err: fmt.Errorf("--snapshot-max-age, --snapshot-max-bytes and --snapshot-max-count must be positive (0: the default)")}
	}
	if cfg.SnapshotBudget < 0 || cfg.SnapshotBudget > hall.HookDeadline {
		return cfg, &exitError{code: 2, err: fmt.Errorf("--snapshot-budget %s: want 0 (the default, %s) up to the hook deadline, %s", cfg.SnapshotBudget, hall.DefaultSnapshotBudget, hall.HookDeadline)}
	}
	if cfg.RemoteInterval < 0 || cfg.RemoteActiveDays < 1 || cfg.RemoteMaxBranches < 1 {
		return cfg, &exitError{code: 2, err: fmt.Errorf("--remote-interval must be 0 (no watch) or positive, --remote-active-days and --remote-max-branches at least 1")}
	}
	if fs.NArg() > 0 {
		return cfg, &exitError{code: 2, err: fmt.Errorf("serve takes no arguments, got %q", fs.Args())}
	}
	var err error
	if cfg.Token, err = token.Value(); err != nil {
		return cfg, &exitError{code: 2, err: err}
	}
	if cfg.ReadToken, err = readToken.Value(); err != nil {
		return cfg, &exitError{code: 2, err: err}
	}
	cfg.AllowedHosts = hosts.StringList
	if *gcFloor > maxGCFloorMiB {
		return cfg, &exitError{code: 2, err: fmt.Errorf("--gc-floor-mib %d: want at most %d", *gcFloor, maxGCFloorMiB)}
	}
	cfg.GCFloor = *gcFloor << 20
	switch *gitPriority {
	case gitPriorityLow:
	case gitPriorityIdle:
		cfg.GitIdle = true
	default:
		return cfg, &exitError{code: 2, err: fmt.Errorf("--git-priority %q: want %s or %s", *gitPriority, gitPriorityLow, gitPriorityIdle)}
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(level)); err != nil {
		return cfg, &exitError{code: 2, err: fmt.Errorf("--log-level: %w", err)}
	}
	for _, b := range brains {
		c, err := presence.CanonicalPath(b)
		if err != nil {
			return cfg, &exitError{code: 2, err: fmt.Errorf("--brain: %w", err)}
		}
		cfg.Brains = append(cfg.Brains, c)
	}
	cfg.MutatingTools = tools
	return cfg, nil
}

// Validate refuses a configuration that would expose writes to the network.
func (c Config) Validate() error {
	host, _, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", c.Addr, err)
	}
	if c.Token == "" && !c.AllowInsecureRemote && !isLoopback(host) {
		return fmt.Errorf("--addr %s is not loopback: set --token (or HALL_TOKEN), or --allow-insecure-remote", c.Addr)
	}
	if c.TTL <= 0 || c.TTL > presence.MaxTTL {
		return fmt.Errorf("--ttl must be positive and at most %s, got %s", presence.MaxTTL, c.TTL)
	}
	if c.MaxCollisions < 0 {
		return fmt.Errorf("--max-collisions must be 0 (the default) or more, got %d", c.MaxCollisions)
	}
	for _, h := range c.AllowedHosts {
		if h == "" || strings.ContainsAny(h, "/@ \t") || strings.Contains(h, "://") {
			return fmt.Errorf("--allowed-host %q: want a host name, or name:port, as a browser sends it in Host", h)
		}
	}
	if c.MaxStreams < 0 {
		return fmt.Errorf("--max-streams must be 0 (no bound) or more, got %d", c.MaxStreams)
	}
	if !(c.SnapshotReadRate >= 0) || math.IsInf(c.SnapshotReadRate, 0) {
		return fmt.Errorf("--snapshot-read-rate must be 0 (no limit) or a positive number of reads a second, got %v", c.SnapshotReadRate)
	}
	if !(c.CheckRate >= 0) || math.IsInf(c.CheckRate, 0) {
		return fmt.Errorf("--check-rate must be 0 (no limit) or a positive number of checks a second, got %v", c.CheckRate)
	}
	if _, err := parseStoreSpec(c.Store); err != nil {
		return err
	}
	if c.HostName != "" && !presence.ValidHost(c.HostName) {
		return fmt.Errorf("--host-name %q: want a name of at most %d bytes, no control or invisible character", c.HostName, presence.MaxIDLen)
	}
	if _, err := peershare.ParseMode(c.ShareChanges); err != nil {
		return err
	}
	return nil
}

// defaultHostName is --host-name's default: the kernel's name for this
// machine, "" when it has none to give (records then name no host).
func defaultHostName() string {
	h, err := os.Hostname()
	if err != nil || !presence.ValidHost(h) {
		return ""
	}
	return h
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Main is the running Hall server: Run starts it and returns once it
// listens; Close stops it. Tests start it on 127.0.0.1:0 over a temp
// registry.
type Main struct {
	Config Config
	Log    *slog.Logger

	Store     presence.Store // chosen by --store (cmd/hall/store.go)
	StoreKind string         // "dir" or "nats"
	Service   *presence.Service
	App       *hall.Hall  // the Hall's operations, which every surface calls (internal/hall)
	Hub       *stream.Hub // the live stream, and the cached roster every read serves from
	Metrics   *metrics.Metrics
	MCP       *mcp.HTTPHandler // the MCP tools at /mcp
	GitScan   *gitscan.Scanner // git's answers for the live worktrees (overlaps)
	// Peers shares sides across hosts over a NATS store (--share-changes);
	// nil on a folder store or without a host name.
	Peers     *peershare.Sharer
	Remotes   *remotewatch.Watcher // the watch of pushed work; nil when off (--remote-interval 0) or without git
	GitHealth contract.HealthGit

	// bases finds another host's side's HEAD in the watch's stores, or
	// fetches it there (peershare.Bases); nil with the watch.
	bases *remotewatch.Commits

	ln     net.Listener
	server *http.Server
	fresh  freshConns // connections that have read no request yet: closed at shutdown
	cancel context.CancelFunc
	done   chan struct{}

	closeStore   func() error
	registryLock *dirstore.Lock // nil unless this Hall holds the folder's lock
	pprof        *http.Server
	runner       *gitscan.Runner // nil without a usable git
	// lastRequest is when the last request arrived (unix ns), and idle is
	// closed once the Hall has been idle for Config.IdleStop (idle.go).
	lastRequest atomic.Int64
	idle        chan struct{}
	// kept is the snapshot store, once open: the scanner hands it the
	// snapshots it takes for merge prediction (recovery points).
	kept atomic.Pointer[recovery.Store]
}

// NewMain returns a Main for the config.
func NewMain(cfg Config, log *slog.Logger) *Main {
	if log == nil {
		log = slog.Default()
	}
	return &Main{Config: cfg, Log: log}
}

// URL is the Hall's base URL once Run returned.
func (m *Main) URL() string { return "http://" + m.ln.Addr().String() }

// Run opens the registry, reclaims what dead sessions left, starts the live
// loop and the HTTP server, and returns once the server listens.
func (m *Main) Run(ctx context.Context) error {
	if err := m.Config.Validate(); err != nil {
		return err
	}
	store, err := openStore(storeOptions{
		Spec: m.Config.Store, RegistryRoot: m.Config.RegistryRoot, TTL: m.Config.TTL,
		NATSCreds: m.Config.NATSCreds, NATSTLSCA: m.Config.NATSTLSCA, Name: "hall serve",
	}, m.Log)
	if err != nil {
		return err
	}
	m.Store, m.StoreKind, m.closeStore = store.Store, store.Kind, store.Close
	startedAt := time.Now()
	if err := m.lockRegistry(startedAt); err != nil {
		m.closeStore()
		return err
	}
	if rc, ok := m.Store.(presence.Reclaimer); ok {
		if rep, err := rc.Reclaim(ctx, startedAt.UnixMilli()); err != nil {
			m.Log.Warn("boot reclaim failed", "err", err)
		} else if rep.StaleRecords+rep.TempFiles > 0 {
			m.Log.Info("boot reclaim", "stale_records", rep.StaleRecords, "temp_files", rep.TempFiles)
		}
	}
	m.Metrics = metrics.New()
	svcCfg := presence.Config{TTL: m.Config.TTL, Brains: m.Config.Brains, Logger: m.Log, Now: m.Config.Now,
		ListingTime: m.Metrics.ListingTime, RereadTime: m.Metrics.RereadTime, MaxCollisions: m.Config.MaxCollisions}
	if len(m.Config.MutatingTools) > 0 {
		c := presence.NewClassifier(m.Config.MutatingTools)
		svcCfg.Classifier = &c
	}
	finder := m.newGitScan(ctx)
	finder.Host = m.Config.HostName
	m.Peers = m.newSharer()
	if m.Peers != nil {
		finder.Peers = m.Peers
	}
	svcCfg.Overlaps = finder
	m.Service = presence.NewService(m.Store, svcCfg)

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.cancel = cancel
	m.done = make(chan struct{})
	scanDone := make(chan struct{})
	go func() {
		defer close(scanDone)
		if m.Remotes != nil {
			remoteDone := make(chan struct{})
			go func() {
				defer close(remoteDone)
				_ = m.Remotes.Run(runCtx)
			}()
			defer func() { <-remoteDone }()
		}
		_ = m.GitScan.Run(runCtx)
	}()
	peersDone := make(chan struct{})
	go func() {
		defer close(peersDone)
		if m.Peers != nil {
			m.Peers.Run(runCtx)
		}
	}()
	go func() {
		defer close(m.done)
		defer func() { <-scanDone; <-peersDone }()
		_ = m.Service.Run(runCtx, presence.RunConfig{Rescan: m.Config.Rescan})
	}()

	m.Hub = stream.NewHub(m.Service, stream.Config{Heartbeat: m.Config.StreamHeartbeat, MaxSubscribers: m.Config.MaxStreams, Log: m.Log, FanoutTime: m.Metrics.FanoutTime})
	m.Hub.Start(runCtx)
	// The Hall's operations, once: every surface below calls them.
	m.App = &hall.Hall{Service: m.Service, Roster: m.Hub, History: m.Hub, Changes: m.Hub.Changed(), Log: m.Log, Git: m.GitScan,
		Remotes:       remoteWatch(m.Remotes),
		CheckLimit:    hall.NewLimiter(m.Config.CheckRate, checkBurst(m.Config.CheckRate), 0),
		SnapshotLimit: hall.NewLimiter(m.Config.SnapshotReadRate, checkBurst(m.Config.SnapshotReadRate), 0),
		Recovery:      m.openRecovery(runCtx), SnapshotBudget: m.Config.SnapshotBudget, Host: m.Config.HostName}
	app := m.App
	src := metrics.Sources{Service: m.Service, Stream: m.Hub, Roster: m.Hub, GitScan: m.GitScan, StoreKind: m.StoreKind}
	if app.Recovery != nil {
		src.Recovery = app
	}
	if m.Remotes != nil {
		src.Remotes = m.Remotes
	}
	if m.Peers != nil {
		src.Peers = m.Peers
	}
	m.Metrics.Watch(src)
	h := &web.Handler{
		App: app, StoreKind: m.StoreKind, StartedAt: startedAt, Log: m.Log, Page: m.Config.Page,
		WriteToken: m.Config.Token, ReadToken: m.Config.ReadToken, AllowedHosts: m.Config.AllowedHosts,
		Git: &m.GitHealth,
	}
	h.Stream, h.History, h.Metrics = m.Hub, m.Hub, m.Metrics.Handler(m.Log)
	m.MCP = mcp.NewHTTPHandler(mcp.Config{
		Client:         app,
		AuthorizeWrite: web.WriteRule(m.Config.Token),
		Version:        buildVersion(),
		Log:            m.Log,
	}, 0)
	h.MCP = m.MCP
	e := newRouter(h, m.Log)
	ln, err := net.Listen("tcp", m.Config.Addr)
	if err != nil {
		return errors.Join(fmt.Errorf("listen %s: %w", m.Config.Addr, err), m.Close())
	}
	m.ln = ln
	// Before it serves: every hook answer reads it.
	app.Page = m.URL() + "/"
	var handler http.Handler = e
	if m.Config.IdleStop > 0 {
		handler = m.watchIdle(runCtx, e)
	}
	m.server = &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       cmp.Or(m.Config.ReadTimeout, DefaultReadTimeout),
		IdleTimeout:       cmp.Or(m.Config.IdleTimeout, DefaultIdleTimeout),
		ConnState:         m.fresh.track,
	}
	m.server.RegisterOnShutdown(m.fresh.close)
	go func() {
		if err := m.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.Log.Error("http server stopped", "err", err)
		}
	}()
	if m.registryLock != nil {
		if err := m.registryLock.SetNote(m.lockNote(m.URL(), startedAt)); err != nil {
			m.Log.Warn("registry lock note not written", "err", err)
		}
	}
	m.Log.Info("hall listening", "url", m.URL(), "store", m.StoreKind, "at", store.Where)
	if host, _, _ := net.SplitHostPort(m.Config.Addr); !isLoopback(host) && m.Config.ReadToken == "" {
		m.Log.Warn("listening beyond loopback without --read-token: anyone who reaches this address reads the roster (paths, themes, task refs)", "addr", m.Config.Addr)
	}
	if m.Config.PprofAddr != "" {
		if m.pprof, err = startPprof(m.Config.PprofAddr, m.Log); err != nil {
			m.Log.Warn("profiler not started", "err", err)
		}
	}
	return nil
}

// ShutdownGrace bounds how long Close waits for requests in flight (MCP
// sessions' included) before it cuts them.
const ShutdownGrace = 2 * time.Second

// Close stops the server within ShutdownGrace, ends the application's
// background work (hall.Hall.Close), ends the live loop and flushes every
// throttled beat to the store; Run's listen failure closes through it too. Requests still running at the
// grace's end (a client that never finishes its body, a call stuck in a
// filesystem) are cut: their connections closed, nothing of theirs was
// acknowledged, and that is no error of the Hall's (SIGTERM still exits
// 0). Every beat answered before is in the service and flushed below.
func (m *Main) Close() error {
	var err error
	grace, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if m.pprof != nil {
		_ = m.pprof.Close()
	}
	if m.MCP != nil {
		m.MCP.Close() // as the hub's: open MCP streams would hold Shutdown; bounded within the grace
	}
	if m.Hub != nil {
		// Open streams never go idle: end them first, or Shutdown waits
		// its whole timeout on them.
		m.Hub.Close()
	}
	if m.server != nil {
		if serr := m.server.Shutdown(grace); serr != nil {
			if !errors.Is(serr, context.DeadlineExceeded) {
				err = serr
			}
			m.Log.Warn("requests still running at the end of the shutdown grace: cut", "grace", ShutdownGrace)
			err = errors.Join(err, m.server.Close())
		}
	}
	if m.App != nil {
		// No request runs now: end the loss checks the application
		// started before the stores they read close.
		m.App.Close()
	}
	if m.cancel != nil {
		m.cancel()
		<-m.done
	}
	if kept := m.kept.Load(); kept != nil {
		// The snapshots answered for before the server stopped, recorded.
		if kerr := kept.Close(grace); kerr != nil {
			m.Log.Warn("snapshots left to the next start to record", "err", kerr)
		}
	}
	if m.closeStore != nil {
		// After the live loop: its last act flushes held beats to the store.
		err = errors.Join(err, m.closeStore())
	}
	// Last: the folder is this Hall's until every held beat is written.
	err = errors.Join(err, m.registryLock.Close())
	return err
}

// runServe is the serve command: run until SIGINT or SIGTERM.
func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseServeConfig(args, stdout, stderr)
	if err != nil {
		return err
	}
	if cfg.Autostarted && !cfg.Demo {
		// Started detached, its standard files on the null device: it
		// writes its log where a person looks for it.
		f, err := openServeLog(cfg.RegistryRoot)
		if err != nil {
			return err
		}
		defer f.Close()
		stdout, stderr = f, f
	}
	log, flushLog := newLogger(stderr, cfg.LogLevel)
	defer flushLog()
	defer gcfloor.Keep(cfg.GCFloor)()
	if cfg.Demo {
		return runDemo(ctx, cfg, log, stdout)
	}
	m := NewMain(cfg, log)
	if err := m.Run(ctx); err != nil {
		var another *anotherHallError
		if errors.As(err, &another) {
			log.Info(another.Error())
			return nil
		}
		return err
	}
	fmt.Fprintf(stdout, "Hall: open %s\n", m.URL())
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case <-m.Idle():
		log.Info("idle: no live presence, stream or request; stopping, the store kept", "idle_stop", cfg.IdleStop)
	}
	return m.Close()
}

// openRecovery opens the snapshot store under the registry root and
// prunes it in the background; nil (no snapshots kept, logged) when
// --snapshots=false, without git, or when the store cannot be opened: a
// broken store never stops the Hall.
func (m *Main) openRecovery(ctx context.Context) *recovery.Store {
	if !m.Config.Snapshots || m.runner == nil {
		return nil
	}
	// A runner of its own, at the Hall's own priority: a snapshot holds
	// a hook answer, so it neither waits behind the scanner's processes
	// nor yields its core as the scanner's git does (nice, SCHED_IDLE);
	// two processes at once, so that the one an answer waits for never
	// waits behind the last snapshot's background half (Store.Take).
	run, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{Path: m.Config.Git, Nice: -1, MaxProcs: 2})
	if err != nil {
		m.Log.Warn("no snapshots kept: git cannot run", "err", err)
		return nil
	}
	store, err := recovery.Open(ctx, filepath.Join(m.Config.RegistryRoot, recoveryDir), run, m.Config.SnapshotLimits, m.Config.Now)
	if err != nil {
		m.Log.Warn("no snapshots kept: the recovery store cannot be opened", "err", err)
		return nil
	}
	go store.Run(ctx)
	m.kept.Store(store)
	return store
}

// newSharer makes what shares sides of overlaps across hosts with the
// Halls on the same NATS store (package peershare): none on a folder
// store, or without a host name (sides cannot be told apart by host).
// It runs in the background, off every request's path.
func (m *Main) newSharer() *peershare.Sharer {
	ns, ok := m.Store.(*natsstore.Store)
	if !ok || m.Config.HostName == "" {
		return nil
	}
	mode, _ := peershare.ParseMode(m.Config.ShareChanges) // Validate checked it
	cfg := peershare.Config{Host: m.Config.HostName, Mode: mode, Log: m.Log, Notify: func() { m.Service.Nudge() }}
	if mode == peershare.Content {
		cfg.Board = ns.Board("", 0, 0)
		if m.runner != nil {
			cfg.Git = m.GitScan
		}
		if m.bases != nil {
			cfg.Bases = m.bases
		}
	}
	return peershare.New(cfg)
}

// newGitScan finds git (--git) and makes the worktree scanner and the
// overlap finder over it. A git missing or too old is no failure: the
// scanner answers every worktree with why, overlaps count the hooks'
// observed files only, and health and the log say so. The scanner's news
// (a worktree's changes, a merge predicted) nudges the service, so the
// stream's next diff carries the overlaps it changed.
func (m *Main) newGitScan(ctx context.Context) *hall.OverlapFinder {
	runner, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{Path: m.Config.Git, Idle: m.Config.GitIdle})
	m.GitHealth = contract.HealthGit{Status: contract.GitOK}
	m.runner = runner
	if err != nil {
		m.runner = nil
		m.GitHealth = contract.HealthGit{Status: contract.GitObservedOnly, Code: string(gitscan.CodeOf(err)),
			Detail: "observed files only: " + err.Error()}
		m.Log.Warn("git unusable: overlaps count observed files only", "err", err)
	} else {
		v := runner.Version()
		m.GitHealth.Version = fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
	}
	m.GitScan = gitscan.NewScanner(gitscan.ScannerConfig{
		Runner: runner, Unavailable: err, Interval: m.Config.GitInterval,
		Changes: gitscan.ChangesOptions{Base: m.Config.GitBase},
		// The installer's files are nobody's work (hookinstall.Installed).
		Omit: hookinstall.Installed,
		// Scans start with the scanner's Run, after the service is made.
		Notify: func(wt string) {
			m.Service.Nudge()
			if m.Remotes != nil {
				m.Remotes.Changed(wt)
			}
			if m.Peers != nil {
				m.Peers.Changed(wt) // its new state shipped at once
			}
		},
		// Its merge snapshots are recovery points too (docs/recovery.md).
		Kept: func(ctx context.Context, snap gitscan.Snapshot, env []string) {
			if store := m.kept.Load(); store != nil {
				if _, _, err := store.Adopt(ctx, snap, env); err != nil {
					m.Log.Debug("recovery: a scan snapshot not kept", "worktree", snap.Top, "err", err)
				}
			}
		},
	})
	finder := &hall.OverlapFinder{Git: m.GitScan}
	if m.Remotes = m.newRemoteWatch(ctx); m.Remotes != nil {
		finder.Pushed = m.Remotes
	}
	return finder
}

// remotesDir is the watch stores' directory under the registry root.
const remotesDir = "remotes"

// newRemoteWatch makes the watch of pushed work (--remote-interval),
// with a git runner of its own (a fetch never holds the scanner's
// processes) and its stores under <registry-root>/remotes; nil when off
// or without a usable git. Its news nudges the service as the scanner's
// does. Another host's side's HEAD is looked for and fetched into the
// same stores with the same git (m.bases). On a NATS store it shares its
// watch with the other Halls there.
func (m *Main) newRemoteWatch(ctx context.Context) *remotewatch.Watcher {
	if m.Config.RemoteInterval <= 0 || m.runner == nil {
		return nil
	}
	run, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{Path: m.Config.Git, Idle: m.Config.GitIdle, Timeout: remotewatch.DefaultTimeout, MaxProcs: 1})
	if err != nil {
		m.Log.Warn("no watch of pushed work: git cannot run", "err", err)
		return nil
	}
	root := filepath.Join(m.Config.RegistryRoot, remotesDir)
	m.bases = remotewatch.NewCommits(run, root, 0)
	cfg := remotewatch.Config{
		Runner: run, Root: root, Results: m.GitScan,
		Interval: m.Config.RemoteInterval, ActiveFor: time.Duration(m.Config.RemoteActiveDays) * 24 * time.Hour,
		MaxBranches: m.Config.RemoteMaxBranches,
		Notify:      func() { m.Service.Nudge() },
		Host:        m.Config.HostName,
		Logger:      m.Log,
	}
	// On a NATS store, with a host name, one Hall watches each remote for
	// all (docs/nats.md#the-shared-watch).
	if ns, ok := m.Store.(*natsstore.Store); ok && m.Config.HostName != "" {
		cfg.Board = ns.Board("", 0, 0)
	}
	return remotewatch.New(cfg)
}

// remoteWatch is w as health reads it: nil stays a nil interface.
func remoteWatch(w *remotewatch.Watcher) hall.RemoteWatch {
	if w == nil {
		return nil
	}
	return w
}
