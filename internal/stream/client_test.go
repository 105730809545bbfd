package stream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/stream"
)

// scriptedStream answers each connection with the next script entry, and
// records the Last-Event-ID each connection sent. It stands in for a Hall
// only where a test needs wire conditions the real one never produces on
// purpose (a frame cut in half).
type scriptedStream struct {
	mu      sync.Mutex
	scripts []string
	lastIDs []string
}

func (s *scriptedStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.lastIDs = append(s.lastIDs, r.Header.Get("Last-Event-ID"))
	n := len(s.lastIDs) - 1
	var script string
	if n < len(s.scripts) {
		script = s.scripts[n]
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, script)
	if n >= len(s.scripts) {
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the last connection stays open
	}
}

func (s *scriptedStream) ids() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lastIDs...)
}

// TestClientResumesAfterCleanEndAndCutFrame: a stream the server ends
// cleanly is reconnected (r3labs/sse's client gives up there), and a frame
// cut by the drop is not taken for an event: the reconnect resumes from the
// last whole one.
func TestClientResumesAfterCleanEndAndCutFrame(t *testing.T) {
	s := &scriptedStream{scripts: []string{
		"retry: 10\n\nid: 1\nevent: snapshot\ndata: {\"presences\":[],\"collisions\":[],\"served_at_ms\":1}\n\n",
		"id: 2\nevent: diff\ndata: {\"seq\":2,\"joins\":[],\"updates\":[],\"leaves\":[],\"collisions_opened\":[],\"collisions_closed\":[]}\n\nid: 3\nevent: diff\ndata: {\"seq\":3,\"jo",
		"id: 3\nevent: diff\ndata: {\"seq\":3,\"joins\":[],\"updates\":[],\"leaves\":[],\"collisions_opened\":[],\"collisions_closed\":[]}\n\n",
	}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := &stream.Client{URL: srv.URL, MinWait: 5 * time.Millisecond, MaxWait: 20 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var got []string
	err := c.Follow(ctx, func(ev stream.Event) error {
		got = append(got, ev.ID)
		if ev.ID == "3" {
			return errors.New("done")
		}
		return nil
	})
	if err == nil || err.Error() != "done" {
		t.Fatalf("Follow: got %v, want the handler's own error back", err)
	}
	if fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("events: got %v, want [1 2 3], each once", got)
	}
	if ids := s.ids(); fmt.Sprint(ids) != "[ 1 2]" {
		t.Errorf("Last-Event-ID per connection: got %q, want none, then 1, then 2", ids)
	}
	if c.LastEventID != "3" {
		t.Errorf("LastEventID after: got %q, want 3", c.LastEventID)
	}
}

// TestClientGivesUpOnRefusal: a 4xx is an answer, not an outage: Follow
// returns it with the Hall's code at once instead of retrying for ever.
func TestClientGivesUpOnRefusal(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":"unknown_brain","detail":"the Hall knows no brain \"/x\""}`)
	}))
	defer srv.Close()
	c := &stream.Client{URL: srv.URL, MinWait: time.Millisecond}
	err := c.Follow(context.Background(), func(stream.Event) error { return nil })
	var se *stream.StatusError
	if !errors.As(err, &se) || se.Status != 404 || se.Code != "unknown_brain" {
		t.Fatalf("got %v, want a 404 unknown_brain StatusError", err)
	}
	if calls != 1 {
		t.Errorf("requests: got %d, want 1", calls)
	}
}

// TestClientRetriesOutages: a 503 (a Hall shutting down) is retried until
// the stream comes back.
func TestClientRetriesOutages(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: 7\nevent: snapshot\ndata: {\"presences\":[],\"collisions\":[],\"served_at_ms\":1}\n\n")
	}))
	defer srv.Close()
	c := &stream.Client{URL: srv.URL, MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	stop := errors.New("stop")
	if err := c.Follow(ctx, func(ev stream.Event) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("got %v, want the stream after two 503s", err)
	}
}

// TestClientEndsWithContext: cancelling the context ends Follow with nil,
// and leaves no goroutine reading.
func TestClientEndsWithContext(t *testing.T) {
	th := newTestHall(t, stream.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	c := &stream.Client{URL: th.srv.URL}
	done := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		done <- c.Follow(ctx, func(stream.Event) error {
			select {
			case <-started:
			default:
				close(started)
			}
			return nil
		})
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Follow after cancel: got %v, want nil", err)
		}
	case <-time.After(wait):
		t.Fatal("Follow did not end with its context")
	}
}

// TestClientNoticesASilentStream: a connection that sends nothing, not
// even a heartbeat, for IdleTimeout is taken for dead and replaced.
func TestClientNoticesASilentStream(t *testing.T) {
	s := &scriptedStream{} // for its record of Last-Event-IDs
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.lastIDs = append(s.lastIDs, r.Header.Get("Last-Event-ID"))
		n := len(s.lastIDs)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "id: %d\nevent: snapshot\ndata: {\"presences\":[],\"collisions\":[],\"served_at_ms\":1}\n\n", n)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // then silence
	}))
	defer srv.Close()
	var reasons []string
	c := &stream.Client{URL: srv.URL, IdleTimeout: 50 * time.Millisecond, MinWait: time.Millisecond, MaxWait: 2 * time.Millisecond,
		OnDisconnect: func(err error, _ time.Duration) { reasons = append(reasons, err.Error()) }}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	err := c.Follow(ctx, func(ev stream.Event) error {
		if ev.ID == "2" {
			return errors.New("second connection")
		}
		return nil
	})
	if err == nil || err.Error() != "second connection" {
		t.Fatalf("Follow: got %v, want a second connection after the silence", err)
	}
	if len(reasons) != 1 || reasons[0] != "nothing received for 50ms" {
		t.Errorf("disconnect reasons: got %q", reasons)
	}
	if ids := s.ids(); fmt.Sprint(ids) != "[ 1]" {
		t.Errorf("Last-Event-ID per connection: got %q, want none, then 1", ids)
	}
}
