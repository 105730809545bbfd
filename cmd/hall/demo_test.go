package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
)

// demoSteps runs a demo over m with a short period and hands the test the
// roster after every step. The demo waits for the test to take each one,
// so the test follows the script without sleeping.
func demoSteps(t *testing.T, m *Main, period time.Duration) (*Demo, <-chan presence.Snapshot) {
	t.Helper()
	steps := make(chan presence.Snapshot)
	d := NewDemo(m.App, period, slog.New(slog.DiscardHandler))
	d.afterStep = func(ctx context.Context, _ int, snap presence.Snapshot) {
		select {
		case steps <- snap:
		case <-ctx.Done():
		}
	}
	d.Start(context.Background())
	t.Cleanup(d.Close)
	return d, steps
}

// TestDemoFormsAndClearsACollision: the demo's agents beat through the
// service, two of them collide in one worktree, and the collision
// dissolves again; Close stops the script and lets every agent leave.
func TestDemoFormsAndClearsACollision(t *testing.T) {
	m := MustOpenHall(t, Config{})
	d, steps := demoSteps(t, m, 5*time.Millisecond)

	next := func(what string) presence.Snapshot {
		t.Helper()
		select {
		case s := <-steps:
			return s
		case <-time.After(30 * time.Second):
			t.Fatalf("timed out waiting for %s", what)
			return presence.Snapshot{}
		}
	}
	// The agents arrive over the first steps: a handful, on two brains.
	var all presence.Snapshot
	counts := []int{}
	for range demoCycle {
		all = next("a step")
		counts = append(counts, len(all.Live))
	}
	if counts[0] >= len(demoAgents) {
		t.Errorf("live after the first step: got %d, want the agents to arrive over several steps", counts[0])
	}
	if n := slices.Max(counts); n < 5 || n > 9 {
		t.Errorf("live at most: got %d (by step: %v), want a handful (5–9)", n, counts)
	}
	brains := map[string]bool{}
	for _, r := range all.Live {
		brains[r.Brain] = true
	}
	if len(brains) < 2 {
		t.Errorf("brains: got %d, want the picker to have a choice", len(brains))
	}

	var formed presence.Collision
	for i := 0; ; i++ {
		s := next("a collision")
		if len(s.Collisions) > 0 {
			formed = s.Collisions[0]
			break
		}
		if i > 3*demoCycle {
			t.Fatalf("no collision in %d steps", i)
		}
	}
	agents := []string{formed.A.AgentID, formed.B.AgentID}
	if !(strings.Contains(strings.Join(agents, " "), "claude-7") && strings.Contains(strings.Join(agents, " "), "codex-2")) {
		t.Errorf("collision between %v, want claude-7 and codex-2", agents)
	}
	if formed.Place != demoPath("shop-wt2") || len(formed.Clauses) == 0 || formed.Clauses[0] != presence.ClauseWorktree {
		t.Errorf("collision place %s, clauses %v: want the shared worktree", formed.Place, formed.Clauses)
	}
	for i := 0; ; i++ {
		s := next("the collision to dissolve")
		if len(s.Collisions) == 0 {
			break
		}
		if i > 3*demoCycle {
			t.Fatalf("the collision did not dissolve in %d steps", i)
		}
	}

	// The page's contract sees the same agents: the demo beats the real path.
	snap, err := m.Service.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st := m.Service.Stats(); st.Beats == 0 || st.Writes == 0 {
		t.Errorf("service stats %+v: the demo did not beat through the service", st)
	}

	done := make(chan struct{})
	go func() {
		// Drain, so a step in flight can finish while Close waits for it.
		for {
			select {
			case <-steps:
			case <-done:
				return
			}
		}
	}()
	d.Close()
	close(done)
	after, err := m.Service.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Live) != 0 {
		t.Errorf("live after Close: got %d, want every demo agent gone (had %d)", len(after.Live), len(snap.Live))
	}
}

