package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
)

// TestGuardInProcessMeasures: on the guard scenario's scene, with the
// session live as the HTTP calls leave it, guardInProcess times every
// kind of line the asked number of times; on a scene the guard does not
// read (the others gone) it refuses to time anything, as its figures
// would measure nothing.
func TestGuardInProcessMeasures(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	root, repo := filepath.Join(dir, "registry"), filepath.Join(dir, "repo")
	if err := guardScene(root, repo); err != nil {
		t.Fatal(err)
	}
	// The session beats once, as its first hook call over HTTP does.
	svc := presence.NewService(dirstore.New(root), presence.Config{Logger: slog.New(slog.DiscardHandler)})
	if _, err := (&hall.Hall{Service: svc}).Hook(ctx, hall.HookRequest{Agent: "claude", Payload: guardBash(repo, "true")}); err != nil {
		t.Fatal(err)
	}
	body := func(line string) []byte { return guardBash(repo, line) }
	lines := [][]string{{"git add -A", "go test ./..."}, {commitLine(4 << 10)}, {chainLine(32 << 10)}}
	ds, err := guardInProcess(ctx, root, body, lines, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.wall) != len(lines) || len(ds.cpu) != len(lines) {
		t.Fatalf("%d and %d sets of times, want %d", len(ds.wall), len(ds.cpu), len(lines))
	}
	for i := range lines {
		if len(ds.wall[i]) != 3 {
			t.Errorf("lines %d: %d times, want 3", i, len(ds.wall[i]))
		}
		if _, ok := threadCPU(); ok && len(ds.cpu[i]) != 3 {
			t.Errorf("lines %d: %d CPU times, want 3", i, len(ds.cpu[i]))
		}
	}

	empty := filepath.Join(dir, "empty")
	if err := guardScene(empty, filepath.Join(dir, "repo2")); err != nil {
		t.Fatal(err)
	}
	svc2 := presence.NewService(dirstore.New(empty), presence.Config{Logger: slog.New(slog.DiscardHandler)})
	for _, r := range mustList(t, svc2) {
		if err := svc2.Leave(ctx, r.PresenceID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := (&hall.Hall{Service: svc2}).Hook(ctx, hall.HookRequest{Agent: "claude", Payload: guardBash(filepath.Join(dir, "repo2"), "true")}); err != nil {
		t.Fatal(err)
	}
	body2 := func(line string) []byte { return guardBash(filepath.Join(dir, "repo2"), line) }
	if _, err := guardInProcess(ctx, empty, body2, lines, 3, 1); err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("guardInProcess on a scene with no one else's work: %v; want it refused, the guard answering nothing", err)
	}
}

func mustList(t *testing.T, svc *presence.Service) []presence.Record {
	t.Helper()
	snap, err := svc.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap.Live
}
