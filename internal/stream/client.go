package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	sse "github.com/r3labs/sse/v2"

	"github.com/hall-dev/hall/internal/contract"
)

// Event is one event a Client received: a snapshot or a diff.
type Event struct {
	ID       string
	Snapshot *contract.PresencesResponse // event "snapshot"
	Diff     *contract.Diff              // event "diff"
	Data     []byte                      // the event's JSON as the Hall sent it
}

// Client follows a Hall's stream: it connects, hands every snapshot and
// diff to its caller, and when the connection ends it reconnects with
// backoff, sending the last event id it saw so the Hall resumes it
// (exactly the missed diffs) or sends a fresh snapshot.
//
// r3labs/sse's Client is not used: it ends for good when the server closes
// a stream cleanly (as the Hall does for a subscriber that fell behind),
// retries a 404 for ever, and its read goroutine can outlive the call. Its
// framing reader is used, with one guard: a frame cut by a dropped
// connection is never taken for an event.
type Client struct {
	// URL is the stream's address, query included:
	// http://127.0.0.1:7433/api/presences/stream?brain=/home/ana/shop
	URL string
	// LastEventID is where to start (a cursor from GET /api/presences, say),
	// and after Follow returns, the last event id seen.
	LastEventID string
	Token       string       // sent as a bearer token when set
	HTTP        *http.Client // a client without a timeout when nil
	MinWait     time.Duration
	MaxWait     time.Duration // reconnect backoff bounds; 250 ms and 30 s
	// IdleTimeout ends a connection that sent nothing (not even a
	// heartbeat) for this long, so a half-open one is noticed; 45 s.
	IdleTimeout time.Duration
	// OnDisconnect, when set, is told why a connection ended and how long
	// the client waits before the next.
	OnDisconnect func(err error, wait time.Duration)
}

// StatusError is a Hall's refusal of the stream itself: a 4xx, which no
// retry would change (an unknown brain, a malformed parameter).
type StatusError struct {
	Status int
	Code   string // the {"error"} code, when the body had one
	Detail string
}

func (e *StatusError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("hall answered %d %s: %s", e.Status, e.Code, e.Detail)
	}
	return fmt.Sprintf("hall answered %d %s", e.Status, http.StatusText(e.Status))
}

// maxEventBytes bounds one event: a snapshot of a large roster is the
// biggest, a few hundred KiB.
const maxEventBytes = 64 << 20

// Follow calls handle for each event until ctx ends (nil), handle returns
// an error (that error), or the Hall refuses the stream (*StatusError).
// handle runs on Follow's goroutine; events arrive in order.
func (c *Client) Follow(ctx context.Context, handle func(Event) error) error {
	minWait, maxWait := c.MinWait, c.MaxWait
	if minWait <= 0 {
		minWait = 250 * time.Millisecond
	}
	if maxWait < minWait {
		maxWait = max(30*time.Second, minWait)
	}
	wait := minWait
	for {
		got, retry, err := c.connect(ctx, handle)
		if ctx.Err() != nil {
			return nil
		}
		var se *StatusError
		var he handlerError
		switch {
		case errors.As(err, &he):
			return he.err
		case errors.As(err, &se):
			return err
		}
		if got {
			// The connection worked: start over from the server's
			// advertised retry, within our bounds.
			wait = min(max(minWait, retry), maxWait)
		}
		sleep := wait/2 + rand.N(wait/2+1) // jitter spreads a herd of reconnects
		var busy retryAfterError
		if errors.As(err, &busy) && sleep < busy.after {
			// The Hall said when to come back (a full Hall's 503): not
			// before, and spread over half as long again.
			sleep = busy.after + rand.N(busy.after/2+1)
		}
		if c.OnDisconnect != nil {
			c.OnDisconnect(err, sleep)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(sleep):
		}
		wait = min(wait*2, maxWait)
	}
}

// handlerError carries the caller's own error out of connect.
type handlerError struct{ err error }

func (e handlerError) Error() string { return e.err.Error() }

