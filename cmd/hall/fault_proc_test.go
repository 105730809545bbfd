//go:build linux

package main

// The faults that need a second process. The test binary re-executes
// itself in a helper role (HALL_FAULT_HELPER, read by TestMain): the real
// Hall (main itself), a record writer to kill mid-write, or a holder of
// 10,000 raw SSE connections. Every helper exits when its stdin closes, so
// none outlives a test that died.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/hall-dev/hall/internal/atomicfile"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/lockedbuf"
	"github.com/hall-dev/hall/internal/lograte"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// faultHelperEnv selects a helper role for a re-executed test binary.
const faultHelperEnv = "HALL_FAULT_HELPER"

func TestMain(m *testing.M) {
	role := os.Getenv(faultHelperEnv)
	if role == "" {
		os.Exit(runTests(m))
	}
	go func() { // the parent test is gone: so is the helper
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(3)
	}()
	switch role {
	case "hall":
		main() // os.Args[1:] are serve's arguments
	case "writer":
		os.Exit(runRecordWriter(os.Getenv("HALL_FAULT_ROOT")))
	case "subscribers":
		n, _ := strconv.Atoi(os.Getenv("HALL_FAULT_SUBS"))
		os.Exit(holdSubscribers(os.Getenv("HALL_FAULT_URL"), n))
	default:
		fmt.Fprintf(os.Stderr, "unknown %s %q\n", faultHelperEnv, role)
		os.Exit(2)
	}
}

// runTests runs the tests with a cache folder of their own: the hooks'
// once-per-session warning markers (hookforward.WarnedDir) go there, never
// into the user's; and with autostart off.
func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "hall-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_CACHE_HOME", dir)
	// A Hall down stays down: a hook or hall beat here must never start
	// one (cmd/hall-hook's autostart_test.go tests that it does).
	os.Setenv("HALL_AUTOSTART", "0")
	return m.Run()
}

// helperProc is a re-executed test binary in a helper role.
type helperProc struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *lockedbuf.Buffer
	exited chan struct{} // closed once Wait returned
	err    error         // Wait's answer, once exited
}

// startHelper starts this test binary in role with args and env, and kills
// it when the test ends if it is still running.
func startHelper(tb testing.TB, role string, env []string, args ...string) *helperProc {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	// A race-enabled binary sleeps a second before it exits (GORACE
	// atexit_sleep_ms): not the Hall's time to measure.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(append(os.Environ(), faultHelperEnv+"="+role, "GORACE="+gorace), env...)
	p := &helperProc{cmd: cmd, lines: make(chan string, 64), stderr: &lockedbuf.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if _, err := cmd.StdinPipe(); err != nil { // held open: its close ends the helper
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start helper %s: %v", role, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default: // nobody listens any more
			}
		}
		p.err = cmd.Wait()
		close(p.exited)
	}()
	tb.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// terminate sends the helper SIGTERM and waits for it to exit, at most
// faultWait, and returns the time from the signal to the exit; how it
// exited is p.err.
func (p *helperProc) terminate(tb testing.TB) time.Duration {
	tb.Helper()
	sent := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(faultWait):
		tb.Fatalf("no exit %s after SIGTERM; stderr:\n%s", faultWait, p.stderr.String())
	}
	return time.Since(sent)
}

// line waits for the next stdout line that starts with prefix and returns
// the rest of it.
func (p *helperProc) line(tb testing.TB, prefix string, timeout time.Duration) string {
	tb.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l := <-p.lines:
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				return rest
			}
		case <-p.exited:
			tb.Fatalf("helper %s exited (%v) before printing %q; stderr:\n%s", p.cmd.Args, p.err, prefix, p.stderr.String())
		case <-deadline:
			tb.Fatalf("helper %s printed no %q within %s; stderr:\n%s", p.cmd.Args, prefix, timeout, p.stderr.String())
		}
	}
}

// startHallProcess runs the real program (main, as the hall binary does) in
// a child process over root and returns it with its base URL.
func startHallProcess(tb testing.TB, root string, args ...string) (*helperProc, string) {
	tb.Helper()
	args = append([]string{"serve", "--addr", "127.0.0.1:0", "--registry-root", root, "--log-level", "warn"}, args...)
	p := startHelper(tb, "hall", nil, args...)
	return p, strings.TrimSpace(p.line(tb, "Hall: open ", faultWait))
}

