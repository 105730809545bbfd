//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
)

// zeroStep is hall and hall-hook built side by side, as a release archive
// and the npm package lay them out, over a registry root, a cache folder
// and a free loopback port of the test's own.
type zeroStep struct {
	t     *testing.T
	bin   string // the folder holding hall and hall-hook
	root  string // M1ND_REGISTRY_DIR: the started Hall's registry (HALL_REGISTRY_ROOT would turn hall beat to writing it directly)
	cache string // XDG_CACHE_HOME: the autostart lock
	url   string // the Hall's address; nothing listens there at first
	env   []string
}

// builtOnce holds the binaries for every test of this file: building hall
// is the slow part.
var (
	builtOnce sync.Once
	builtDir  string
	builtErr  error
)

func newZeroStep(t *testing.T, env ...string) *zeroStep {
	t.Helper()
	builtOnce.Do(func() {
		builtDir, builtErr = os.MkdirTemp("", "hall-zerostep-bin-")
		if builtErr != nil {
			return
		}
		for _, pkg := range []string{"github.com/hall-dev/hall/cmd/hall", "."} {
			cmd := exec.Command("go", "build", "-o", builtDir, pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				builtErr = errors.New(string(out))
				return
			}
		}
	})
	if builtErr != nil {
		t.Fatalf("go build: %v", builtErr)
	}
	dir := t.TempDir()
	z := &zeroStep{t: t, bin: builtDir, root: filepath.Join(dir, "registry"), cache: filepath.Join(dir, "cache"), url: "http://" + freeAddr(t)}
	// The environment a hook runs in: nothing of the test's HALL_*
	// settings (TestMain's HALL_AUTOSTART=0 included), what this test says.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HALL_") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") && !strings.HasPrefix(kv, "M1ND_REGISTRY_DIR=") {
			z.env = append(z.env, kv)
		}
	}
	z.env = append(z.env, "M1ND_REGISTRY_DIR="+z.root, "XDG_CACHE_HOME="+z.cache, "HALL_HALL="+z.url)
	z.env = append(z.env, env...)
	t.Cleanup(z.stopHall)
	return z
}

// freeAddr is a loopback address nothing listens at.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// hook runs hall-hook as Claude Code would, in worktree dir, and fails the
// test unless it exits 0.
func (z *zeroStep) hook(session, event, dir string) (stdout, stderr string) {
	z.t.Helper()
	payload, _ := json.Marshal(map[string]any{
		"session_id": session, "cwd": dir, "hook_event_name": event,
		"tool_name": "Write", "tool_input": map[string]string{"file_path": filepath.Join(dir, "a.go")},
	})
	cmd := exec.Command(filepath.Join(z.bin, "hall-hook"), "claude")
	cmd.Env = z.env
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(payload)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		z.t.Errorf("hall-hook: %v (it always exits 0)\n%s", err, errOut.String())
	}
	return out.String(), errOut.String()
}

// log is the started Halls' log.
func (z *zeroStep) log() string {
	b, _ := os.ReadFile(filepath.Join(z.root, "hall.log"))
	return string(b)
}

