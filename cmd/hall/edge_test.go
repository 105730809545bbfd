package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// get fetches u with the headers, returning the status, the headers and
// the body.
func get(tb testing.TB, u string, header map[string]string) (int, http.Header, string) {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), http.MethodGet, u, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req) // no redirects followed
	if err != nil {
		tb.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if _, ok := header["Host"]; !ok {
		schematest.CheckAnswer(tb, u, resp.StatusCode, b)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// An unknown brain's 404 names the brain as the caller gave it, on every
// surface that answers one, never where this host's symlinks lead.
func TestEdgeUnknownBrainEchoesTheBrainAsGiven(t *testing.T) {
	tmp := t.TempDir()
	target := filepath.Join(tmp, "private-target-of-the-link")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	m := MustOpenHall(t, Config{})
	q := "?brain=" + url.QueryEscape(link)
	for _, path := range []string{"/api/presences", "/api/presences/stream", "/api/cockpit", "/"} {
		status, _, body := get(t, m.URL()+path+q, nil)
		if status != http.StatusNotFound {
			t.Errorf("%s: got %d, want 404", path, status)
		}
		if path != "/" {
			var e contract.ErrorResponse
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error != "unknown_brain" {
				t.Errorf("%s: got %q, want {\"error\":\"unknown_brain\",…}", path, body)
			}
		}
		if !strings.Contains(body, link) || strings.Contains(body, "private-target-of-the-link") {
			t.Errorf("%s: got %q, want the brain as given (%s), not the link's target", path, body, link)
		}
	}
}

// A brain asked for on a read follows the rules of shown text: a bidi
// control, a control character or an over-long path is a 400 naming the
// brain, on every read that takes one.
func TestEdgeReadsRefuseBrainsThatCannotBeShown(t *testing.T) {
	m := MustOpenHall(t, Config{})
	for _, brain := range []string{"/srv/\u202eshop", "/srv/\u2066shop", "/srv/sh\x01op", "/" + strings.Repeat("p", 1024)} {
		q := "?brain=" + url.QueryEscape(brain)
		for _, path := range []string{"/api/presences", "/api/presences/stream", "/api/cockpit", "/api/north?agent_id=a&brain=" + url.QueryEscape(brain)} {
			u := m.URL() + path
			if !strings.Contains(path, "?") {
				u += q
			}
			status, _, body := get(t, u, nil)
			var e contract.ErrorResponse
			_ = json.Unmarshal([]byte(body), &e)
			if status != http.StatusBadRequest || e.Error != "invalid_brain" || !strings.Contains(e.Detail, "brain") {
				t.Errorf("%s with brain %+q: got %d %q, want 400 invalid_brain naming the brain", path, brain, status, body)
			}
		}
		if status, _, _ := get(t, m.URL()+"/"+q, nil); status != http.StatusBadRequest {
			t.Errorf("page with brain %+q: got %d, want 400", brain, status)
		}
	}
	status, _, body := get(t, m.URL()+"/api/north?agent_id="+url.QueryEscape("claude-\u200b7")+"&brain=/srv/shop", nil)
	if status != http.StatusBadRequest || !strings.Contains(body, "agent_id") {
		t.Errorf("north with a zero-width space in agent_id: got %d %q, want 400 naming agent_id", status, body)
	}
}

// --token-file keeps the token out of ps: the file's content, trimmed,
// read once at start; an unreadable or empty file, or both forms at once,
// is a usage error naming the flag. HALL_TOKEN still works, and a
// --token-file on the command line wins over it.
func TestEdgeTokenFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("token", "  s3cret-from-file\n")
	empty := write("empty", " \n\t")
	twoLines := write("two", "s3cret\nother\n")
	cases := []struct {
		name    string
		args    []string
		env     string // HALL_TOKEN
		want    string
		wantErr string // the error names this
	}{
		{"file", []string{"--token-file", good}, "", "s3cret-from-file", ""},
		{"inline", []string{"--token", "inline"}, "", "inline", ""},
		{"environment", nil, "from-env", "from-env", ""},
		{"file on the command line over the environment", []string{"--token-file", good}, "from-env", "s3cret-from-file", ""},
		{"both on the command line", []string{"--token", "x", "--token-file", good}, "", "", "--token-file"},
		{"missing file", []string{"--token-file", filepath.Join(dir, "nope")}, "", "", "--token-file"},
		{"empty file", []string{"--token-file", empty}, "", "", "is empty"},
		{"two lines", []string{"--token-file", twoLines}, "", "", "more than one line"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("HALL_TOKEN", tc.env)
			if tc.env == "" {
				os.Unsetenv("HALL_TOKEN")
			}
			cfg, err := parseServeConfig(tc.args, io.Discard, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("got %v, want an error naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || cfg.Token != tc.want {
				t.Errorf("got token %q, %v; want %q", cfg.Token, err, tc.want)
			}
		})
	}

	cfg, err := parseServeConfig([]string{"--token-file", good}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RegistryRoot = t.TempDir()
	cfg.Addr = "127.0.0.1:0"
	m := MustOpenHall(t, cfg)
	// Read once: changing the file later changes nothing.
	write("token", "changed")
	for _, tc := range []struct {
		auth string
		want int
	}{{"", 401}, {"Bearer changed", 401}, {"Bearer s3cret-from-file", 200}} {
		if got := postBeat(t, m.URL(), `{"agent_id":"a","brain":"/srv/shop"}`, map[string]string{"Authorization": tc.auth}); got.status != tc.want {
			t.Errorf("beat with %q: got %d %s, want %d", tc.auth, got.status, got.body, tc.want)
		}
	}
}

// reply is an answer's status, headers and body.
type reply struct {
	status int
	header http.Header
	body   string
}

// postBeat posts a beat body with the headers (Content-Type JSON unless
// the headers say otherwise).
func postBeat(tb testing.TB, base, body string, header map[string]string) reply {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), http.MethodPost, base+"/api/presences/beat", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		tb.Fatalf("POST beat: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// The client commands take --token-file too: hall beat and hall leave
// send the file's token; a missing file is a usage error (exit 2).
func TestEdgeClientTokenFile(t *testing.T) {
	m := MustOpenHall(t, Config{Token: "s3cret"})
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wt := t.TempDir()
	code, _, stderr := runCLI(t, "", "beat", "--hall", m.URL(), "--token-file", file, "--agent-id", "claude-7", "--brain", "/srv/shop", "--caller-root", wt)
	if code != 0 || stderr != "" {
		t.Fatalf("beat with --token-file: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "leave", "--hall", m.URL(), "--token-file", file, "--agent-id", "claude-7", "--brain", "/srv/shop")
	if code != 0 || stderr != "" {
		t.Fatalf("leave with --token-file: exit %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{{"beat", "--agent-id", "x"}, {"leave", "--agent-id", "x"}, {"watch"}} {
		cmd := args[0]
		code, _, stderr = runCLI(t, "", append(args, "--hall", m.URL(), "--token-file", filepath.Join(t.TempDir(), "nope"), "--brain", "/srv/shop")...)
		if code != 2 || !strings.Contains(stderr, "hall: --token-file") {
			t.Errorf("%s with a missing --token-file: exit %d, stderr %q, want 2 naming the flag", cmd, code, stderr)
		}
	}
}

// dialHall opens a raw connection to the Hall, closed when the test ends.
func dialHall(tb testing.TB, m *Main) net.Conn {
	tb.Helper()
	c, err := net.Dial("tcp", m.ln.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// closedByHall reports whether the Hall closed c (EOF or a reset) before
// the test's generous deadline; a deadline that passes means it kept c.
func closedByHall(tb testing.TB, c net.Conn, br *bufio.Reader) bool {
	tb.Helper()
	_ = c.SetReadDeadline(time.Now().Add(wait))
	for {
		if _, err := br.ReadByte(); err != nil {
			var ne net.Error
			return !(errors.As(err, &ne) && ne.Timeout())
		}
	}
}

// A kept-alive connection that sends no next request is closed after the
// idle timeout; without one it is held for ever, a descriptor each.
func TestEdgeIdleConnectionsAreClosed(t *testing.T) {
	m := MustOpenHall(t, Config{IdleTimeout: 200 * time.Millisecond})
	c := dialHall(t, m)
	fmt.Fprintf(c, "GET /api/health HTTP/1.1\r\nHost: %s\r\n\r\n", m.ln.Addr())
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("health: got %d, close %v; want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	if !closedByHall(t, c, br) {
		t.Errorf("an idle kept-alive connection was still open after %s", wait)
	}
}

// A request whose body never arrives whole is cut off after the read
// timeout (the beat answers 400 and the connection closes); without one
// it holds the connection for ever.
func TestEdgeSlowBodyIsCutOff(t *testing.T) {
	m := MustOpenHall(t, Config{ReadTimeout: 300 * time.Millisecond})
	c := dialHall(t, m)
	fmt.Fprintf(c, "POST /api/presences/beat HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"agent_id\":", m.ln.Addr())
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(br, nil)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("a beat whose body stopped short was still waited on after %s", wait)
	}
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("slow body: got %d %s, want 400", resp.StatusCode, b)
		}
		if !closedByHall(t, c, br) {
			t.Errorf("the connection stayed open after the slow body's answer")
		}
	}
	if files, _ := os.ReadDir(filepath.Join(m.Config.RegistryRoot, "presences")); len(files) != 0 {
		t.Errorf("a cut-off beat wrote %d files", len(files))
	}
}

// The stream is the one route the read timeout does not end: a stream
// open many times longer still gets its diffs.
func TestEdgeStreamOutlivesTheReadTimeout(t *testing.T) {
	m := MustOpenHall(t, Config{ReadTimeout: 100 * time.Millisecond, IdleTimeout: 100 * time.Millisecond, StreamHeartbeat: time.Hour})
	f := streamtest.Follow(t, streamURL(m, ""), "")
	f.Next(t, "the snapshot")
	time.Sleep(time.Second) // ten read timeouts
	beatHall(t, m.URL(), contract.BeatRequest{AgentID: "late", Brain: "/srv/shop"})
	f.Until(t, "a diff after ten read timeouts", func(c stream.Change) bool { return len(c.Joins) == 1 })
	if n := m.Hub.Stats().Dropped; n != 0 {
		t.Errorf("dropped subscribers: %d, want 0", n)
	}
}

// At --max-streams open streams the next one is refused with a 503, a
// Retry-After and a JSON reason, and counted on health; once a stream
// closes, a new one is served.
func TestEdgeMaxStreams(t *testing.T) {
	m := MustOpenHall(t, Config{MaxStreams: 2})
	a, b := streamtest.Stalled(t, streamURL(m, "")), streamtest.Stalled(t, streamURL(m, ""))
	_ = b
	eventually.True(t, wait, "two streams open", func() bool { return m.Hub.Stats().Subscribers == 2 })

	status, hd, body := get(t, streamURL(m, ""), nil)
	var e contract.ErrorResponse
	_ = json.Unmarshal([]byte(body), &e)
	if status != http.StatusServiceUnavailable || hd.Get("Retry-After") != "10" || e.Error != "too_many_streams" || !strings.Contains(e.Detail, "--max-streams") {
		t.Errorf("third stream: got %d, Retry-After %q, %q; want 503, Retry-After 10, too_many_streams", status, hd.Get("Retry-After"), body)
	}
	var h contract.Health
	getJSON(t, m.URL()+"/api/health", &h)
	if h.Stream == nil || h.Stream.Refused != 1 || h.Stream.MaxStreams != 2 || h.Stream.Subscribers != 2 {
		t.Errorf("health: got %+v, want 2 open, 1 refused, max 2", h.Stream)
	}
	if _, _, metrics := get(t, m.URL()+"/metrics", nil); !strings.Contains(metrics, "\nhall_stream_refused_total 1\n") {
		t.Errorf("metrics: want hall_stream_refused_total 1 in\n%s", metrics)
	}
	if status, _, _ := get(t, m.URL()+"/api/presences", nil); status != 200 {
		t.Errorf("the contract while streams are full: got %d, want 200", status)
	}
	// The stream client (hall watch's) waits as long as it was asked to.
	type refusal struct {
		err  error
		wait time.Duration
	}
	refused := make(chan refusal, 1)
	ctx, cancel := context.WithCancel(t.Context())
	go (&stream.Client{URL: streamURL(m, ""), MinWait: time.Millisecond, MaxWait: time.Second, OnDisconnect: func(err error, wait time.Duration) {
		refused <- refusal{err, wait}
		cancel()
	}}).Follow(ctx, func(stream.Event) error { return nil })
	select {
	case r := <-refused:
		if r.wait < 10*time.Second || !strings.Contains(r.err.Error(), "too_many_streams") {
			t.Errorf("stream client refused: waits %s after %v; want at least the 10 s Retry-After", r.wait, r.err)
		}
	case <-time.After(wait):
		t.Fatal("the stream client was never refused")
	}

	a.Close()
	eventually.True(t, wait, "the closed stream to be let go", func() bool { return m.Hub.Stats().Subscribers == 1 })
	f := streamtest.Follow(t, streamURL(m, ""), "")
	f.Next(t, "a snapshot once a stream closed")
}

// The Hall's own Echo-mounted routes follow the edge's rules (the route
// table's guard), and so does the profiler beside it: a rebound name is
// refused, a foreign page cannot write, a text body is refused.
func TestEdgeRulesOnTheServedHall(t *testing.T) {
	m := MustOpenHall(t, Config{PprofAddr: "127.0.0.1:0", AllowedHosts: []string{"hall.test"}})
	set := schematest.FromHall(t, m.URL(), schematest.Strict)
	for _, tc := range []struct {
		name   string
		host   string
		header map[string]string
		want   int
	}{
		{"a client", "", nil, 200},
		{"an allowed name", "hall.test:7433", nil, 200},
		{"a rebound name", "evil.example:7433", nil, 421},
		{"a foreign page", "", map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"a text body", "", map[string]string{"Content-Type": "text/plain"}, 415},
	} {
		if tc.host != "" {
			tc.header = map[string]string{"Host": tc.host}
		}
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, m.URL()+"/api/presences/beat", strings.NewReader(`{"agent_id":"a","brain":"/srv/shop"}`))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		req.Host = tc.host
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
		if tc.want != 200 {
			set.Check(t, "error", tc.name, body)
		}
	}
	for host, want := range map[string]int{"": 200, "localhost": 200, "evil.example": 421} {
		status, _, _ := get(t, "http://"+m.pprof.Addr+"/debug/pprof/", map[string]string{"Host": host})
		if status != want {
			t.Errorf("the profiler with Host %q: got %d, want %d", host, status, want)
		}
	}
}

// --read-token, --read-token-file and --allowed-host parse from flags and
// HALL_*; a host that is not a host name stops the Hall.
func TestEdgeReadTokenAndHostFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "read")
	if err := os.WriteFile(file, []byte("r3ad\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HALL_ALLOWED_HOST", "a.test,b.test:8443")
	cfg, err := parseServeConfig([]string{"--read-token-file", file}, io.Discard, io.Discard)
	if err != nil || cfg.ReadToken != "r3ad" || strings.Join(cfg.AllowedHosts, " ") != "a.test b.test:8443" {
		t.Errorf("got read token %q, hosts %q, %v", cfg.ReadToken, cfg.AllowedHosts, err)
	}
	for _, bad := range []string{"http://a.test", "a.test/x", "a b", "user@a.test", ""} {
		c := Config{Addr: cli.DefaultAddr, TTL: time.Minute, AllowedHosts: []string{bad}}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--allowed-host") {
			t.Errorf("--allowed-host %q: got %v, want an error naming the flag", bad, err)
		}
	}
}

// hall watch and hall beat against a Hall with --read-token: watch reads
// with --read-token (and exits 1 with the Hall's reason without it); beat,
// with no write token set, beats with it.
func TestEdgeClientsWithReadToken(t *testing.T) {
	m := MustOpenHall(t, Config{ReadToken: "r3ad"})
	wt := t.TempDir()
	code, _, stderr := runCLI(t, "", "beat", "--hall", m.URL(), "--agent-id", "claude-7", "--brain", "/srv/shop", "--caller-root", wt)
	if code != 1 || !strings.Contains(stderr, "401") {
		t.Errorf("beat without the read token: exit %d, stderr %q; want 1 naming the 401", code, stderr)
	}
	code, _, stderr = runCLI(t, "", "beat", "--hall", m.URL(), "--read-token", "r3ad", "--agent-id", "claude-7", "--brain", "/srv/shop", "--caller-root", wt)
	if code != 0 || stderr != "" {
		t.Fatalf("beat with the read token: exit %d, stderr %q", code, stderr)
	}
	wr := startWatch(t, "--hall", m.URL(), "--read-token", "r3ad", "--json")
	var l contract.Line
	if err := json.Unmarshal([]byte(wr.line(t, "the snapshot")), &l); err != nil || l.Type != "snapshot" || l.Snapshot == nil || len(l.Snapshot.Presences) != 1 {
		t.Errorf("watch with the read token: got %+v, %v; want the snapshot with one presence", l, err)
	}
	code, _, stderr = runCLI(t, "", "watch", "--hall", m.URL())
	if code != 1 || !strings.Contains(stderr, "unauthorized") {
		t.Errorf("watch without the read token: exit %d, stderr %q; want 1 naming unauthorized", code, stderr)
	}
}

// TestGitPriorityFlag: --git-priority low (the default) keeps git at its
// nice value only, idle adds SCHED_IDLE (gitscan.RunnerConfig.Idle, whose
// test reads the policy from /proc), anything else is a usage error.
func TestGitPriorityFlag(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantIdle bool
		wantErr  bool
	}{
		{nil, false, false},
		{[]string{"--git-priority", "low"}, false, false},
		{[]string{"--git-priority", "idle"}, true, false},
		{[]string{"--git-priority", "realtime"}, false, true},
		{[]string{"--git-priority", ""}, false, true},
	} {
		cfg, err := parseServeConfig(tc.args, io.Discard, io.Discard)
		var exit *exitError
		if tc.wantErr {
			if !errors.As(err, &exit) || exit.code != 2 || !strings.Contains(err.Error(), "--git-priority") {
				t.Errorf("%v: got %v, want a usage error (exit 2) naming --git-priority", tc.args, err)
			}
			continue
		}
		if err != nil || cfg.GitIdle != tc.wantIdle {
			t.Errorf("%v: GitIdle %v, %v; want %v", tc.args, cfg.GitIdle, err, tc.wantIdle)
		}
	}
}

// TestGCFloorFlag: --gc-floor-mib in MiB, 32 unless told, 0 off, bounded.
func TestGCFloorFlag(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    uint64
		wantErr bool
	}{
		{nil, 32 << 20, false},
		{[]string{"--gc-floor-mib", "0"}, 0, false},
		{[]string{"--gc-floor-mib", "128"}, 128 << 20, false},
		{[]string{"--gc-floor-mib", "65536"}, 65536 << 20, false},
		{[]string{"--gc-floor-mib", "65537"}, 0, true},
		{[]string{"--gc-floor-mib", "18446744073709551615"}, 0, true},
		{[]string{"--gc-floor-mib", "-1"}, 0, true},
	} {
		cfg, err := parseServeConfig(tc.args, io.Discard, io.Discard)
		var exit *exitError
		if tc.wantErr {
			if !errors.As(err, &exit) || exit.code != 2 || !strings.Contains(err.Error(), "gc-floor-mib") {
				t.Errorf("%v: got %v, want a usage error (exit 2) naming --gc-floor-mib", tc.args, err)
			}
			continue
		}
		if err != nil || cfg.GCFloor != tc.want {
			t.Errorf("%v: GCFloor %d, %v; want %d", tc.args, cfg.GCFloor, err, tc.want)
		}
	}
}
