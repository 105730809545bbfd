package web

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
)

// liveHall is a Handler whose roster and stream come from a hub over a real
// service and a temp registry, as cmd/hall wires them.
type liveHall struct {
	root string
	svc  *presence.Service
	hub  *stream.Hub
	srv  *httptest.Server
}

func newLiveHall(t *testing.T, withStream bool) *liveHall {
	t.Helper()
	store := dirstoretest.Open(t)
	root := filepath.Dir(store.Dir())
	log := slog.New(slog.DiscardHandler)
	svc := presence.NewService(store, presence.Config{Logger: log, Brains: []string{"/srv/known"}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = svc.Run(ctx, presence.RunConfig{Rescan: 50 * time.Millisecond}) }()
	hub := stream.NewHub(svc, stream.Config{Log: log})
	hub.Start(ctx)
	h := &Handler{App: &hall.Hall{Service: svc, Roster: hub, History: hub}, History: hub, StoreKind: "dir", StartedAt: time.Now(), Log: log}
	if withStream {
		h.Stream = hub
	}
	srv := httptest.NewServer(mountRoutes(h))
	t.Cleanup(func() {
		hub.Close()
		srv.Close()
		cancel()
		<-done
	})
	return &liveHall{root: root, svc: svc, hub: hub, srv: srv}
}

func (lh *liveHall) beat(t *testing.T, agent, brain string) {
	t.Helper()
	if _, err := lh.svc.Beat(context.Background(), presence.Beat{AgentID: agent, Brain: brain}); err != nil {
		t.Fatal(err)
	}
}

func (lh *liveHall) get(t *testing.T, path string, header map[string]string) (*http.Response, contract.PresencesResponse) {
	t.Helper()
	resp, body := lh.fetch(t, path, header)
	var out contract.PresencesResponse
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatalf("GET %s: decode %q: %v", path, body, err)
		}
	}
	return resp, out
}

// firstEvent opens the stream and returns its first event's name and data.
func (lh *liveHall) firstEvent(t *testing.T, path string) (*http.Response, string, string) {
	t.Helper()
	resp, err := http.Get(lh.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		return resp, "", ""
	}
	br := bufio.NewReader(resp.Body)
	var event, data string
	for data == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = strings.TrimSpace(v)
		}
	}
	return resp, event, data
}

// TestPresencesCursorAndETag: the contract carries the stream cursor; the
// ETag follows it, so a poller gets 304 until the roster changes, and a
// change (a beat taken a moment ago) is seen by the very next read.
func TestPresencesCursorAndETag(t *testing.T) {
	lh := newLiveHall(t, true)
	lh.beat(t, "a-1", "/srv/known")
	resp, first := lh.get(t, "/api/presences", nil)
	etag := resp.Header.Get("ETag")
	if first.Cursor == "" || etag == "" || len(first.Presences) != 1 {
		t.Fatalf("contract: cursor %q etag %q presences %d; want a cursor, an ETag and the beat", first.Cursor, etag, len(first.Presences))
	}
	if resp, _ := lh.get(t, "/api/presences", map[string]string{"If-None-Match": etag}); resp.StatusCode != http.StatusNotModified {
		t.Errorf("unchanged roster with its ETag: got %d, want 304", resp.StatusCode)
	}
	// Another brain's tag differs though the cursor is the same.
	if resp, _ := lh.get(t, "/api/presences?brain=/srv/known", map[string]string{"If-None-Match": etag}); resp.StatusCode != http.StatusOK {
		t.Errorf("a brain's roster with the owner-wide ETag: got %d, want 200", resp.StatusCode)
	}

	lh.beat(t, "a-2", "/srv/known") // read-your-writes: no wait
	resp, second := lh.get(t, "/api/presences", map[string]string{"If-None-Match": etag})
	if resp.StatusCode != http.StatusOK || len(second.Presences) != 2 {
		t.Fatalf("after a beat: got %d with %d presences, want 200 with 2", resp.StatusCode, len(second.Presences))
	}
	if second.Cursor == first.Cursor || resp.Header.Get("ETag") == etag {
		t.Errorf("after a beat: cursor %s and ETag %s did not move", second.Cursor, resp.Header.Get("ETag"))
	}
}

// TestStreamSnapshotIsTheContract: the stream's snapshot is byte for byte
// the contract's answer for the same brain, served_at_ms aside.
func TestStreamSnapshotIsTheContract(t *testing.T) {
	lh := newLiveHall(t, true)
	lh.beat(t, "a-1", "/srv/known")
	lh.beat(t, "b-1", "/srv/other")
	for _, q := range []string{"", "?brain=/srv/known"} {
		_, want := lh.get(t, "/api/presences"+q, nil)
		_, event, data := lh.firstEvent(t, "/api/presences/stream"+q)
		var got contract.PresencesResponse
		if err := json.Unmarshal([]byte(data), &got); err != nil {
			t.Fatal(err)
		}
		got.ServedAtMs, want.ServedAtMs = 0, 0
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if event != "snapshot" || string(a) != string(b) {
			t.Errorf("%q: stream %s %s\n contract %s", q, event, a, b)
		}
	}
}

// TestStreamBadInput: every refusal is JSON with a snake_case code, before
// any stream opens; a Handler without a stream says so with a 503.
func TestStreamBadInput(t *testing.T) {
	lh := newLiveHall(t, true)
	for _, tc := range []struct {
		query, code string
		status      int
	}{
		{"brain=/srv/unknown", "unknown_brain", 404},
		{"brain=rel", "invalid_brain", 400},
		{"presence_id=PRS_X", "invalid_presence_id", 400},
		{"collisions_only=yes", "invalid_collisions_only", 400},
	} {
		resp, err := http.Get(lh.srv.URL + "/api/presences/stream?" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		var e contract.ErrorResponse
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != tc.status || e.Error != tc.code {
			t.Errorf("%s: got %d %q, want %d %q", tc.query, resp.StatusCode, e.Error, tc.status, tc.code)
		}
	}
	if got := lh.hub.Stats().Subscribed; got != 0 {
		t.Errorf("refused requests subscribed %d times, want 0", got)
	}

	bare := newLiveHall(t, false)
	resp, err := http.Get(bare.srv.URL + "/api/presences/stream")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("no stream wired: got %d, want 503", resp.StatusCode)
	}
}

// TestStreamUnreadableRegistry: with the registry gone the stream still
// opens, for a brain too, and its snapshot says what the contract says.
func TestStreamUnreadableRegistry(t *testing.T) {
	lh := newLiveHall(t, true)
	lh.beat(t, "a-1", "/srv/known")
	if err := os.RemoveAll(filepath.Join(lh.root, "presences")); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, 15*time.Second, "the contract to report the registry unreadable", func() bool {
		_, c := lh.get(t, "/api/presences", nil)
		return c.Error == "registry_unreadable"
	})
	resp, event, data := lh.firstEvent(t, "/api/presences/stream?brain=/srv/known")
	if resp.StatusCode != http.StatusOK || event != "snapshot" || !strings.Contains(data, `"error":"registry_unreadable"`) {
		t.Errorf("stream over an unreadable registry: %d %s %s", resp.StatusCode, event, data)
	}
}
