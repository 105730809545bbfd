package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
)

// watchRun runs `hall watch args…` through the real dispatch, with stdout
// on a pipe the test reads line by line.
type watchRun struct {
	lines  chan string
	code   chan int
	cancel context.CancelFunc
	stderr *os.File
}

func startWatch(tb testing.TB, args ...string) *watchRun {
	tb.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	errFile, err := os.CreateTemp(tb.TempDir(), "stderr")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	wr := &watchRun{lines: make(chan string, 1024), code: make(chan int, 1), cancel: cancel, stderr: errFile}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			wr.lines <- sc.Text()
		}
		close(wr.lines)
	}()
	go func() {
		code := run(ctx, append([]string{"watch"}, args...), nil, w, errFile)
		w.Close()
		wr.code <- code
	}()
	tb.Cleanup(func() {
		cancel()
		select {
		case <-wr.code:
		case <-time.After(wait):
			tb.Errorf("hall watch did not end when cancelled")
		}
	})
	return wr
}

// line returns the next stdout line.
func (wr *watchRun) line(tb testing.TB, what string) string {
	tb.Helper()
	select {
	case l, ok := <-wr.lines:
		if !ok {
			tb.Fatalf("hall watch ended before %s", what)
		}
		return l
	case <-time.After(wait):
		tb.Fatalf("timed out waiting for %s", what)
		return ""
	}
}

func (wr *watchRun) exitCode(tb testing.TB) int {
	tb.Helper()
	select {
	case c := <-wr.code:
		wr.code <- c // for the cleanup
		return c
	case <-time.After(wait):
		tb.Fatal("hall watch did not exit")
		return 0
	}
}

// TestWatchExitOnCollision: `hall watch --exit-on-collision` against a real
// Hall exits 3 as the second mutating writer arrives, having printed it.
func TestWatchExitOnCollision(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	root := m.Config.RegistryRoot
	dirstoretest.Upsert(t, root, liveRecord("claude-7", "/srv/shop", "/srv/shop-wt2", true))
	dirstoretest.Upsert(t, root, liveRecord("reader-1", "/srv/shop", "/srv/shop-wt2", false)) // not mutating: no collision
	eventually.True(t, wait, "two presences", func() bool { return len(contractNow(t, m.URL()+"/api/presences").Presences) == 2 })

	wr := startWatch(t, "--hall", m.URL(), "--exit-on-collision")
	if l := wr.line(t, "the header"); !strings.Contains(l, "watching "+m.URL()+" (all brains): 2 presences, 0 collisions") {
		t.Errorf("header: got %q", l)
	}
	dirstoretest.Upsert(t, root, liveRecord("codex-2", "/srv/shop", "/srv/shop-wt2", true))
	if l := wr.line(t, "the join"); !strings.Contains(l, "+ codex-2 joined /srv/shop-wt2") {
		t.Errorf("join line: got %q", l)
	}
	if l := wr.line(t, "the collision"); !strings.Contains(l, "! collision on /srv/shop: ") || !strings.Contains(l, "(same_worktree)") {
		t.Errorf("collision line: got %q", l)
	}
	if got := wr.exitCode(t); got != 3 {
		t.Errorf("exit code: got %d, want 3", got)
	}
	errText, _ := os.ReadFile(wr.stderr.Name())
	if !strings.Contains(string(errText), "collision") {
		t.Errorf("stderr: got %q, want it to name the collision", errText)
	}
}

// TestWatchExitOnCollisionAlreadyOpen: a collision open at connect counts.
func TestWatchExitOnCollisionAlreadyOpen(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	root := m.Config.RegistryRoot
	dirstoretest.Upsert(t, root, liveRecord("claude-7", "/srv/shop", "/srv/shop-wt2", true))
	dirstoretest.Upsert(t, root, liveRecord("codex-2", "/srv/shop", "/srv/shop-wt2", true))
	eventually.True(t, wait, "the collision", func() bool { return len(contractNow(t, m.URL()+"/api/presences").Collisions) == 1 })
	wr := startWatch(t, "--hall", m.URL(), "--brain", "/srv/shop", "--collisions-only", "--exit-on-collision")
	if got := wr.exitCode(t); got != 3 {
		t.Errorf("exit code: got %d, want 3", got)
	}
}

// TestWatchJSONLinesParse: every --json line is one JSON object of a known
// type, valid against the published event schema, and together they tell
// the story: snapshot, join, collision opened, leave, collision closed.
func TestWatchJSONLinesParse(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	root := m.Config.RegistryRoot
	dirstoretest.Upsert(t, root, liveRecord("claude-7", "/srv/shop", "/srv/shop-wt2", true))
	eventually.True(t, wait, "one presence", func() bool { return len(contractNow(t, m.URL()+"/api/presences").Presences) == 1 })

	wr := startWatch(t, "--hall", m.URL(), "--json")
	set := schematest.Embedded(t, schematest.Strict)
	next := func(what string) contract.Line {
		t.Helper()
		raw := wr.line(t, what)
		set.Check(t, "event", what, []byte(raw))
		var l contract.Line
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("%s: line %q does not parse: %v", what, raw, err)
		}
		if l.EventID == "" || l.AtMs == 0 {
			t.Errorf("%s: line %q lacks event_id or at_ms", what, raw)
		}
		return l
	}
	if l := next("the snapshot"); l.Type != "snapshot" || l.Snapshot == nil || len(l.Snapshot.Presences) != 1 {
		t.Fatalf("first line: got %+v, want the snapshot with one presence", l)
	}
	dirstoretest.Upsert(t, root, liveRecord("codex-2", "/srv/shop", "/srv/shop-wt2", true))
	want := []string{"join", "collision_opened"}
	for _, w := range want {
		if l := next(w); l.Type != w {
			t.Errorf("got a %s line, want %s", l.Type, w)
		} else if w == "join" && (l.Presence == nil || l.Presence.AgentID != "codex-2" || l.Seq == 0) {
			t.Errorf("join line: got %+v", l)
		}
	}
	dirstoretest.Remove(t, root, presence.ID("codex-2", "/srv/shop"))
	for _, w := range []string{"leave", "collision_closed"} {
		l := next(w)
		if l.Type != w {
			t.Errorf("got a %s line, want %s", l.Type, w)
		}
		if w == "leave" && (l.Presence == nil || l.Presence.AgentID != "codex-2") {
			t.Errorf("leave line: got %+v, want codex-2 as last seen", l)
		}
		if w == "collision_closed" && (l.Collision == nil || l.Collision.Brain != "/srv/shop") {
			t.Errorf("collision_closed line: got %+v", l)
		}
	}
	wr.cancel()
	if got := wr.exitCode(t); got != 0 {
		t.Errorf("exit code after Ctrl-C: got %d, want 0", got)
	}
}

