//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
	"github.com/hall-dev/hall/internal/place"
	"github.com/hall-dev/hall/internal/presence"
)

// hostileRepos builds folders a request can name whose git files would
// block a plain open for ever: a .git folder whose commondir is a FIFO, one
// whose commondir links to /proc/self/fd/0 (the Hall's stdin: a pipe the
// test holds open), and a linked worktree's gitdir whose commondir is a
// FIFO.
func hostileRepos(t *testing.T) []string {
	t.Helper()
	root := t.TempDir()
	var dirs []string
	for i, bad := range []func(string) error{
		func(p string) error { return syscall.Mkfifo(p, 0o644) },
		func(p string) error { return os.Symlink("/proc/self/fd/0", p) },
		func(p string) error { return syscall.Mkfifo(p, 0o644) },
	} {
		dir := filepath.Join(root, "repo"+strconv.Itoa(i))
		gitdir := filepath.Join(dir, ".git")
		if i == 2 { // a linked worktree: .git is a file naming its gitdir
			gitdir = filepath.Join(root, "gitdir"+strconv.Itoa(i))
		}
		if err := os.MkdirAll(gitdir, 0o755); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(gitdir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := bad(filepath.Join(gitdir, "commondir")); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// claudePreToolUse is a Claude Code PreToolUse payload from cwd.
func claudePreToolUse(session, cwd string) string {
	return fmt.Sprintf(`{"session_id":%s,"cwd":%s,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		jsonString(session), jsonString(cwd))
}

// procThreads reads the OS threads of process pid.
func procThreads(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads line in /proc status")
	return 0
}

// TestFaultHookFloodOfFIFOs: the real program takes a flood of hook
// requests whose cwd leads to a FIFO (or a link to its own stdin) at
// commondir, with no token. Every one is answered 200 (the beat goes, the
// place outside git), and the process's OS threads and goroutines stay
// bounded: a plain open held one thread per request for ever, and about
// 11,500 such requests ended the process (thread exhaustion).
func TestFaultHookFloodOfFIFOs(t *testing.T) {
	dirs := hostileRepos(t)
	hall, base := startHallProcess(t, t.TempDir(), "--ttl", "10m")
	const requests, workers = 1500, 32
	client := &http.Client{Timeout: faultWait}
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	var (
		wg       sync.WaitGroup
		firstErr error
		once     sync.Once
	)
	fail := func(err error) { once.Do(func() { firstErr = err; stop() }) }
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				body := claudePreToolUse("flood-"+strconv.Itoa(i%4), dirs[i%len(dirs)])
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/hooks/claude", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					fail(fmt.Errorf("request %d: %w", i, err))
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					fail(fmt.Errorf("request %d: status %d", i, resp.StatusCode))
				}
			}
		})
	}
send:
	for i := range requests {
		select {
		case next <- i:
		case <-ctx.Done():
			break send
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("hook over a FIFO repository: %v; threads %d; stderr:\n%s", firstErr, procThreads(t, hall.cmd.Process.Pid), hall.stderr.String())
	}
	threads := procThreads(t, hall.cmd.Process.Pid)
	goroutines := metricValue(t, base, "go_goroutines")
	t.Logf("%d hook requests over FIFO repositories: %d threads, %d goroutines", requests, threads, goroutines)
	// The bounds leave room for the runtime and the 32 clients'
	// connections; a thread or goroutine held per request is 1,500.
	if threads > place.MaxLookups+32 {
		t.Errorf("OS threads after the flood: got %d, want at most %d", threads, place.MaxLookups+32)
	}
	if goroutines > 4*workers+place.MaxLookups+64 {
		t.Errorf("goroutines after the flood: got %d, want at most %d", goroutines, 4*workers+place.MaxLookups+64)
	}
}

// holdPartialPost opens a connection and sends a POST whose body never
// comes in full: a handler reading it is stuck until the connection ends.
func holdPartialPost(t *testing.T, base, path string, header map[string]string) {
	t.Helper()
	u, _ := url.Parse(base)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var h strings.Builder
	for k, v := range header {
		fmt.Fprintf(&h, "%s: %s\r\n", k, v)
	}
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: 100000\r\n\r\n{\"session_id\":", path, u.Host, h.String())
}

// TestFaultSIGTERMWithStuckHandlers: the real program, with hook handlers
// and MCP calls stuck (bodies that never finish, hooks and MCP tools
// naming FIFO repositories, through caller_root and through the client's
// roots), gets SIGTERM: it exits 0 within its grace, and the beat it held
// in memory reaches the store. Before, it exited 1 after the grace with
// hook handlers stuck, and never with MCP calls stuck.
func TestFaultSIGTERMWithStuckHandlers(t *testing.T) {
	dirs := hostileRepos(t)
	root := t.TempDir()
	hall, base := startHallProcess(t, root, "--ttl", "10m")
	b := contract.BeatRequest{AgentID: "held", Brain: "/srv/shop", Worktree: "/srv/shop/wt-1", DeclaredIntent: "mutate"}
	if res := beatHall(t, base, b); !res.Stored {
		t.Fatalf("first beat: got %+v, want stored", res)
	}
	if res := beatHall(t, base, b); res.Stored {
		t.Fatalf("second beat: got %+v, want held (throttled)", res)
	}

	// Stuck hook handlers: bodies that never end, and FIFO repositories.
	for range 5 {
		holdPartialPost(t, base, "/api/hooks/claude", nil)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for i, dir := range dirs {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/hooks/claude", strings.NewReader(claudePreToolUse("stuck-"+strconv.Itoa(i), dir)))
			req.Header.Set("Content-Type", "application/json")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	// Stuck MCP calls: handshake with a FIFO caller_root, north with a
	// FIFO root, and calls whose bodies never end on a live session.
	for i, dir := range dirs {
		cs := mcptest.Connect(t, &sdk.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, mcptest.Client{Roots: []string{dir}})
		t.Cleanup(func() { cs.Close() })
		go func() {
			_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "handshake", Arguments: map[string]any{"agent_id": "m-" + strconv.Itoa(i), "caller_root": dir}})
			_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "north", Arguments: map[string]any{"agent_id": "n-" + strconv.Itoa(i)}})
		}()
		holdPartialPost(t, base, "/mcp", map[string]string{"Mcp-Session-Id": cs.ID()})
	}
	time.Sleep(200 * time.Millisecond) // the calls reach their handlers; not a measure

	took := hall.terminate(t)
	if hall.err != nil {
		t.Errorf("exit after SIGTERM: got %v, want status 0; stderr:\n%s", hall.err, hall.stderr.String())
	}
	// The grace, and a second for the live loop's flush and the exit.
	if limit := ShutdownGrace + time.Second; took >= limit {
		t.Errorf("exit after SIGTERM with stuck handlers: took %s, want under %s", took, limit)
	}
	t.Logf("exited %s after SIGTERM with hook and MCP handlers stuck", took.Round(time.Millisecond))
	data, err := os.ReadFile(filepath.Join(root, "presences", presence.ID("held", "/srv/shop")+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := presence.DecodeRecord(data); err != nil || r.QueryCount != 2 {
		t.Errorf("stored record after exit: got query_count %d (%v), want 2 (the held beat flushed)", r.QueryCount, err)
	}
}

// TestBeatHookFIFOPayloadEndsInTime: `hall beat --hook claude` given a
// payload whose cwd leads to a FIFO (or a link to stdin) at commondir
// ends, exit 0, within its --timeout (it hung 644 s, through two
// SIGTERMs). The bound adds a second for the process's own work.
func TestBeatHookFIFOPayloadEndsInTime(t *testing.T) {
	for _, dir := range hostileRepos(t) {
		done := make(chan int, 1)
		start := time.Now()
		go func() {
			var out, errb strings.Builder
			done <- run(t.Context(), []string{"beat", "--hook", "claude", "--registry-root", t.TempDir(), "--timeout", "1s"},
				strings.NewReader(claudePreToolUse("fifo", dir)), &out, &errb)
		}()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("hall beat --hook over %s: exit %d, want 0", dir, code)
			}
		case <-time.After(faultWait):
			t.Fatalf("hall beat --hook over %s: still running after %s", dir, faultWait)
		}
		if took := time.Since(start); took >= 2*time.Second {
			t.Errorf("hall beat --hook --timeout 1s over %s: took %s, want under 2s", dir, took)
		}
	}
}
