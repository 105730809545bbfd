package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/natsstore"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
	"github.com/hall-dev/hall/internal/presence"
)

// mustRelay starts a relay from root into the NATS servers at url and
// stops it when the test ends. Its ttl covers liveRecord()'s 10 minutes.
func mustRelay(tb testing.TB, root, url string) *Relay {
	tb.Helper()
	r := NewRelay(RelayConfig{RegistryRoot: root, Store: url, TTL: 10 * time.Minute, Retry: 100 * time.Millisecond}, quietLog)
	if err := r.Run(tb.Context()); err != nil {
		tb.Fatalf("run relay: %v", err)
	}
	tb.Cleanup(func() {
		if err := r.Close(); err != nil {
			tb.Errorf("close relay: %v", err)
		}
	})
	return r
}

// bucketReader opens the bucket the way a central Hall does, to look at
// what the relays put there.
func bucketReader(tb testing.TB, url string) *natsstore.Store {
	tb.Helper()
	s, err := natsstore.Open(natsstore.Options{URLs: url, Logger: quietLog})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// inBucket returns the bucket's copy of agent's presence on brain.
func inBucket(tb testing.TB, s *natsstore.Store, agent, brain string) (presence.Record, bool) {
	tb.Helper()
	r, err := s.Get(context.Background(), presence.ID(agent, brain))
	return r, err == nil
}

// Two hosts, each with a relay over its own sidecar folder, mirror into one
// bucket. Distinct agents land side by side; the same agent on the same
// brain path on both hosts is one presence whose newest beat wins; and a
// relay withdraws only what it mirrored and nobody refreshed since.
func TestRelayTwoFoldersOneBucket(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	hostA, hostB := t.TempDir(), t.TempDir()
	mustRelay(t, hostA, srv.URL())
	mustRelay(t, hostB, srv.URL())
	bucket := bucketReader(t, srv.URL())

	// What a central Hall wrote itself (a beat over HTTP): no relay's.
	central := liveRecord("central-agent", "/srv/shop", "", false)
	central.PresenceID = presence.ID(central.AgentID, central.Brain)
	if err := bucket.Upsert(context.Background(), central); err != nil {
		t.Fatal(err)
	}

	now := nowMs()
	at := func(agent string, beat int64, theme string) presence.Record {
		r := liveRecord(agent, "/srv/shop", "", true)
		r.LastBeatMs, r.Theme = beat, theme
		return r
	}
	dirstoretest.Upsert(t, hostA, at("only-on-a", now, "a's own"))
	dirstoretest.Upsert(t, hostB, at("only-on-b", now, "b's own"))
	dirstoretest.Upsert(t, hostA, at("roaming", now-2000, "roaming, as host A saw it"))
	dirstoretest.Upsert(t, hostB, at("roaming", now-1000, "roaming, as host B saw it"))

	eventually.True(t, natsWait, "both hosts' presences in the bucket, the newest copy of the shared one", func() bool {
		_, a := inBucket(t, bucket, "only-on-a", "/srv/shop")
		_, b := inBucket(t, bucket, "only-on-b", "/srv/shop")
		r, shared := inBucket(t, bucket, "roaming", "/srv/shop")
		return a && b && shared && r.Theme == "roaming, as host B saw it"
	})

	// Host A's copy beats again: now it is the newest.
	dirstoretest.Upsert(t, hostA, at("roaming", now, "roaming, back on host A"))
	eventually.True(t, natsWait, "host A's newer copy to win", func() bool {
		r, ok := inBucket(t, bucket, "roaming", "/srv/shop")
		return ok && r.Theme == "roaming, back on host A" && r.LastBeatMs == now
	})

	// Host B's copy leaves its folder: host B's relay may not withdraw a
	// record host A refreshed since. Then only-on-b leaves too, after it:
	// once that is gone from the bucket, relay B has seen both removals.
	dirstoretest.Remove(t, hostB, presence.ID("roaming", "/srv/shop"))
	dirstoretest.Remove(t, hostB, presence.ID("only-on-b", "/srv/shop"))
	eventually.True(t, natsWait, "only-on-b to be withdrawn", func() bool {
		_, ok := inBucket(t, bucket, "only-on-b", "/srv/shop")
		return !ok
	})
	if r, ok := inBucket(t, bucket, "roaming", "/srv/shop"); !ok || r.Theme != "roaming, back on host A" {
		t.Errorf("after host B's copy left: got %+v (present %v), want host A's copy kept", r, ok)
	}

	// Host A's copy leaves: A wrote the bucket's copy, so A withdraws it.
	dirstoretest.Remove(t, hostA, presence.ID("roaming", "/srv/shop"))
	eventually.True(t, natsWait, "roaming to be withdrawn by the host that wrote it last", func() bool {
		_, ok := inBucket(t, bucket, "roaming", "/srv/shop")
		return !ok
	})
	if _, ok := inBucket(t, bucket, "only-on-a", "/srv/shop"); !ok {
		t.Errorf("only-on-a left the bucket, but it is still in host A's folder")
	}
	if _, ok := inBucket(t, bucket, "central-agent", "/srv/shop"); !ok {
		t.Errorf("a record no relay wrote was withdrawn")
	}
}

// The central Hall sees relayed sessions: a Hall on the bucket serves what
// a relay mirrored from another machine's folder, and a file write on that
// machine reaches the Hall's stream.
func TestRelayIntoAHall(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	host := t.TempDir()
	mustRelay(t, host, srv.URL())
	hall := natsHall(t, srv.URL())

	r := liveRecord("remote-agent", "/srv/remote", "/srv/remote", true)
	dirstoretest.Upsert(t, host, r)
	eventually.True(t, natsWait, "the Hall to serve the relayed presence", func() bool {
		got := contractNow(t, hall.URL()+"/api/presences")
		return len(got.Presences) == 1 && got.Presences[0].AgentID == "remote-agent"
	})
	dirstoretest.Remove(t, host, presence.ID(r.AgentID, r.Brain))
	eventually.True(t, natsWait, "the Hall to drop it once it left the folder", func() bool {
		got := contractNow(t, hall.URL()+"/api/presences")
		return got.Error == "" && len(got.Presences) == 0
	})
}

// A relay started while NATS is away mirrors its folder once a server
// appears on the address.
func TestRelayNATSDownAtStartup(t *testing.T) {
	port := natstest.FreePort(t)
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	host := t.TempDir()
	if err := dirstore.New(host).Init(); err != nil {
		t.Fatal(err)
	}
	dirstoretest.Upsert(t, host, liveRecord("patient", "/srv/shop", "", false))
	mustRelay(t, host, url)

	natstest.RunServer(t, port)
	bucket := bucketReader(t, url)
	eventually.True(t, natsWait, "the folder to be mirrored once NATS is up", func() bool {
		_, ok := inBucket(t, bucket, "patient", "/srv/shop")
		return ok
	})
}

func TestRelayFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // substring of the error; "" for none
	}{
		{"store required", []string{"--registry-root", "/tmp/x"}, nil, "needs --store nats://"},
		{"dir is not a relay target", []string{"--store", "dir"}, nil, "needs --store nats://"},
		{"not a store", []string{"--store", "redis://x"}, nil, "want dir or nats://"},
		{"nats from the flag", []string{"--store", "nats://127.0.0.1:4222,127.0.0.1:4223"}, nil, ""},
		{"nats from HALL_STORE", nil, map[string]string{"HALL_STORE": "nats://127.0.0.1:4222"}, ""},
		{"ttl must be positive", []string{"--store", "nats://127.0.0.1:4222", "--ttl", "0s"}, nil, "--ttl must be positive"},
		{"ttl at most a day", []string{"--store", "nats://127.0.0.1:4222", "--ttl", "25h"}, nil, "at most 24h0m0s"},
		{"no arguments", []string{"--store", "nats://127.0.0.1:4222", "extra"}, nil, "no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var stderr bytes.Buffer
			cfg, err := parseRelayConfig(tt.args, &stderr, &stderr)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("parse %v: %v", tt.args, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("parse %v: got error %v, want one containing %q", tt.args, err, tt.want)
			case tt.want == "" && !strings.HasPrefix(cfg.Store, "nats://"):
				t.Errorf("parse %v: store %q", tt.args, cfg.Store)
			}
		})
	}
}