// hallPid is the pid the registry's lock names, 0 when none.
func (z *zeroStep) hallPid() int {
	b, _ := os.ReadFile(filepath.Join(z.root, "hall.lock"))
	m := regexp.MustCompile(`^pid (\d+),`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	pid, _ := strconv.Atoi(string(m[1]))
	return pid
}

// answers reports whether a Hall answers at z.url.
func (z *zeroStep) answers() bool {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(z.url + "/api/health")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// presences is the roster's agent ids.
func (z *zeroStep) presences() []string {
	z.t.Helper()
	resp, err := http.Get(z.url + "/api/presences")
	if err != nil {
		z.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Presences []struct {
			Kind string `json:"kind"`
		} `json:"presences"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		z.t.Fatal(err)
	}
	var kinds []string
	for _, p := range body.Presences {
		kinds = append(kinds, p.Kind)
	}
	return kinds
}

// stopHall ends the Hall the test's hooks started, if it still runs.
func (z *zeroStep) stopHall() {
	if pid := z.hallPid(); pid > 0 && z.answers() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		eventually.True(z.t, 10*time.Second, "the started Hall stops", func() bool { return !z.answers() })
	}
}

// TestTenHooksStartOneHall: ten hooks at once find no Hall at a loopback
// address; each exits 0, one Hall serves (the registry's lock lets one
// listen; a second started in the race stops at once, saying so in the
// log), and it takes the next hook's beat.
func TestTenHooksStartOneHall(t *testing.T) {
	z := newZeroStep(t)
	work := t.TempDir()
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() { z.hook("s"+strconv.Itoa(i), "SessionStart", work) })
	}
	wg.Wait()
	eventually.True(t, 10*time.Second, "a started Hall answers", z.answers)
	log := z.log()
	if n := strings.Count(log, `msg="hall listening"`); n != 1 {
		t.Errorf("%d Halls listened, want 1; log:\n%s", n, log)
	}
	if z.hallPid() == 0 {
		t.Errorf("the registry's lock names no Hall")
	}
	z.hook("late", "PreToolUse", work)
	if got := z.presences(); len(got) == 0 {
		t.Errorf("roster %q after the hooks, want their presences", got)
	}
}

// TestIdleHallStopsAndNextHookStartsAnother: a started Hall with nobody
// live, no stream and no request for --idle-stop (HALL_IDLE_STOP, passed
// on by the hook's environment) stops with its store flushed; the next
// hook starts a new one, which serves.
func TestIdleHallStopsAndNextHookStartsAnother(t *testing.T) {
	// A presence lives 2 s: the Hall may idle 1 s after.
	z := newZeroStep(t, "HALL_IDLE_STOP=1s", "HALL_TTL=2s")
	work := t.TempDir()
	z.hook("first", "SessionStart", work)
	eventually.True(t, 10*time.Second, "a started Hall answers", z.answers)
	first := z.hallPid()
	z.hook("first", "PostToolUse", work)
	// Watched by its pid: a request would keep it busy.
	eventually.True(t, 30*time.Second, "the idle Hall stops", func() bool {
		return syscall.Kill(first, 0) == syscall.ESRCH
	})
	if log := z.log(); !strings.Contains(log, "idle: no live presence") {
		t.Errorf("log does not say why the Hall stopped:\n%s", log)
	}
	records, _ := filepath.Glob(filepath.Join(z.root, "presences", "*.json"))
	if len(records) != 1 {
		t.Errorf("%d records in the registry after the stop, want the first session's, flushed: %q", len(records), records)
	}

	z.hook("second", "SessionStart", work)
	eventually.True(t, 10*time.Second, "the next hook's Hall answers", z.answers)
	if second := z.hallPid(); second == first || second == 0 {
		t.Errorf("the lock names pid %d after the restart, want a new Hall (the first was %d)", second, first)
	}
	z.hook("second", "PreToolUse", work)
	if got := z.presences(); len(got) != 1 {
		t.Errorf("roster %q, want the second session", got)
	}
}

// TestAutostartOff: HALL_AUTOSTART=0 (or --autostart=false) starts no
// Hall: the hook warns that the Hall is down, once, and exits 0.
func TestAutostartOff(t *testing.T) {
	z := newZeroStep(t, "HALL_AUTOSTART=0")
	work := t.TempDir()
	_, stderr := z.hook("off", "SessionStart", work)
	if !strings.Contains(stderr, "reach the Hall") {
		t.Errorf("stderr %q, want the Hall-down warning", stderr)
	}
	if z.answers() {
		t.Errorf("a Hall answers with HALL_AUTOSTART=0")
	}
	if _, err := os.Stat(filepath.Join(z.root, "hall.log")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("hall.log: %v, want none (no Hall started)", err)
	}
}

// TestHallBeatStartsAHall: `hall beat` (hall mcp goes through the same
// client, hallclient.HTTP's Start) refused at a loopback --hall starts a
// Hall as the hook does, and its beat lands in it.
func TestHallBeatStartsAHall(t *testing.T) {
	z := newZeroStep(t)
	cmd := exec.Command(filepath.Join(z.bin, "hall"), "beat", "--agent-id", "scripted", "--brain", t.TempDir(), "--timeout", "10s")
	cmd.Env = z.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hall beat: %v\n%s", err, out)
	}
	if got := z.presences(); len(got) != 1 {
		t.Errorf("roster %q after hall beat, want its presence", got)
	}
}

// TestMain removes the binaries the autostart tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}
