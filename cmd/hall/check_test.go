package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/mcp"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
)

// TestCheckCommand: hall check exits 3 when the work would collide and
// names whom with, 0 when it would not, 1 when the Hall refuses, and
// writes nothing.
func TestCheckCommand(t *testing.T) {
	m := MustOpenHall(t, Config{})
	const wt = "/srv/shop/wt-1"
	if code, _, stderr := runCLI(t, "", "beat", "--hall", m.URL(), "--agent-id", "codex-2", "--brain", "/srv/shop", "--caller-root", wt, "--worktree", wt, "--intent", "mutate", "--theme", "cart"); code != 0 {
		t.Fatalf("beat: exit %d: %s", code, stderr)
	}
	files := dirFiles(t, m.Config.RegistryRoot)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--paths", "src/cart.go"}, 3, `would collide: "codex-2"`},
		{[]string{"src/cart.go", "src/sum.go"}, 3, "same_worktree"},
		{[]string{"--read-only", "--paths", "src/cart.go"}, 0, "no collision"},
		{[]string{"--agent-id", "codex-2", "--paths", "src/cart.go"}, 0, "no collision"},
		{[]string{"--agent-id", "a\x07b"}, 1, ""},
	} {
		args := append([]string{"check", "--hall", m.URL(), "--brain", "/srv/shop", "--caller-root", wt, "--worktree", wt}, tc.args...)
		code, stdout, stderr := runCLI(t, "", args...)
		if code != tc.code || !strings.Contains(stdout, tc.want) {
			t.Errorf("hall check %q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, stdout, stderr, tc.code, tc.want)
		}
	}
	if after := dirFiles(t, m.Config.RegistryRoot); strings.Join(after, "\n") != strings.Join(files, "\n") {
		t.Errorf("the registry went from %v to %v under checks", files, after)
	}
}

// dirFiles lists every file under dir with its size and time.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d %s", p, info.Size(), info.ModTime()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckRateLimit: a real Hall under --check-rate refuses a client
// past its burst with 429 rate_limited and Retry-After, over HTTP, to
// `hall check` (exit 4) and to an MCP session (a tool error), while
// another client (another address, another MCP session) is answered;
// nothing is written. The rate is one check in 1000 s, so no refill
// happens while the test runs.
func TestCheckRateLimit(t *testing.T) {
	m := MustOpenHall(t, Config{CheckRate: 0.001})
	const wt = "/srv/shop/wt-1"
	if code, _, stderr := runCLI(t, "", "beat", "--hall", m.URL(), "--agent-id", "codex-2", "--brain", "/srv/shop", "--caller-root", wt, "--worktree", wt, "--intent", "mutate"); code != 0 {
		t.Fatalf("beat: exit %d: %s", code, stderr)
	}
	files := dirFiles(t, m.Config.RegistryRoot)
	body := `{"brain":"/srv/shop","caller_root":"/srv/shop/wt-1","worktree":"/srv/shop/wt-1","paths":["src/cart.go"]}`
	set := schematest.FromHall(t, m.URL(), schematest.Strict)
	post := func(from string) (*http.Response, contract.ErrorResponse) {
		t.Helper()
		hc := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}).DialContext}}
		resp, err := hc.Post(m.URL()+"/api/presences/check", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		name := "check-response"
		if resp.StatusCode != http.StatusOK {
			name = "error"
		}
		set.Check(t, name, fmt.Sprintf("the check's %d answer", resp.StatusCode), raw)
		var e contract.ErrorResponse
		_ = json.Unmarshal(raw, &e)
		return resp, e
	}
	if resp, _ := post("127.0.0.1"); resp.StatusCode != http.StatusOK {
		t.Fatalf("first check: %d, want 200", resp.StatusCode)
	}
	resp, e := post("127.0.0.1")
	if secs, _ := strconv.Atoi(resp.Header.Get("Retry-After")); resp.StatusCode != http.StatusTooManyRequests || e.Error != "rate_limited" || secs < 900 || !strings.Contains(e.Detail, "retry in") {
		t.Errorf("past the burst: %d %+v, Retry-After %q; want 429 rate_limited, Retry-After about 1000", resp.StatusCode, e, resp.Header.Get("Retry-After"))
	}
	if resp, e := post("127.0.0.2"); resp.StatusCode != http.StatusOK {
		t.Errorf("another client: %d %+v, want 200", resp.StatusCode, e)
	}
	code, stdout, stderr := runCLI(t, "", "check", "--hall", m.URL(), "--brain", "/srv/shop", "--caller-root", wt, "--worktree", wt, "--paths", "src/cart.go")
	if code != exitRateLimited || !strings.Contains(stderr, "rate-limiting") || stdout != "" {
		t.Errorf("hall check past the limit: exit %d, stdout %q, stderr %q; want exit %d saying so", code, stdout, stderr, exitRateLimited)
	}

	args := map[string]any{"brain": "/srv/shop", "caller_root": wt, "worktree": wt, "paths": []string{"src/cart.go"}}
	a := mcptest.Connect(t, &sdk.StreamableClientTransport{Endpoint: m.URL() + "/mcp", MaxRetries: -1}, mcptest.Client{})
	defer a.Close()
	b := mcptest.Connect(t, &sdk.StreamableClientTransport{Endpoint: m.URL() + "/mcp", MaxRetries: -1}, mcptest.Client{})
	defer b.Close()
	var out mcp.CheckOut
	mcptest.Structured(t, mcptest.Call(t, a, "check", args), &out)
	if !out.WouldCollide {
		t.Errorf("MCP session a, first check: %+v, want a collision with codex-2", out)
	}
	if res := mcptest.Call(t, a, "check", args); !res.IsError || !strings.Contains(mcptest.Text(t, res), "rate_limited") {
		t.Errorf("MCP session a, past its burst: error %v, %q; want a rate_limited tool error", res.IsError, mcptest.Text(t, res))
	}
	mcptest.Structured(t, mcptest.Call(t, b, "check", args), &out)
	if !out.WouldCollide {
		t.Errorf("MCP session b: %+v, want its own answer", out)
	}
	if after := dirFiles(t, m.Config.RegistryRoot); strings.Join(after, "\n") != strings.Join(files, "\n") {
		t.Errorf("the registry went from %v to %v under checks", files, after)
	}
}
