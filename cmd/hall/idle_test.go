package main

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hallclient"
	"github.com/hall-dev/hall/internal/presence"
)

// TestIdleStopWaitsForTheLastPresence: a Hall with --idle-stop is not
// idle while a presence is live; once it leaves and no request comes,
// Idle is closed. A Hall without the flag never is.
func TestIdleStopWaitsForTheLastPresence(t *testing.T) {
	m := MustOpenHall(t, Config{IdleStop: 100 * time.Millisecond})
	if MustOpenHall(t, Config{}).Idle() != nil {
		t.Errorf("a Hall with no --idle-stop has an Idle channel")
	}
	c := &hallclient.HTTP{Base: m.URL()}
	resp, err := c.Beat(t.Context(), contract.BeatRequest{AgentID: "a", Brain: t.TempDir(), Tool: "Edit"})
	if err != nil {
		t.Fatal(err)
	}
	// Live for its TTL: requests every few ticks would hide a wrong
	// answer, so none are made while it lives.
	snap, err := m.Hub.Snapshot(t.Context())
	if err != nil || len(snap.Live) != 1 {
		t.Fatalf("roster %d live (%v), want the beat's presence", len(snap.Live), err)
	}
	select {
	case <-m.Idle():
		t.Fatalf("idle with a live presence")
	default:
	}
	if err := c.Leave(t.Context(), resp.PresenceID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.Idle():
	case <-time.After(10 * time.Second):
		t.Fatalf("not idle 10 s after the last presence left")
	}
}

// TestAutostartedHallYieldsTheRegistry: an --autostarted Hall that finds
// its registry's lock held stops before it listens (one Hall per user and
// registry); one started by hand beside it still serves, with a warning.
func TestAutostartedHallYieldsTheRegistry(t *testing.T) {
	first := MustOpenHall(t, Config{})
	second := NewMain(Config{Addr: "127.0.0.1:0", RegistryRoot: first.Config.RegistryRoot, TTL: presence.DefaultTTL, Autostarted: true, IdleStop: time.Minute},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	err := second.Run(t.Context())
	var another *anotherHallError
	if !errors.As(err, &another) {
		t.Fatalf("Run: %v, want anotherHallError", err)
	}
	if second.ln != nil {
		t.Errorf("the yielding Hall listens at %s", second.ln.Addr())
	}
	viewer := MustOpenHall(t, Config{RegistryRoot: first.Config.RegistryRoot})
	resp, err := http.Get(viewer.URL() + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
