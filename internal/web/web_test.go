package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/presence"
)

// testClock is a settable clock for the service under test.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// testHall is a Handler over a real DirStore in a temp dir, served by a
// plain ServeMux with the same patterns cmd/hall routes through Echo.
type testHall struct {
	root  string
	store *presence.DirStore
	svc   *presence.Service
	clock *testClock
	srv   *httptest.Server
}

func newTestHall(t *testing.T, token string) *testHall {
	t.Helper()
	root := t.TempDir()
	store := presence.NewDirStore(root)
	if err := store.Init(); err != nil {
		t.Fatal(err)
	}
	clock := &testClock{now: time.UnixMilli(1_764_489_600_000)}
	svc := presence.NewService(store, presence.Config{Now: clock.Now, Logger: slog.New(slog.DiscardHandler)})
	h := &Handler{Service: svc, StoreKind: "dir", WriteToken: token, StartedAt: clock.Now(), Log: slog.New(slog.DiscardHandler)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/presences", h.HandlePresencesIndex)
	mux.HandleFunc("GET /api/health", h.HandleHealth)
	mux.HandleFunc("GET /api/north", h.HandleNorth)
	mux.HandleFunc("GET /api/cockpit", h.HandleCockpit)
	mux.HandleFunc("POST /api/presences/beat", RequireToken(token, h.HandleBeat))
	mux.HandleFunc("POST /api/hooks/{agent}", RequireToken(token, h.HandleHook))
	mux.HandleFunc("DELETE /api/presences/{presence_id}", RequireToken(token, h.HandleLeave))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &testHall{root: root, store: store, svc: svc, clock: clock, srv: srv}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func (th *testHall) do(t *testing.T, method, path, body string, header map[string]string) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, th.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b}
}

func (r reply) decode(t *testing.T, out any) {
	t.Helper()
	if err := json.Unmarshal(r.body, out); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// files lists the record files in the store, for "writes nothing" checks.
func (th *testHall) files(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(th.store.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func beatBody(agent, brain string, extra map[string]any) string {
	m := map[string]any{"agent_id": agent, "brain": brain}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}