// TestWatchReconnectsAndResumes: the Hall ends the stream (here: it
// restarts on the same address); watch reconnects by itself, and what
// happened meanwhile is printed once.
func TestWatchReconnectsAndResumes(t *testing.T) {
	root := t.TempDir()
	a := NewMain(Config{Addr: "127.0.0.1:0", RegistryRoot: root, TTL: time.Minute}, quietLog)
	if err := a.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	addr := a.ln.Addr().String()
	wr := startWatch(t, "--hall", a.URL(), "--json")
	if l := wr.line(t, "the snapshot"); !strings.Contains(l, `"type":"snapshot"`) {
		t.Fatalf("first line: %q", l)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	dirstoretest.Upsert(t, root, liveRecord("while-away", "/srv/shop", "/srv/shop", false))
	b := MustOpenHall(t, Config{Addr: addr, RegistryRoot: root, TTL: time.Minute})
	_ = b
	var types []string
	for len(types) < 2 {
		var l contract.Line
		if err := json.Unmarshal([]byte(wr.line(t, "the resync")), &l); err != nil {
			t.Fatal(err)
		}
		types = append(types, l.Type)
		if l.Type == "join" && (l.Presence.AgentID != "while-away" || !l.Resync) {
			t.Errorf("join after the restart: got %+v, want while-away from a resync", l)
		}
	}
	if strings.Join(types, ",") != "snapshot,join" {
		t.Errorf("after the restart: got %v, want a resync snapshot then the join it implies", types)
	}
}

// TestWatchUnknownBrainFails: a brain the Hall does not know is an error
// (exit 1) with the Hall's reason, not an endless retry.
func TestWatchUnknownBrainFails(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	wr := startWatch(t, "--hall", m.URL(), "--brain", "/srv/nowhere")
	if got := wr.exitCode(t); got != 1 {
		t.Errorf("exit code: got %d, want 1", got)
	}
	errText, _ := os.ReadFile(wr.stderr.Name())
	if !strings.Contains(string(errText), "unknown_brain") {
		t.Errorf("stderr: got %q, want unknown_brain", errText)
	}
}

// TestWatchCleansTerminalOutput: a record another writer filled with
// escape sequences prints them as "?", never raw.
func TestWatchCleansTerminalOutput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"claude-7", "claude-7"},
		{"evil\x1b[2Jagent", "evil?[2Jagent"},
		{"rtl\u202eagent", "rtl?agent"},
		{"tab\there", "tab?here"},
		{"ünïcödé · ok", "ünïcödé · ok"},
	} {
		if got := clean(tc.in); got != tc.want {
			t.Errorf("clean(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
	p := &watchPrinter{cfg: watchConfig{Hall: cli.DefaultURL}}
	got := p.sentence(contract.Line{Type: "join", Presence: &contract.Presence{AgentID: "a\x1b]0;x\x07", Brain: "/b", PresenceID: presence.ID("a", "/b")}})
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("join sentence carries raw control characters: %q", got)
	}
}

// TestWatchFlags: flags and their HALL_* variables, and bad input.
func TestWatchFlags(t *testing.T) {
	t.Setenv("HALL_HALL", "http://127.0.0.1:9999")
	t.Setenv("HALL_BRAIN", "/srv/env")
	cfg, err := parseWatchConfig([]string{"--collisions-only", "--presence-id", "prs_0123456789ab"}, os.Stdout, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Hall != "http://127.0.0.1:9999" || cfg.Brain != "/srv/env" || !cfg.CollisionsOnly {
		t.Errorf("config: got %+v", cfg)
	}
	if got, want := cfg.streamURL(), "http://127.0.0.1:9999/api/presences/stream?brain=%2Fsrv%2Fenv&collisions_only=1&presence_id=prs_0123456789ab"; got != want {
		t.Errorf("stream URL: got %s, want %s", got, want)
	}
	for _, args := range [][]string{{"--hall", "127.0.0.1:7433"}, {"extra"}, {"--nope"}} {
		devnull, _ := os.Open(os.DevNull)
		_, err := parseWatchConfig(args, devnull, devnull)
		devnull.Close()
		if ee, ok := err.(*exitError); !ok || ee.code != 2 {
			t.Errorf("%q: got %v, want a usage error (exit 2)", args, err)
		}
	}
}
