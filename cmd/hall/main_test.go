package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// MustOpenHall starts the real Hall on 127.0.0.1:0 over a temp registry
// (or cfg.RegistryRoot when set) and closes it when the test ends.
func MustOpenHall(tb testing.TB, cfg Config) *Main {
	tb.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.RegistryRoot == "" {
		cfg.RegistryRoot = tb.TempDir()
	}
	if cfg.TTL == 0 {
		cfg.TTL = presence.DefaultTTL
	}
	m := NewMain(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := m.Run(tb.Context()); err != nil {
		tb.Fatalf("run hall: %v", err)
	}
	tb.Cleanup(func() {
		if err := m.Close(); err != nil {
			tb.Errorf("close hall: %v", err)
		}
	})
	return m
}

// writeSidecar writes a record file by hand, as another process would.
func writeSidecar(tb testing.TB, registryRoot, name, body string) {
	tb.Helper()
	dir := filepath.Join(registryRoot, "presences")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// getJSON fetches url and decodes the body into out, returning the status.
func getJSON(tb testing.TB, url string, out any) int {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	schematest.CheckAnswer(tb, url, resp.StatusCode, body) // every roster held to m1nd's P1-UI contract
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			tb.Fatalf("GET %s: decode: %v", url, err)
		}
	}
	return resp.StatusCode
}

// wait bounds "it eventually happens": generous for a loaded 2-core
// machine under -race, never a measure of speed.
const wait = 15 * time.Second

var quietLog = slog.New(slog.DiscardHandler)

// liveRecord is a record of agent on brain in worktree, beating now for
// ten minutes (presencetest.Rec); mutating declares "mutate", so two in one
// worktree collide.
func liveRecord(agent, brain, worktree string, mutating bool) presence.Record {
	mutation := presencetest.NoMutation()
	if mutating {
		mutation = presencetest.Intent("mutate")
	}
	return presencetest.Rec(agent, brain, presencetest.Worktree(worktree), mutation,
		presencetest.At(nowMs()), presencetest.TTL(10*60*1000))
}

func nowMs() int64 { return time.Now().UnixMilli() }

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// beatHall posts one beat, as an agent's hook does, requiring 200.
func beatHall(tb testing.TB, base string, b contract.BeatRequest) contract.BeatResponse {
	tb.Helper()
	body, _ := json.Marshal(b)
	resp, err := http.Post(base+"/api/presences/beat", "application/json", bytes.NewReader(body))
	if err != nil {
		tb.Fatalf("POST beat: %v", err)
	}
	defer resp.Body.Close()
	var out contract.BeatResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		tb.Fatalf("POST beat: decode: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("POST beat %s: got %d %+v, want 200", b.AgentID, resp.StatusCode, out)
	}
	return out
}
