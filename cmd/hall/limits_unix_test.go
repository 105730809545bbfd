//go:build unix

package main

import (
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/cli"
)

// --max-streams defaults to the measured 10,000, or half the descriptors
// the process may open when that is fewer, so streams alone never exhaust
// them.
func TestEdgeMaxStreamsDefault(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit uint64
		want  int
	}{{256, 128}, {1024, 512}, {20_000, 10_000}, {1 << 20, 10_000}} {
		if tc.limit > old.Max {
			continue // cannot raise past the hard limit
		}
		lim := old
		lim.Cur = tc.limit
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
		got := defaultMaxStreams()
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("open-file limit %d: got %d, want %d", tc.limit, got, tc.want)
		}
	}
	cfg, err := parseServeConfig(nil, io.Discard, io.Discard)
	if err != nil || cfg.MaxStreams != defaultMaxStreams() {
		t.Errorf("flag default: got %d, %v; want %d", cfg.MaxStreams, err, defaultMaxStreams())
	}
	if err := (Config{Addr: cli.DefaultAddr, TTL: time.Minute, MaxStreams: -1}).Validate(); err == nil {
		t.Errorf("--max-streams -1: got no error")
	}
}