// prlimit reads, and when set is not nil replaces, a resource limit of
// another process (prlimit(2); the syscall package wraps only its own).
func prlimit(pid, resource int, set *syscall.Rlimit) (syscall.Rlimit, error) {
	var old syscall.Rlimit
	_, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(resource),
		uintptr(unsafe.Pointer(set)), uintptr(unsafe.Pointer(&old)), 0, 0)
	if errno != 0 {
		return old, fmt.Errorf("prlimit(%d, %d): %w", pid, resource, errno)
	}
	return old, nil
}

// TestFaultDiskFull: the disk refuses every write to the Hall. The real
// Hall runs in a child process whose file-size limit is set to 0 from
// outside (prlimit RLIMIT_FSIZE): the kernel fails each write to a regular
// file with EFBIG, as a full disk fails it with ENOSPC, while reads go on.
// Beats answer 200 with stored false and are counted; the process does not
// crash; the roster keeps what the store holds; once writes work again the
// held beats reach the store by themselves and the roster recovers.
func TestFaultDiskFull(t *testing.T) {
	root := t.TempDir()
	hall, base := startHallProcess(t, root, "--ttl", "10m")
	steady := contract.BeatRequest{AgentID: "steady", Brain: "/srv/shop", Worktree: "/srv/shop/wt-1", DeclaredIntent: "mutate", Theme: "before"}
	if res := beatHall(t, base, steady); !res.Stored {
		t.Fatalf("beat before the fault: got %+v, want stored", res)
	}

	pid := hall.cmd.Process.Pid
	lim, err := prlimit(pid, syscall.RLIMIT_FSIZE, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prlimit(pid, syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 0, Max: lim.Max}); err != nil {
		t.Fatal(err)
	}
	faultFrom := time.Now()
	before := readHealth(t, base).Store.WriteErrors

	// Under load: 8 agents at once, each beat a new declaration (a write
	// forced past the throttle).
	var wg sync.WaitGroup
	var stored, refused atomic.Int64
	for a := 0; a < 8; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				res := beatHall(t, base, contract.BeatRequest{AgentID: fmt.Sprintf("full-%d", a), Brain: "/srv/shop",
					Worktree: "/srv/shop/wt-1", DeclaredIntent: "mutate", Theme: fmt.Sprintf("theme %d", i)})
				if res.Stored {
					stored.Add(1)
				} else if strings.Contains(res.Reason, "store unavailable") {
					refused.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	steady.Theme = "during"
	if res := beatHall(t, base, steady); res.Stored || !strings.Contains(res.Reason, "store unavailable") {
		t.Errorf("steady's beat on a full disk: got %+v, want stored false, store unavailable", res)
	}
	if stored.Load() != 0 || refused.Load() != 80 {
		t.Errorf("beats on a full disk: got %d stored, %d refused as store unavailable, want 0 and 80", stored.Load(), refused.Load())
	}
	if h := readHealth(t, base); h.Store.WriteErrors-before < 81 || h.Presences == nil {
		t.Errorf("health on a full disk: got %d more write_errors (presences %+v), want at least 81 and the roster still read", h.Store.WriteErrors-before, h.Presences)
	}
	// The roster is what the store holds: steady as last written, and none
	// of the agents whose first beat never reached it.
	if got, _ := readContract(t, base); len(got.Presences) != 1 || got.Presences[0].AgentID != "steady" || got.Error != "" {
		t.Errorf("contract on a full disk: got %+v, want steady alone and no error", got)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, "presences")); len(entries) != 1 {
		t.Errorf("registry on a full disk: got %d entries, want steady's record only (failed temp files removed)", len(entries))
	}

	// Held beats are retried every second while the disk stays full.
	time.Sleep(2 * time.Second)
	if _, err := prlimit(pid, syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	faultFor := time.Since(faultFrom)
	// Nobody beats again: the held states are flushed by themselves.
	want := []string{"full-0", "full-1", "full-2", "full-3", "full-4", "full-5", "full-6", "full-7", "steady"}
	var got contract.PresencesResponse
	eventually.True(t, faultWait, "the held beats to reach the store", func() bool {
		got, _ = readContract(t, base)
		agents, _ := rosterIDs(got)
		return slices.Equal(agents, want)
	})
	for _, p := range got.Presences {
		if p.AgentID == "steady" && p.Theme != "during" {
			t.Errorf("steady after recovery: got theme %q, want the held %q", p.Theme, "during")
		}
		if strings.HasPrefix(p.AgentID, "full-") && p.Theme != "theme 9" {
			t.Errorf("%s after recovery: got theme %q, want its last beat's %q", p.AgentID, p.Theme, "theme 9")
		}
	}
	if n := len(got.Collisions); n != 36 { // 9 mutating presences in one worktree: 9·8/2 pairs
		t.Errorf("collisions after recovery: got %d, want 36", n)
	}
	if res := beatHall(t, base, contract.BeatRequest{AgentID: "fresh", Brain: "/srv/shop"}); !res.Stored {
		t.Errorf("a new beat after recovery: got %+v, want stored", res)
	}
	select {
	case <-hall.exited:
		t.Errorf("the Hall exited during the fault: %v\n%s", hall.err, hall.stderr.String())
	default:
	}
	if s := hall.stderr.String(); strings.Contains(s, "panic") || strings.Contains(s, "DATA RACE") {
		t.Errorf("the Hall's stderr: %s", s)
	}

	// The log: one line when the fault began, then at most one per
	// interval (and one as the Hall exits), which together count every
	// write that failed, not a line per presence per second.
	failed := readHealth(t, base).Store.WriteErrors
	hall.terminate(t)
	lines, counted := 0, int64(0)
	repeated := regexp.MustCompile(` repeated=(\d+)`)
	for _, l := range strings.Split(hall.stderr.String(), "\n") {
		if !strings.Contains(l, `msg="presence not stored"`) {
			continue
		}
		lines++
		if m := repeated.FindStringSubmatch(l); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			counted += n
		} else {
			counted++
		}
	}
	if most := 2 + int(faultFor/lograte.DefaultEvery); lines < 1 || lines > most {
		t.Errorf("log on a full disk: %d lines of \"presence not stored\" over %s, want 1 to %d (one per %s)", lines, faultFor.Round(time.Millisecond), most, lograte.DefaultEvery)
	}
	if counted != failed {
		t.Errorf("log on a full disk: its lines count %d failed writes, health counts %d", counted, failed)
	}
}

