package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/hall-dev/hall/internal/web"
)

// startPprof serves the profiler on its own loopback listener, apart from
// the Hall's routes, so profiling never widens what the Hall exposes.
func startPprof(addr string, log *slog.Logger) (*http.Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof-addr %q: %w", addr, err)
	}
	if !isLoopback(host) {
		return nil, fmt.Errorf("--pprof-addr %q: the profiler listens on loopback only", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// Loopback names and addresses only, as the Hall: a rebound name
	// would read heap and goroutine dumps.
	srv := &http.Server{Addr: ln.Addr().String(), Handler: web.AllowedHosts(nil, mux), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	log.Info("pprof listening", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	return srv, nil
}
