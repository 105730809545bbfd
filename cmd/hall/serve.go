package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/web"
)

// DefaultAddr is where the Hall listens unless told otherwise: loopback.
const DefaultAddr = "127.0.0.1:7433"

// Config is everything serve needs, parsed from flags and HALL_* variables.
type Config struct {
	Addr                string
	RegistryRoot        string
	Brains              []string
	TTL                 time.Duration
	Token               string
	AllowInsecureRemote bool
	MutatingTools       []string
	Rescan              time.Duration
	LogLevel            slog.Level
}

// parseServeConfig reads serve's flags.
func parseServeConfig(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("hall serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	var brains, tools stringList
	var level string
	fs.StringVar(&cfg.Addr, "addr", DefaultAddr, "address to listen on (loopback by default)")
	fs.StringVar(&cfg.RegistryRoot, "registry-root", defaultRegistryRoot(), "registry root; presences live in <root>/presences")
	fs.Var(&brains, "brain", "a brain known before anyone beats (repeatable)")
	fs.DurationVar(&cfg.TTL, "ttl", presence.DefaultTTL, "ttl written into the records of beats this Hall takes")
	fs.StringVar(&cfg.Token, "token", "", "bearer token that beat and leave require")
	fs.BoolVar(&cfg.AllowInsecureRemote, "allow-insecure-remote", false, "allow a non-loopback address without --token")
	fs.Var(&tools, "mutating-tool", "a tool name that counts as a mutation (repeatable; replaces the defaults)")
	fs.DurationVar(&cfg.Rescan, "rescan", 30*time.Second, "full rescan of the store, the safety net under its watch")
	fs.StringVar(&level, "log-level", "info", "debug, info, warn or error")
	if err := parseWithEnv(fs, args); err != nil {
		return cfg, &exitError{code: 2, err: err}
	}
	if fs.NArg() > 0 {
		return cfg, &exitError{code: 2, err: fmt.Errorf("serve takes no arguments, got %q", fs.Args())}
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
	if c.TTL <= 0 {
		return fmt.Errorf("--ttl must be positive, got %s", c.TTL)
	}
	return nil
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

	Store   *presence.DirStore
	Service *presence.Service

	ln     net.Listener
	server *http.Server
	cancel context.CancelFunc
	done   chan struct{}
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
	m.Store = presence.NewDirStore(m.Config.RegistryRoot)
	if err := m.Store.Init(); err != nil {
		return fmt.Errorf("open registry %s: %w", m.Config.RegistryRoot, err)
	}
	startedAt := time.Now()
	if rep, err := m.Store.Reclaim(ctx, startedAt.UnixMilli()); err != nil {
		m.Log.Warn("boot reclaim failed", "err", err)
	} else if rep.StaleRecords+rep.TempFiles > 0 {
		m.Log.Info("boot reclaim", "stale_records", rep.StaleRecords, "temp_files", rep.TempFiles)
	}
	svcCfg := presence.Config{TTL: m.Config.TTL, Brains: m.Config.Brains, Logger: m.Log}
	if len(m.Config.MutatingTools) > 0 {
		c := presence.NewClassifier(m.Config.MutatingTools)
		svcCfg.Classifier = &c
	}
	m.Service = presence.NewService(m.Store, svcCfg)

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.cancel = cancel
	m.done = make(chan struct{})
	go func() {
		defer close(m.done)
		_ = m.Service.Run(runCtx, presence.RunConfig{Rescan: m.Config.Rescan})
	}()

	h := &web.Handler{Service: m.Service, StoreKind: "dir", StartedAt: startedAt, Log: m.Log}
	e := newRouter(h, m.Log)
	ln, err := net.Listen("tcp", m.Config.Addr)
	if err != nil {
		cancel()
		<-m.done
		return fmt.Errorf("listen %s: %w", m.Config.Addr, err)
	}
	m.ln = ln
	m.server = &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := m.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.Log.Error("http server stopped", "err", err)
		}
	}()
	m.Log.Info("hall listening", "url", m.URL(), "registry", m.Store.Dir())
	return nil
}

// Close stops the server within 2 s, ends the live loop and flushes every
// throttled beat to the store.
func (m *Main) Close() error {
	var err error
	if m.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err = m.server.Shutdown(ctx); err != nil {
			err = errors.Join(err, m.server.Close())
		}
	}
	if m.cancel != nil {
		m.cancel()
		<-m.done
	}
	return err
}

// runServe is the serve command: run until SIGINT or SIGTERM.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseServeConfig(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	m := NewMain(cfg, log)
	if err := m.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Hall: open %s\n", m.URL())
	<-ctx.Done()
	log.Info("shutting down")
	return m.Close()
}