// writerAgents is how many presences the record writer cycles through.
const writerAgents = 16

// writerRecord is generation gen of a writer's presence: every field tells
// the generation, so a record mixed from two writes, or cut short, is told
// from a whole one.
func writerRecord(agent string, gen int) presence.Record {
	now := time.Now().UnixMilli()
	// As large as a record within a beat's limits gets (64 entries of
	// near 1 KiB: 60 KiB), so a write takes many pages to land.
	ws := make([]string, presence.MaxWorkingSetLen)
	for k := range ws {
		ws[k] = fmt.Sprintf("gen-%d/%s/file-%03d.go", gen, strings.Repeat("d", presence.MaxPathLen-64), k)
	}
	r := presencetest.Rec(agent, "/srv/shop", presencetest.Worktree("/srv/shop/"+agent), presencetest.Theme(fmt.Sprintf("gen-%d", gen)),
		presencetest.WS(ws...), presencetest.NoMutation(), presencetest.At(now), presencetest.TTL(10*60*1000))
	r.QueryCount = int64(gen)
	return r
}

// wholeWriterRecord reports why a served presence is not one whole
// generation of a writer's record, or nil.
func wholeWriterRecord(p contract.Presence) error {
	gen, err := strconv.Atoi(strings.TrimPrefix(p.Theme, "gen-"))
	if err != nil {
		return fmt.Errorf("%s: theme %q", p.AgentID, p.Theme)
	}
	want := writerRecord(p.AgentID, gen)
	if !slices.Equal(p.WorkingSet, want.WorkingSet) || p.QueryCount != int64(gen) || p.Worktree != want.Worktree {
		return fmt.Errorf("%s: generation %d is not whole (%d paths, query_count %d)", p.AgentID, gen, len(p.WorkingSet), p.QueryCount)
	}
	return nil
}

// runRecordWriter writes records through the store's atomic path as fast
// as it can, until killed.
func runRecordWriter(root string) int {
	store := dirstore.New(root)
	for gen := 0; ; gen++ {
		agent := fmt.Sprintf("writer-%02d", gen%writerAgents)
		if err := store.Upsert(context.Background(), writerRecord(agent, gen)); err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			return 1
		}
		if gen == 2*writerAgents {
			fmt.Println("writing")
		}
	}
}

