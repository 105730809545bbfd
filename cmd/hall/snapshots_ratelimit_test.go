package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
)

// TestSnapshotReadRateLimit (issue 40 item 8): a real Hall under
// --snapshot-read-rate refuses a client's snapshot reads past its burst
// (the list, one snapshot's comparison) with 429 rate_limited,
// {"error","detail"} and Retry-After, as it does checks, while another
// client is answered; the MCP snapshots tool, the same use case, is
// limited per session. One read in 1000 s: no refill while the test
// runs.
func TestSnapshotReadRateLimit(t *testing.T) {
	m := MustOpenHall(t, Config{Snapshots: true, SnapshotReadRate: 0.001})
	set := schematest.FromHall(t, m.URL(), schematest.Strict)
	get := func(from, path string) (*http.Response, contract.ErrorResponse) {
		t.Helper()
		hc := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}).DialContext}}
		resp, err := hc.Get(m.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		var e contract.ErrorResponse
		if resp.StatusCode != http.StatusOK {
			set.Check(t, "error", fmt.Sprintf("GET %s's %d answer", path, resp.StatusCode), raw)
			_ = json.Unmarshal(raw, &e)
		}
		return resp, e
	}
	if resp, e := get("127.0.0.1", "/api/snapshots?limit=1"); resp.StatusCode != http.StatusOK {
		t.Fatalf("first read: %d %+v, want 200", resp.StatusCode, e)
	}
	for _, path := range []string{"/api/snapshots?limit=1", "/api/snapshots/0000000000000?path=big.img"} {
		resp, e := get("127.0.0.1", path)
		if secs, _ := strconv.Atoi(resp.Header.Get("Retry-After")); resp.StatusCode != http.StatusTooManyRequests || e.Error != "rate_limited" || e.Detail == "" || secs < 900 {
			t.Errorf("GET %s past the burst: %d %+v, Retry-After %q; want 429 rate_limited with a detail, Retry-After about 1000", path, resp.StatusCode, e, resp.Header.Get("Retry-After"))
		}
	}
	if resp, e := get("127.0.0.2", "/api/snapshots?limit=1"); resp.StatusCode != http.StatusOK {
		t.Errorf("another client: %d %+v, want 200", resp.StatusCode, e)
	}
	a := mcptest.Connect(t, &sdk.StreamableClientTransport{Endpoint: m.URL() + "/mcp", MaxRetries: -1}, mcptest.Client{})
	defer a.Close()
	if res := mcptest.Call(t, a, "snapshots", map[string]any{}); res.IsError {
		t.Fatalf("MCP, first read: %q", mcptest.Text(t, res))
	}
	if res := mcptest.Call(t, a, "snapshots", map[string]any{}); !res.IsError || !strings.Contains(mcptest.Text(t, res), "rate_limited") {
		t.Errorf("MCP past its burst: error %v, %q; want a rate_limited tool error", res.IsError, mcptest.Text(t, res))
	}
}
