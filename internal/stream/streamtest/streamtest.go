// Package streamtest is the live stream's test kit: a Follower that follows
// a Hall's stream with the real client and rebuilds the roster from it, as
// every live client does, and a stalled client that subscribes and never
// reads. Every package's stream tests follow and stall through it.
package streamtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/stream"
)

// Patience bounds each wait for an event: generous for a loaded 2-core
// machine under -race, never a measure of speed. A passing test never
// waits it out.
const Patience = 30 * time.Second

// Item is one event a Follower received and what it changed in the view.
type Item struct {
	Event  stream.Event
	Change stream.Change
}

// Follower follows a stream with the real stream.Client (reconnecting and
// resuming by itself) and folds every event into its View as it arrives.
// The test reads the events, in order, with Next, Until and Drain; they
// queue without bound until read, so the client never waits on the test.
type Follower struct {
	client *stream.Client
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	view    stream.View
	queue   []Item
	discard bool
	drops   int
	arrived chan struct{} // a token when the queue grows
}

// Follow starts following the stream at u (query included) from lastID
// ("" for a snapshot), until the test ends or Stop. opts adjust the client
// before it starts (its HTTP client, say).
func Follow(tb testing.TB, u, lastID string, opts ...func(*stream.Client)) *Follower {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &Follower{cancel: cancel, done: make(chan struct{}), arrived: make(chan struct{}, 1)}
	f.client = &stream.Client{URL: u, LastEventID: lastID, MinWait: 10 * time.Millisecond, MaxWait: 100 * time.Millisecond,
		OnDisconnect: func(error, time.Duration) { f.mu.Lock(); f.drops++; f.mu.Unlock() }}
	for _, o := range opts {
		o(f.client)
	}
	go func() {
		defer close(f.done)
		_ = f.client.Follow(ctx, func(ev stream.Event) error {
			f.mu.Lock()
			ch := f.view.Apply(ev)
			if !f.discard {
				f.queue = append(f.queue, Item{ev, ch})
			}
			f.mu.Unlock()
			select {
			case f.arrived <- struct{}{}:
			default:
			}
			return nil
		})
	}()
	tb.Cleanup(func() { f.Stop() })
	return f
}

// next pops the oldest unread item, waiting until deadline for one.
func (f *Follower) next(deadline <-chan time.Time) (Item, bool) {
	for {
		f.mu.Lock()
		if len(f.queue) > 0 {
			it := f.queue[0]
			f.queue[0] = Item{}
			f.queue = f.queue[1:]
			f.mu.Unlock()
			return it, true
		}
		f.mu.Unlock()
		select {
		case <-f.arrived:
		case <-deadline:
			return Item{}, false
		}
	}
}

// Next returns the next unread event.
func (f *Follower) Next(tb testing.TB, what string) stream.Event {
	tb.Helper()
	it, ok := f.next(time.After(Patience))
	if !ok {
		tb.Fatalf("timed out after %s waiting for %s", Patience, what)
	}
	return it.Event
}

// NextBefore returns the next unread event, or false once deadline fires
// first: for a test that says itself what it was waiting for.
func (f *Follower) NextBefore(deadline <-chan time.Time) (stream.Event, bool) {
	it, ok := f.next(deadline)
	return it.Event, ok
}

// Until reads events until cond holds for the change one of them made,
// and returns that change.
func (f *Follower) Until(tb testing.TB, what string, cond func(stream.Change) bool) stream.Change {
	tb.Helper()
	deadline := time.After(Patience)
	for {
		it, ok := f.next(deadline)
		if !ok {
			tb.Fatalf("timed out after %s waiting on the stream for %s; view now %+v", Patience, what, f.Response())
		}
		if cond(it.Change) {
			return it.Change
		}
	}
}

// UntilView reads events until cond holds for the rebuilt roster, looking
// now and after each. The events that view already holds are read once it
// does, so a later Until starts after them and never sees, as news, a
// change the view had before cond held.
func (f *Follower) UntilView(tb testing.TB, what string, cond func(contract.PresencesResponse) bool) {
	tb.Helper()
	deadline := time.After(Patience)
	for {
		f.mu.Lock()
		view, held := f.view.Response(), len(f.queue)
		f.mu.Unlock()
		if cond(view) {
			f.mu.Lock()
			held = min(held, len(f.queue))
			clear(f.queue[:held])
			f.queue = f.queue[held:]
			f.mu.Unlock()
			return
		}
		select {
		case <-f.arrived:
		case <-deadline:
			tb.Fatalf("timed out after %s waiting on the stream for %s; view now %+v", Patience, what, f.Response())
		}
	}
}

// Drain reads every event that has arrived, without waiting, and returns
// what each changed.
func (f *Follower) Drain() []stream.Change {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]stream.Change, len(f.queue))
	for i, it := range f.queue {
		out[i] = it.Change
	}
	f.queue = nil
	return out
}

// Arrived receives a token when events arrive (one for several that
// arrive together), for a test that reads them with Drain as they come.
func (f *Follower) Arrived() <-chan struct{} { return f.arrived }

// Discard stops queuing events for the test to read (the view still
// follows them): for a follower a test only keeps connected.
func (f *Follower) Discard() {
	f.mu.Lock()
	f.discard, f.queue = true, nil
	f.mu.Unlock()
}

// Response is the roster rebuilt from every event received so far, as
// GET /api/presences serves it (served_at_ms aside).
func (f *Follower) Response() contract.PresencesResponse {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.view.Response()
}

// Drops counts the connections that ended and were retried.
func (f *Follower) Drops() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.drops
}

// Stop ends the follower and returns the last event id it saw, where a
// new follower resumes. Events not yet read stay readable.
func (f *Follower) Stop() string {
	f.cancel()
	<-f.done
	return f.client.LastEventID
}

// Stalled opens the stream at u (query included) over raw TCP and never
// reads a byte of it: a subscriber whose socket fills. It closes when the
// test ends.
func Stalled(tb testing.TB, u string) net.Conn {
	tb.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		tb.Fatalf("stream URL %q: %v", u, err)
	}
	c, err := net.Dial("tcp", pu.Host)
	if err != nil {
		tb.Fatal(err)
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", pu.RequestURI(), pu.Host)
	tb.Cleanup(func() { c.Close() })
	return c
}