// TestFaultWriterKilledMidWrite: a process writing records through the
// atomic path in a tight loop is SIGKILLed, three times, at a random
// moment. Pollers of the contract and health and a stream subscriber,
// reading throughout, only ever see whole records and nothing skipped; a
// temp file a killed writer leaves is ignored, and reclaimed at the next
// boot.
func TestFaultWriterKilledMidWrite(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: 10 * time.Minute, Rescan: 100 * time.Millisecond})
	root := m.Config.RegistryRoot
	dir := filepath.Join(root, "presences")
	w := streamtest.Follow(t, m.URL()+"/api/presences/stream", "")

	var (
		stop     = make(chan struct{})
		wg       sync.WaitGroup
		mu       sync.Mutex
		problems []string
		polls    atomic.Int64
		changes  atomic.Int64
	)
	problem := func(format string, args ...any) {
		mu.Lock()
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
		mu.Unlock()
	}
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: faultWait}
			for {
				select {
				case <-stop:
					return
				default:
				}
				var got contract.PresencesResponse
				var h contract.Health
				for path, out := range map[string]any{"/api/presences": &got, "/api/health": &h} {
					resp, err := client.Get(m.URL() + path)
					if err != nil {
						problem("GET %s: %v", path, err)
						continue
					}
					err = jsonDecode(resp.Body, out)
					resp.Body.Close()
					if err != nil || resp.StatusCode != http.StatusOK {
						problem("GET %s: %d %v", path, resp.StatusCode, err)
					}
				}
				for _, p := range got.Presences {
					if err := wholeWriterRecord(p); err != nil {
						problem("contract: %v", err)
					}
				}
				if got.Error != "" {
					problem("contract: error %q", got.Error)
				}
				switch {
				case h.Presences == nil:
					problem("health: no presences block (%q), want the roster", h.PresencesError)
				case h.Presences.Skipped != 0:
					problem("health: %d skipped, want none (a record file read half-written)", h.Presences.Skipped)
				}
				polls.Add(1)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			case <-w.Arrived():
				n := len(w.Drain())
				for _, p := range w.Response().Presences {
					if err := wholeWriterRecord(p); err != nil {
						problem("stream view: %v", err)
					}
				}
				changes.Add(int64(n))
			}
		}
	}()

	for round := 0; round < 3; round++ {
		writer := startHelper(t, "writer", []string{"HALL_FAULT_ROOT=" + root})
		writer.line(t, "writing", faultWait)
		time.Sleep(time.Duration(200+rand.IntN(400)) * time.Millisecond)
		if err := writer.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-writer.exited
		var ee *exec.ExitError
		if !errors.As(writer.err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: writer ended with %v, want killed by SIGKILL; stderr:\n%s", round, writer.err, writer.stderr.String())
		}
	}
	// Read on a little after the last kill, then stop the readers.
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	if polls.Load() == 0 || changes.Load() == 0 {
		t.Errorf("readers: got %d polls and %d stream changes, want some of each", polls.Load(), changes.Load())
	}
	t.Logf("%d polls and %d stream changes while writers were killed mid-write", polls.Load(), changes.Load())

	var temps []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if atomicfile.IsTemp(e.Name()) {
			temps = append(temps, e.Name())
		}
	}
	t.Logf("the kills left %d temp files", len(temps))
	if len(temps) == 0 {
		// No kill landed inside a write this time: leave what one does,
		// a temp file holding the first half of a record.
		data, _ := presence.EncodeRecord(writerRecord("writer-00", 1<<20))
		name := filepath.Base(atomicfile.TempName(presence.ID("writer-00", "/srv/shop") + ".json"))
		if err := os.WriteFile(filepath.Join(dir, name), data[:len(data)/2], 0o600); err != nil {
			t.Fatal(err)
		}
		temps = append(temps, name)
	}
	if _, err := m.Service.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := readContract(t, m.URL())
	if h := readHealth(t, m.URL()); h.Presences == nil || h.Presences.Skipped != 0 || len(got.Presences) != writerAgents {
		t.Errorf("with the temp files in place: got %d presences, health error %q, want %d and nothing skipped", len(got.Presences), h.PresencesError, writerAgents)
	}
	// An hour later a Hall boots: the leftovers are reclaimed.
	old := time.Now().Add(-time.Hour)
	for _, name := range temps {
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	next := MustOpenHall(t, Config{RegistryRoot: root, TTL: 10 * time.Minute})
	for _, name := range temps {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("temp file %s after the next boot: got %v, want reclaimed", name, err)
		}
	}
	got, _ = readContract(t, next.URL())
	for _, p := range got.Presences {
		if err := wholeWriterRecord(p); err != nil {
			t.Errorf("after the next boot: %v", err)
		}
	}
	if len(got.Presences) != writerAgents {
		t.Errorf("after the next boot: got %d presences, want %d", len(got.Presences), writerAgents)
	}
}

