package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// testHall is a Handler over a real sidecar store (dirstore) in a temp
// dir, its route table (the one cmd/hall mounts on Echo) mounted on a
// plain ServeMux.
type testHall struct {
	root  string
	store *dirstore.Store
	svc   *presence.Service
	clock *presencetest.Clock
	srv   *httptest.Server
}

// mountRoutes mounts the Hall's route table, Handler.Routes, on an
// http.ServeMux: the routes cmd/hall serves, without Echo, and every other
// path on NotFound (on a ServeMux, "/" also takes a known path asked
// with another method, which Echo answers 405).
func mountRoutes(h *Handler) *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range h.Routes() {
		mux.HandleFunc(rt.Method+" "+rt.Path, rt.Handler)
	}
	mux.HandleFunc("/", h.NotFound())
	return mux
}

func newTestHall(t *testing.T, token string) *testHall {
	t.Helper()
	return newTestHallWith(t, func(h *Handler) { h.WriteToken = token })
}

// newTestHallWith is newTestHall with the Handler set up by with before
// its routes are mounted.
func newTestHallWith(t *testing.T, with func(*Handler)) *testHall {
	t.Helper()
	store := dirstoretest.Open(t)
	root := filepath.Dir(store.Dir())
	clock := presencetest.NewClock(presencetest.T0)
	svc := presence.NewService(store, presence.Config{Now: clock.Now, Logger: slog.New(slog.DiscardHandler)})
	h := &Handler{App: &hall.Hall{Service: svc}, StoreKind: "dir", StartedAt: clock.Now(), Log: slog.New(slog.DiscardHandler)}
	with(h)
	srv := httptest.NewServer(mountRoutes(h))
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
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json") // as every client sends it; the header map may say otherwise
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
	schematest.CheckAnswer(t, th.srv.URL+path, resp.StatusCode, b) // every roster held to m1nd's P1-UI contract
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
	return dirstoretest.Names(t, th.store.Dir())
}

func beatBody(agent, brain string, extra map[string]any) string {
	m := map[string]any{"agent_id": agent, "brain": brain}
	for k, v := range extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}