// connect runs one connection. It reports whether any event arrived, the
// server's advertised retry delay, and why the connection ended.
func (c *Client) connect(ctx context.Context, handle func(Event) error) (bool, time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL, nil)
	if err != nil {
		return false, 0, &StatusError{Status: 0, Code: "invalid_url", Detail: err.Error()}
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	if c.LastEventID != "" {
		req.Header.Set("Last-Event-ID", c.LastEventID)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return false, 0, fmt.Errorf("connect %s: %w", c.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, 0, statusError(resp)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return false, 0, &StatusError{Status: resp.StatusCode, Code: "not_a_stream", Detail: "content type " + resp.Header.Get("Content-Type")}
	}

	idle := c.IdleTimeout
	if idle <= 0 {
		idle = 45 * time.Second
	}
	var idled atomic.Bool
	watchdog := time.AfterFunc(idle, func() { idled.Store(true); cancel() })
	defer watchdog.Stop()

	reader := sse.NewEventStreamReader(resp.Body, maxEventBytes)
	var got bool
	var retry time.Duration
	for {
		raw, err := reader.ReadEvent()
		if err != nil || ctx.Err() != nil {
			switch {
			case idled.Load():
				err = fmt.Errorf("nothing received for %s", idle)
			case err == nil || errors.Is(err, io.EOF):
				err = errors.New("stream ended")
			}
			return got, retry, err
		}
		watchdog.Reset(idle)
		f := parseFrame(raw)
		if f.retry > 0 {
			retry = f.retry
		}
		ev, ok, err := f.event()
		if err != nil {
			// A frame cut short by a dropped connection: drop the
			// connection too, and resume from the last whole event.
			return got, retry, err
		}
		if !ok {
			continue
		}
		got = true
		c.LastEventID = ev.ID
		if err := handle(ev); err != nil {
			return got, retry, handlerError{err}
		}
	}
}

func statusError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var e contract.ErrorResponse
	_ = json.Unmarshal(body, &e)
	se := &StatusError{Status: resp.StatusCode, Code: e.Error, Detail: e.Detail}
	if resp.StatusCode >= 400 && resp.StatusCode < 500 &&
		resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests {
		return se
	}
	// 5xx, 408, 429: worth retrying, after Retry-After seconds when the
	// Hall says so.
	secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	return retryAfterError{msg: se.Error(), after: time.Duration(min(max(secs, 0), 3600)) * time.Second}
}

// retryAfterError is a refusal worth retrying, after at least after.
type retryAfterError struct {
	msg   string
	after time.Duration
}

func (e retryAfterError) Error() string { return e.msg }

// frame is one SSE block's fields.
type frame struct {
	id, name string
	data     []byte
	hasData  bool
	retry    time.Duration
}

// parseFrame reads the fields of one block as the SSE spec says: lines
// "field: value" (one optional space), data lines joined with "\n",
// comments and unknown fields ignored.
func parseFrame(raw []byte) frame {
	var f frame
	for _, line := range bytes.FieldsFunc(raw, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if len(line) == 0 || line[0] == ':' {
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "id":
			f.id = string(value)
		case "event":
			f.name = string(value)
		case "data":
			if f.hasData {
				f.data = append(f.data, '\n')
			}
			f.data = append(f.data, value...)
			f.hasData = true
		case "retry":
			if ms, err := strconv.Atoi(string(value)); err == nil && ms >= 0 {
				f.retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	return f
}

// event decodes a snapshot or diff. Blocks that are not one (a retry line,
// a heartbeat, an event this client does not know) are skipped; a known
// event that does not decode is an error: it was cut short.
func (f frame) event() (Event, bool, error) {
	if !f.hasData || f.id == "" {
		return Event{}, false, nil
	}
	ev := Event{ID: f.id, Data: f.data}
	switch f.name {
	case "snapshot":
		ev.Snapshot = &contract.PresencesResponse{}
		if err := json.Unmarshal(f.data, ev.Snapshot); err != nil {
			return Event{}, false, fmt.Errorf("snapshot %s cut short: %w", f.id, err)
		}
	case "diff":
		ev.Diff = &contract.Diff{}
		if err := json.Unmarshal(f.data, ev.Diff); err != nil {
			return Event{}, false, fmt.Errorf("diff %s cut short: %w", f.id, err)
		}
	default:
		return Event{}, false, nil
	}
	return ev, true, nil
}
