package mcp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
)

// TestHTTPSessionsBounded: the HTTP handler holds at most its sessions; one
// more is 503 with a JSON reason, until a session ends; Close refuses all.
func TestHTTPSessionsBounded(t *testing.T) {
	h := NewHTTPHandler(Config{Client: newLocalHall(t).client(), Log: quiet()}, 2)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	open := func() (*sdk.ClientSession, error) {
		c := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil)
		return c.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: srv.URL, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	}
	a, err := open()
	if err != nil {
		t.Fatal(err)
	}
	b, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := open(); err == nil {
		t.Fatal("a third session was opened, want it refused")
	}
	status, body := post(t, srv.URL)
	if status != http.StatusServiceUnavailable || body.Error != "too_many_sessions" || body.Detail == "" {
		t.Errorf("one session too many: got %d %+v, want 503 too_many_sessions", status, body)
	}
	if err := a.Close(); err != nil { // DELETE ends the session on the server
		t.Fatal(err)
	}
	var c *sdk.ClientSession
	eventually(t, "a session once one ended", func() bool {
		c, err = open()
		return err == nil
	})
	defer c.Close()

	h.Close()
	if status, body := post(t, srv.URL); status != http.StatusServiceUnavailable || body.Error != "shutting_down" {
		t.Errorf("after Close: got %d %+v, want 503 shutting_down", status, body)
	}
}

func post(t *testing.T, url string) (int, contract.ErrorResponse) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e contract.ErrorResponse
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e
}

// TestHTTPBuildsOnFirstRequest: the handler builds its server on the first
// request, once however many arrive together (all their sessions are the
// one server's), and a handler closed before any request builds none and
// refuses.
func TestHTTPBuildsOnFirstRequest(t *testing.T) {
	const clients = 8
	h := NewHTTPHandler(Config{Client: newLocalHall(t).client(), Log: quiet()}, clients)
	if h.builtServer() != nil {
		t.Fatal("NewHTTPHandler built the server, want it built on the first request")
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	var wg sync.WaitGroup
	statuses := make([]int, clients)
	for i := range clients {
		wg.Go(func() { statuses[i], _ = post(t, srv.URL) })
	}
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusOK {
			t.Errorf("first request %d: got %d, want 200", i, s)
		}
	}
	built := h.builtServer()
	if built == nil {
		t.Fatal("no server built after the first requests")
	}
	if n := built.sessions(); n != clients {
		t.Errorf("the built server holds %d sessions, want all %d: the requests were not served by one server", n, clients)
	}
	h.Close()

	closed := NewHTTPHandler(Config{Client: newLocalHall(t).client(), Log: quiet()}, 0)
	closed.Close()
	rec := httptest.NewRecorder()
	closed.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`)))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "shutting_down") {
		t.Errorf("closed before any request: got %d %s, want 503 shutting_down", rec.Code, rec.Body)
	}
	if closed.builtServer() != nil {
		t.Error("a handler closed before any request built its server")
	}
}