func TestParseStoreSpec(t *testing.T) {
	tests := []struct {
		in       string
		wantKind string
		wantURLs string
		wantErr  bool
	}{
		{"", storeDir, "", false},
		{"dir", storeDir, "", false},
		{"nats://127.0.0.1:4222", storeNATS, "nats://127.0.0.1:4222", false},
		{"nats://a:1, b:2 ,nats://c:3", storeNATS, "nats://a:1,nats://b:2,nats://c:3", false},
		{"tls://a:1", storeNATS, "tls://a:1", false},
		{"file:///tmp", "", "", true},
		{"127.0.0.1:4222", "", "", true},
	}
	for _, tt := range tests {
		got, err := parseStoreSpec(tt.in)
		if (err != nil) != tt.wantErr || got.Kind != tt.wantKind || got.URLs != tt.wantURLs {
			t.Errorf("parseStoreSpec(%q): got %+v, %v; want kind %q urls %q error %v", tt.in, got, err, tt.wantKind, tt.wantURLs, tt.wantErr)
		}
	}
}

// Serve takes --store, --nats-creds and --nats-tls-ca, from flags or their
// HALL_* variables, and refuses a store it cannot name.
func TestServeStoreFlags(t *testing.T) {
	creds := filepath.Join(t.TempDir(), "hall.creds")
	if err := os.WriteFile(creds, []byte("not used here"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HALL_STORE", "nats://127.0.0.1:4222")
	t.Setenv("HALL_NATS_CREDS", creds)
	var stderr bytes.Buffer
	cfg, err := parseServeConfig([]string{"--nats-tls-ca", "/etc/ca.pem"}, &stderr, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Store != "nats://127.0.0.1:4222" || cfg.NATSCreds != creds || cfg.NATSTLSCA != "/etc/ca.pem" {
		t.Errorf("parsed %+v", cfg)
	}
	cfg.Store = "redis://x"
	cfg.Addr, cfg.TTL = cli.DefaultAddr, time.Minute
	if err := cfg.Validate(); err == nil {
		t.Errorf("Validate with --store redis://x: got nil, want an error")
	}
	// A credentials file that does not exist is refused at start, not
	// found out at the first reconnect.
	m := NewMain(Config{Addr: "127.0.0.1:0", RegistryRoot: t.TempDir(), TTL: time.Minute, Store: "nats://127.0.0.1:1", NATSCreds: filepath.Join(t.TempDir(), "missing.creds")}, quietLog)
	if err := m.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "credentials") {
		m.Close()
		t.Errorf("Run with a missing creds file: got %v, want a credentials error", err)
	}
}