func jsonDecode(r io.Reader, out any) error { return json.NewDecoder(r).Decode(out) }

// holdSubscribers opens n raw SSE connections to the stream at base (a
// minimal GET each, no HTTP client), waits until each has its snapshot,
// prints "ready", and holds them until the process is killed.
func holdSubscribers(base string, n int) int {
	u, err := url.Parse(base)
	if err != nil || n <= 0 {
		fmt.Fprintln(os.Stderr, "subscribers: bad url or count:", base, n)
		return 2
	}
	req := []byte("GET /api/presences/stream HTTP/1.1\r\nHost: " + u.Host + "\r\nAccept: text/event-stream\r\n\r\n")
	conns := make([]net.Conn, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 8<<10)
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				c, err := openSnapshot(u.Host, req, buf)
				if err != nil {
					select {
					case errs <- fmt.Errorf("connection %d: %w", i, err):
					default:
					}
					return
				}
				conns[i] = c
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		fmt.Fprintln(os.Stderr, "subscribers:", err)
		return 1
	default:
	}
	fmt.Printf("ready %d\n", n)
	// Held until killed, so all n close at once. The connections must stay
	// reachable while held: a net.Conn the collector finds unreferenced is
	// closed by its finalizer, and a collection right after "ready" closed
	// some 175 of them while the test was counting.
	for {
		time.Sleep(time.Hour)
		runtime.KeepAlive(conns)
	}
}

// openSnapshot dials, sends the request and reads until the end of the
// snapshot event.
func openSnapshot(host string, req, buf []byte) (net.Conn, error) {
	c, err := net.Dial("tcp", host)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := c.Write(req); err != nil {
		c.Close()
		return nil, err
	}
	var got []byte
	for {
		k, err := c.Read(buf)
		got = append(got, buf[:k]...)
		if i := bytes.Index(got, []byte("event: snapshot\n")); i >= 0 && bytes.Contains(got[i:], []byte("\n\n")) {
			break
		}
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("before the snapshot ended: %w (read %q)", err, got)
		}
	}
	if !bytes.HasPrefix(got, []byte("HTTP/1.1 200 ")) {
		c.Close()
		return nil, fmt.Errorf("got %q, want 200", got)
	}
	_ = c.SetDeadline(time.Time{})
	return c, nil
}

