package sock

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"
	"time"
)

// patience bounds a wait for what must happen at once: a passing run never
// waits it out.
const patience = 20 * time.Second

// TestServeAStreamEndedBeforeItsStart: a stream ended between its
// subscription and Serve (the hub drops a subscriber that falls Buffer
// frames behind before its first events are written) closes its
// connection at once. It once hijacked the connection and left it open
// and silent, so its client waited for a response that never came.
func TestServeAStreamEndedBeforeItsStart(t *testing.T) {
	p := NewPool(Config{Buffer: 1, WriteTimeout: time.Second, Log: slog.New(slog.DiscardHandler)}, func(*Stream) {})
	p.Start()
	t.Cleanup(p.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := p.NewStream()
		p.End(s) // dropped before it is served
		w.Header().Set("Content-Type", "text/event-stream")
		p.Serve(r.Context(), w, s, [][]byte{[]byte("retry: 10\n\n")})
	}))
	t.Cleanup(srv.Close)

	u, _ := url.Parse(srv.URL)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", u.Host)
	_ = c.SetReadDeadline(time.Now().Add(patience))
	got, err := io.ReadAll(bufio.NewReader(c))
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		t.Fatalf("the connection of an ended stream stayed open (read %q)", got)
	case err != nil:
		t.Fatalf("read: %v", err)
	case len(got) != 0:
		t.Errorf("an ended stream wrote %q, want nothing", got)
	}
}