// TestDemoCommand runs `hall serve --demo`: it prints the URL, serves the
// page, and removes its temporary registry on exit.
func TestDemoCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		errc <- runServe(ctx, []string{"--demo", "--addr", "127.0.0.1:0", "--log-level", "error"}, nil, pw, io.Discard)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	var out []string
	for len(out) < 2 && lines.Scan() {
		out = append(out, lines.Text())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if len(out) < 2 || !strings.HasPrefix(out[0], "Hall demo: open http://127.0.0.1:") {
		t.Fatalf("demo printed %q, want the URL first", out)
	}
	url := strings.TrimPrefix(out[0], "Hall demo: open ")
	var dir string
	for _, f := range strings.Fields(out[1]) {
		if strings.Contains(f, "hall-demo-") {
			dir = f
		}
	}
	if dir == "" {
		t.Fatalf("demo did not name its registry: %q", out[1])
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("demo registry %s: %v", dir, err)
	}
	if code := getJSON(t, url+"/api/health", nil); code != 200 {
		t.Errorf("demo health: got %d", code)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("demo returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("demo did not stop")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("demo registry %s still there after exit (stat: %v)", dir, err)
	}
}

// TestDemoShowsAnOverlap: gemini-4 and claude-7 change cart.go each in
// its own worktree, an overlap throughout (the page's picture); outside
// their collision, claude-7 and codex-2 change go.mod each in its own: an
// overlap too, and never while they share a worktree. On observed and
// declared files only: the demo's worktrees do not exist for git.
func TestDemoShowsAnOverlap(t *testing.T) {
	m := MustOpenHall(t, Config{})
	_, steps := demoSteps(t, m, 5*time.Millisecond)
	seen := map[string]bool{}
	for i := 0; len(seen) < 2; i++ {
		if i > 3*demoCycle {
			t.Fatalf("in %d steps, saw the overlaps %v; want cart.go and go.mod", i, seen)
		}
		var s presence.Snapshot
		select {
		case s = <-steps:
		case <-time.After(30 * time.Second):
			t.Fatal("timed out waiting for a step")
		}
		for _, o := range s.Overlaps {
			agents := o.A.AgentID + " " + o.B.AgentID
			if len(o.Files) == 0 || o.Verdict != "overlap" || o.A.Git == "" || o.B.Git == "" {
				t.Fatalf("overlap %+v, want files, on observed and declared files only", o)
			}
			switch f := o.Files[0].Path; {
			case f == "go.mod" && len(o.Files) == 1 && strings.Contains(agents, "claude-7") && strings.Contains(agents, "codex-2"):
				if len(s.Collisions) > 0 {
					t.Fatalf("claude-7 and codex-2 overlap while they collide: %+v", s.Collisions)
				}
			case f == "src/checkout/cart.go" && strings.Contains(agents, "gemini-4"):
			default:
				t.Fatalf("overlap between %s on %+v: not in the script", agents, o.Files)
			}
			seen[o.Files[0].Path] = true
		}
	}
}

// TestDemoLosesAndSavesWorkOnce (issue 42 item 9): within the demo's
// first cycles, claude-5 runs `git checkout .` over claude-3's uncommitted
// edit in the demo's own repository; the Hall snapshots first, GET
// /api/snapshots lists the snapshot and the loss, and the page marks the
// loss recoverable. The repository lives in a temporary folder that Close
// removes.
func TestDemoLosesAndSavesWorkOnce(t *testing.T) {
	m := MustOpenHall(t, Config{Snapshots: true, SnapshotBudget: hall.HookDeadline, GitInterval: 10 * time.Millisecond})
	d := NewDemo(m.App, 20*time.Millisecond, slog.New(slog.DiscardHandler))
	d.Start(context.Background())
	t.Cleanup(d.Close)
	if d.repo == "" {
		t.Fatal("the demo made no repository for its accident")
	}
	if tmp, _ := filepath.EvalSymlinks(os.TempDir()); !strings.HasPrefix(d.repo, tmp+string(filepath.Separator)) {
		t.Errorf("the demo's repository %s is outside the temporary folder %s", d.repo, tmp)
	}

	var list struct {
		Snapshots []struct {
			ID string `json:"id"`
		} `json:"snapshots"`
		Losses []struct {
			Snapshot string   `json:"snapshot"`
			Files    []string `json:"files"`
		} `json:"losses"`
	}
	eventually.True(t, 60*time.Second, "a snapshot and a loss in GET /api/snapshots", func() bool {
		getJSON(t, m.URL()+"/api/snapshots", &list)
		return len(list.Snapshots) > 0 && len(list.Losses) > 0
	})
	if got := list.Losses[0].Snapshot; got != list.Snapshots[0].ID {
		t.Errorf("the loss's snapshot %s, want the one listed %s", got, list.Snapshots[0].ID)
	}
	var page string
	eventually.True(t, 30*time.Second, "the page's loss mark", func() bool {
		resp, err := http.Get(m.URL() + "/")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		page = string(b)
		return strings.Contains(page, `data-testid="loss-recoverable"`)
	})
	if !strings.Contains(page, "hall restore "+list.Losses[0].Snapshot) || !strings.Contains(page, accidentFile) {
		t.Errorf("the page's loss does not say how to restore %s from %s", accidentFile, list.Losses[0].Snapshot)
	}
	if n := len(m.App.Losses()); n != 1 {
		t.Errorf("losses: got %d, want the accident once", n)
	}

	temp := d.repoTemp
	d.Close()
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Errorf("the demo's repository %s is still there after Close (stat: %v)", temp, err)
	}
}