// TestFaultTenThousandSubscribersDrop: 10,000 SSE subscribers (raw TCP, in
// a child process, so each side stays within the open-file limit) all
// disconnect at once (the process is killed). The Hall lets go of every
// one: its open descriptors and goroutines return to the baseline (a
// stream whose client keeps up holds no goroutine at all), and a new
// subscriber still gets a snapshot and then diffs.
func TestFaultTenThousandSubscribersDrop(t *testing.T) {
	const subs = 10000
	started := time.Now()
	m := MustOpenHall(t, Config{TTL: 10 * time.Minute})
	root := m.Config.RegistryRoot
	dirstoretest.Upsert(t, root, liveRecord("a-1", "/srv/shop", "/srv/shop/wt-1", true))
	dirstoretest.Upsert(t, root, liveRecord("a-2", "/srv/shop", "/srv/shop/wt-1", true))
	eventually.True(t, faultWait, "two presences served", func() bool {
		got, _ := readContract(t, m.URL())
		return len(got.Presences) == 2
	})
	http.DefaultClient.CloseIdleConnections()
	eventually.True(t, faultWait, "no subscriber", func() bool { return m.Hub.Stats().Subscribers == 0 })
	runtime.GC()
	base, baseFDs := runtime.NumGoroutine(), openFDs(t)

	holder := startHelper(t, "subscribers", []string{"HALL_FAULT_URL=" + m.URL(), "HALL_FAULT_SUBS=" + strconv.Itoa(subs)})
	holder.line(t, "ready ", 3*time.Minute)
	if got := m.Hub.Stats().Subscribers; got != subs {
		t.Fatalf("subscribers held: got %d, want %d", got, subs)
	}
	peak, peakFDs := runtime.NumGoroutine(), openFDs(t)
	opened := time.Since(started)
	if peakFDs < baseFDs+subs {
		t.Fatalf("descriptors while held: got %d, want at least %d (one a stream)", peakFDs, baseFDs+subs)
	}

	if err := holder.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-holder.exited
	dropped := time.Now()
	deadline := dropped.Add(2 * time.Minute)
	for m.Hub.Stats().Subscribers > 0 || runtime.NumGoroutine() > base+2 || openFDs(t) > baseFDs+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("after the drop: %d subscribers, %d goroutines, %d descriptors; want 0 and the baselines %d and %d (+2)\n%s",
				m.Hub.Stats().Subscribers, runtime.NumGoroutine(), openFDs(t), base, baseFDs, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d subscribers: opened in %s; goroutines %d → %d → %d; descriptors %d → %d → %d; released %s after the drop",
		subs, opened.Round(time.Millisecond), base, peak, runtime.NumGoroutine(), baseFDs, peakFDs, openFDs(t), time.Since(dropped).Round(time.Millisecond))
	if peak > base+subs/100 {
		t.Errorf("goroutines while held: got %d over a baseline of %d; streams whose clients keep up should hold none", peak, base)
	}

	w := streamtest.Follow(t, m.URL()+"/api/presences/stream", "")
	w.UntilView(t, "a snapshot for a new subscriber", func(r contract.PresencesResponse) bool { return len(r.Presences) == 2 })
	dirstoretest.Upsert(t, root, liveRecord("a-3", "/srv/shop", "/srv/shop/wt-2", true))
	w.Until(t, "a-3 joining on the new subscriber's stream", func(c stream.Change) bool {
		return slices.ContainsFunc(c.Joins, func(p contract.Presence) bool { return p.AgentID == "a-3" })
	})
}

// TestFaultSIGTERMWithOpenStreams: the real program, with healthy streams
// open and two whose clients never read, gets SIGTERM: it exits 0 within
// 2 s, and the beat it held in memory (throttled) reaches the store first.
func TestFaultSIGTERMWithOpenStreams(t *testing.T) {
	root := t.TempDir()
	hall, base := startHallProcess(t, root, "--ttl", "10m")
	b := contract.BeatRequest{AgentID: "held", Brain: "/srv/shop", Worktree: "/srv/shop/wt-1", DeclaredIntent: "mutate"}
	if res := beatHall(t, base, b); !res.Stored {
		t.Fatalf("first beat: got %+v, want stored", res)
	}
	if res := beatHall(t, base, b); res.Stored {
		t.Fatalf("second beat: got %+v, want held (throttled)", res)
	}
	for i := 0; i < 5; i++ {
		w := streamtest.Follow(t, base+"/api/presences/stream", "")
		w.UntilView(t, "a snapshot", func(r contract.PresencesResponse) bool { return len(r.Presences) == 1 })
	}
	u, _ := url.Parse(base)
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "GET /api/presences/stream HTTP/1.1\r\nHost: %s\r\n\r\n", u.Host)
		status, err := bufio.NewReader(c).ReadString('\n')
		if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
			t.Fatalf("stalled stream: got %q %v, want 200", status, err)
		}
		// From here on it never reads.
	}

	took := hall.terminate(t)
	if hall.err != nil {
		t.Errorf("exit after SIGTERM: got %v, want status 0; stderr:\n%s", hall.err, hall.stderr.String())
	}
	// The promise is a clean exit within 2 s with streams open; Close's own
	// shutdown timeout is 2 s, and it would hit it if a stream held it.
	if took >= 2*time.Second {
		t.Errorf("exit after SIGTERM: took %s, want under 2s", took)
	}
	t.Logf("exited %s after SIGTERM with 7 streams open", took.Round(time.Millisecond))
	data, err := os.ReadFile(filepath.Join(root, "presences", presence.ID("held", "/srv/shop")+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := presence.DecodeRecord(data); err != nil || r.QueryCount != 2 {
		t.Errorf("stored record after exit: got query_count %d (%v), want 2 (the held beat flushed)", r.QueryCount, err)
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("count open descriptors: %v", err)
	}
	return len(ents)
}
