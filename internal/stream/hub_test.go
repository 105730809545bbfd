package stream_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// wait bounds "it eventually happens": generous for a loaded 2-core machine
// under -race, never a measure of speed.
const wait = 20 * time.Second

// testHall is a real presence service over a temp registry, followed by a
// hub, served on 127.0.0.1:0.
type testHall struct {
	store *dirstore.Store
	svc   *presence.Service
	hub   *stream.Hub
	srv   *httptest.Server
}

func newTestHall(tb testing.TB, cfg stream.Config) *testHall {
	tb.Helper()
	return newTestHallWith(tb, cfg, presence.Config{TTL: time.Hour})
}

// newTestHallWith is newTestHall with the service configured by svcCfg.
func newTestHallWith(tb testing.TB, cfg stream.Config, svcCfg presence.Config) *testHall {
	tb.Helper()
	store := dirstoretest.Open(tb)
	log := slog.New(slog.DiscardHandler)
	svcCfg.Logger = log
	svc := presence.NewService(store, svcCfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = svc.Run(ctx, presence.RunConfig{})
	}()
	cfg.Log = log
	hub := stream.NewHub(svc, cfg)
	hub.Start(ctx)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		hub.ServeStream(w, r, stream.Filter{Brain: q.Get("brain"), PresenceID: q.Get("presence_id"), CollisionsOnly: q.Get("collisions_only") == "1"})
	}))
	tb.Cleanup(func() {
		hub.Close()
		srv.Close()
		cancel()
		<-done
	})
	return &testHall{store: store, svc: svc, hub: hub, srv: srv}
}

// beat takes one in-process beat and brings the hub up to date, so each
// call is one diff.
func (th *testHall) beat(tb testing.TB, b presence.Beat) {
	tb.Helper()
	if _, err := th.svc.Beat(context.Background(), b); err != nil {
		tb.Fatal(err)
	}
	if _, err := th.hub.Snapshot(context.Background()); err != nil {
		tb.Fatal(err)
	}
}

// TestHubMemoryFlatAcross100kDiffs: the history is bounded and nothing else
// accumulates, however many diffs a run emits.
func TestHubMemoryFlatAcross100kDiffs(t *testing.T) {
	th := newTestHall(t, stream.Config{History: 512})
	f := streamtest.Follow(t, th.srv.URL, "")
	f.Next(t, "the snapshot")
	f.Discard() // kept connected; its events are not read

	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	b := presence.Beat{AgentID: "busy-1", Brain: "/srv/mem", Theme: "warm up"}
	const total, warm = 100_000, 10_000
	var at10k uint64
	for i := 1; i <= total; i++ {
		b.Tool = fmt.Sprintf("t%d", i%10) // a changing beat, so each is a diff
		th.beat(t, b)
		if i == warm {
			at10k = heap()
		}
	}
	if got := th.hub.Stats().Seq; got < total {
		t.Fatalf("diffs emitted: got %d, want %d", got, total)
	}
	end := heap()
	t.Logf("heap in use: %d KiB after %d diffs, %d KiB after %d", at10k>>10, warm, end>>10, total)
	// Flat: 90,000 more diffs may not cost more than a few MiB of noise.
	if end > at10k+4<<20 {
		t.Errorf("heap grew from %d KiB to %d KiB over 90,000 diffs: something keeps them", at10k>>10, end>>10)
	}
}

// bigBeat is a beat whose record is ~64 KiB, so a client that does not
// read fills its socket buffers in a few dozen diffs.
func bigBeat(agent string) presence.Beat {
	ws := make([]string, presence.MaxWorkingSetLen)
	for i := range ws {
		ws[i] = fmt.Sprintf("/srv/big/%02d/%s", i, strings.Repeat("x", presence.MaxPathLen-20))
	}
	return presence.Beat{AgentID: agent, Brain: "/srv/big", WorkingSet: ws}
}

// TestHubStalledSubscriberDoesNotDelayOthers: a client that never reads is
// dropped when its queue fills; another subscriber receives every diff,
// in lockstep with the writer, before, while and after it is stuck.
func TestHubStalledSubscriberDoesNotDelayOthers(t *testing.T) {
	th := newTestHall(t, stream.Config{Buffer: 4})
	healthy := streamtest.Follow(t, th.srv.URL, "")
	healthy.Next(t, "the snapshot")
	streamtest.Stalled(t, th.srv.URL)
	eventually.True(t, wait, "the stalled client to subscribe", func() bool { return th.hub.Stats().Subscribers == 2 })

	b := bigBeat("big-1")
	var seq uint64
	step := func() {
		b.Tool = fmt.Sprintf("t%d", seq%10)
		// A hub that waited on the stalled subscriber would block here.
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			_, _ = th.svc.Beat(context.Background(), b)
			_, _ = th.hub.Snapshot(context.Background())
		}()
		select {
		case <-wrote:
		case <-time.After(wait):
			t.Fatalf("diff %d: the writer is stuck behind the stalled subscriber", seq+1)
		}
		ev := healthy.Next(t, fmt.Sprintf("diff %d at the healthy subscriber", seq+1))
		if ev.Diff == nil || ev.Diff.Seq != seq+1 {
			t.Fatalf("healthy subscriber: got %+v, want diff %d", ev, seq+1)
		}
		seq++
	}
	// Write until the stalled one is cut off; its socket buffers hold a few
	// MiB, so that takes some dozens of 64 KiB diffs, never thousands.
	for th.hub.Stats().Dropped == 0 {
		if seq > 5000 {
			t.Fatal("the stalled subscriber was never dropped")
		}
		step()
	}
	for i := 0; i < 10; i++ {
		step()
	}
	st := th.hub.Stats()
	if st.Subscribers != 1 || st.Dropped != 1 {
		t.Errorf("after the stall: %d subscribers, %d dropped; want the healthy one left, the stalled one dropped", st.Subscribers, st.Dropped)
	}
	if d := healthy.Drops(); d != 0 {
		t.Errorf("the healthy subscriber was disconnected %d times, want 0", d)
	}
	t.Logf("stalled subscriber dropped after %d diffs of ~64 KiB", seq-10)
}

// gate holds a client's reads while closed: a subscriber that stops
// reading its socket, then reads again.
type gate struct {
	mu   sync.Mutex
	open chan struct{} // closed while reads may go on
}

func newGate() *gate {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gate) pause() {
	g.mu.Lock()
	g.open = make(chan struct{})
	g.mu.Unlock()
}

func (g *gate) resume() {
	g.mu.Lock()
	close(g.open)
	g.mu.Unlock()
}

func (g *gate) wait() {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	<-open
}

// client makes a stream client read through the gate.
func (g *gate) client(c *stream.Client) {
	dial := (&net.Dialer{}).DialContext
	c.HTTP = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return gatedConn{conn, g}, nil
	}}}
}

type gatedConn struct {
	net.Conn
	g *gate
}

func (c gatedConn) Read(b []byte) (int, error) {
	c.g.wait()
	return c.Conn.Read(b)
}

// TestHubSlowSubscriberResumes: a subscriber too slow for its queue is
// dropped; its client reconnects with Last-Event-ID and resumes from the
// history, so it still sees every diff once, in order. The subscriber is
// made slow for certain: it stops reading while ~64 KiB diffs fill its
// socket, so the hub must drop it, then reads again.
func TestHubSlowSubscriberResumes(t *testing.T) {
	th := newTestHall(t, stream.Config{Buffer: 1})
	g := newGate()
	f := streamtest.Follow(t, th.srv.URL, "", g.client)
	f.Next(t, "the snapshot")

	b := bigBeat("big-1")
	var n uint64
	beat := func() {
		n++
		b.Tool = fmt.Sprintf("t%d", n%10)
		th.beat(t, b)
	}
	g.pause()
	// Its socket buffers hold a few MiB: some dozens of diffs, never
	// thousands, fill them.
	for th.hub.Stats().Dropped == 0 {
		if n > 5000 {
			t.Fatal("the subscriber that stopped reading was never dropped")
		}
		beat()
	}
	for range 10 { // while it is away
		beat()
	}
	g.resume()
	for range 10 { // once it is back
		beat()
	}
	for seq := uint64(1); seq <= n; seq++ {
		ev := f.Next(t, fmt.Sprintf("diff %d", seq))
		if ev.Snapshot != nil {
			t.Fatalf("after diff %d: a snapshot; the history should have resumed it", seq-1)
		}
		if ev.Diff.Seq != seq {
			t.Fatalf("got diff %d after %d: lost or repeated", ev.Diff.Seq, seq-1)
		}
	}
	st := th.hub.Stats()
	t.Logf("slow subscriber: %d diffs, %d drops, %d resumes", n, st.Dropped, st.Resumed)
	if st.Resumed == 0 || f.Drops() == 0 {
		t.Errorf("the dropped subscriber never resumed (stats %+v, %d reconnects)", st, f.Drops())
	}
}

// TestHubHistoryIsBounded: a client further behind than the history gets a
// snapshot; one within it gets exactly the diffs after its id, never the one
// it last saw.
func TestHubHistoryIsBounded(t *testing.T) {
	th := newTestHall(t, stream.Config{History: 4})
	first := streamtest.Follow(t, th.srv.URL, "")
	snap := first.Next(t, "the snapshot")
	ids := []string{snap.ID}
	b := presence.Beat{AgentID: "a-1", Brain: "/srv/h"}
	for i := 0; i < 10; i++ {
		b.Tool = fmt.Sprintf("t%d", i)
		th.beat(t, b)
		ids = append(ids, first.Next(t, "a diff").ID)
	}
	for _, tc := range []struct {
		from     int // index into ids: 0 is the snapshot, k is diff k
		snapshot bool
		firstSeq uint64
	}{
		{0, true, 0}, {5, true, 0}, {6, false, 7}, {9, false, 10},
	} {
		f := streamtest.Follow(t, th.srv.URL, ids[tc.from])
		ev := f.Next(t, "the first event")
		switch {
		case tc.snapshot && ev.Snapshot == nil:
			t.Errorf("from diff %d with 4 kept: got %+v, want a snapshot", tc.from, ev.Diff)
		case !tc.snapshot && (ev.Diff == nil || ev.Diff.Seq != tc.firstSeq):
			t.Errorf("from diff %d: got %+v, want diff %d", tc.from, ev, tc.firstSeq)
		}
		f.Stop()
	}
	// From the newest id: nothing to replay, and the next diff is next.
	f := streamtest.Follow(t, th.srv.URL, ids[10])
	b.Tool = "last"
	th.beat(t, b)
	if ev := f.Next(t, "diff 11"); ev.Diff == nil || ev.Diff.Seq != 11 {
		t.Errorf("from the newest id: got %+v, want diff 11 and nothing before it", ev)
	}
}

// TestHubRefusesAfterClose: a stream asked for after Close is a 503 JSON,
// not a hang.
func TestHubRefusesAfterClose(t *testing.T) {
	th := newTestHall(t, stream.Config{})
	th.hub.Close()
	resp, err := http.Get(th.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after Close: got %d, want 503", resp.StatusCode)
	}
	// The roster still answers, without a cursor.
	if _, cur, err := th.hub.SnapshotCursor(context.Background()); err != nil || cur != "" {
		t.Errorf("after Close: cursor %q err %v, want no cursor and no error", cur, err)
	}
}

// TestHubHeartbeat: an idle stream carries a comment line each interval.
func TestHubHeartbeat(t *testing.T) {
	th := newTestHall(t, stream.Config{Heartbeat: 20 * time.Millisecond})
	resp, err := http.Get(th.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 0, 1<<16)
	deadline := time.Now().Add(wait)
	for strings.Count(string(buf), ": heartbeat\n\n") < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("no three heartbeats in %q", buf)
		}
		tmp := make([]byte, 4096)
		n, err := resp.Body.Read(tmp)
		if err != nil {
			t.Fatal(err)
		}
		buf = append(buf, tmp[:n]...)
	}
}

// TestHubCloseEndsStreamsForShutdown: Close ends every stream, including
// one whose handler is blocked writing to a client that stopped reading,
// so http.Server.Shutdown completes at once instead of waiting on them.
func TestHubCloseEndsStreamsForShutdown(t *testing.T) {
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Logger: slog.New(slog.DiscardHandler), TTL: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); _ = svc.Run(ctx, presence.RunConfig{}) }()
	// Run flushes held beats as it returns: wait for it before the temp
	// folder is removed.
	defer func() { cancel(); <-ran }()
	// A queue long enough that the stalled subscriber is never dropped:
	// its handler stays blocked in a write until Close.
	hub := stream.NewHub(svc, stream.Config{Buffer: 100_000, WriteTimeout: time.Hour, Log: slog.New(slog.DiscardHandler)})
	hub.Start(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hub.ServeStream(w, r, stream.Filter{}) })}
	go srv.Serve(ln)
	base := "http://" + ln.Addr().String()

	healthy := streamtest.Follow(t, base, "")
	healthy.Next(t, "the snapshot")
	streamtest.Stalled(t, base)
	eventually.True(t, wait, "the stalled client to subscribe", func() bool { return hub.Stats().Subscribers == 2 })
	b := bigBeat("big-1")
	for i := 0; i < 200; i++ { // ~12 MiB: more than the stalled socket holds
		b.Tool = fmt.Sprintf("t%d", i%10)
		if _, err := svc.Beat(ctx, b); err != nil {
			t.Fatal(err)
		}
		if _, err := hub.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
		healthy.Next(t, "a diff")
	}
	if hub.Stats().Dropped != 0 {
		t.Fatal("the stalled subscriber was dropped: the test needs it blocked")
	}

	start := time.Now()
	hub.Close()
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil {
		t.Errorf("shutdown with open streams: %v after %s, want done within 2s", err, time.Since(start))
	}
}

// TestHubNoSpuriousLeaves: beats taken while the service re-reads the store
// (each beat's own write sets off a read) never flicker out of the stream:
// 300 presences join, none leaves.
func TestHubNoSpuriousLeaves(t *testing.T) {
	th := newTestHall(t, stream.Config{})
	f := streamtest.Follow(t, th.srv.URL, "")
	f.Next(t, "the snapshot")
	const n = 300
	for i := 0; i < n; i++ {
		th.beat(t, presence.Beat{AgentID: fmt.Sprintf("a-%03d", i), Brain: "/srv/flicker"})
	}
	th.beat(t, presence.Beat{AgentID: "marker", Brain: "/srv/flicker"})
	marker := presence.ID("marker", "/srv/flicker")
	leaves := 0
	for seen := false; !seen; {
		ev := f.Next(t, "the marker's join")
		leaves += len(ev.Diff.Leaves)
		for _, p := range ev.Diff.Joins {
			seen = seen || p.PresenceID == marker
		}
	}
	if leaves != 0 {
		t.Errorf("%d presences left the stream that never left the store", leaves)
	}
	if snap, _ := th.hub.Snapshot(context.Background()); len(snap.Live) != n+1 {
		t.Errorf("roster: got %d, want %d", len(snap.Live), n+1)
	}
}

// TestHubQuietRosterIsServedFresh: reads of a roster that did not change
// reuse it under the same cursor, but stamped with the time they are
// served at; a ttl running out changes it though nothing signalled.
func TestHubQuietRosterIsServedFresh(t *testing.T) {
	store := dirstoretest.Open(t)
	clock := presencetest.NewClock(presencetest.T0)
	svc := presence.NewService(store, presence.Config{Now: clock.Now, TTL: time.Minute, Logger: slog.New(slog.DiscardHandler)})
	ctx := context.Background()
	hub := stream.NewHub(svc, stream.Config{Log: slog.New(slog.DiscardHandler)})
	hub.Start(ctx)
	defer hub.Close()
	if _, err := svc.Beat(ctx, presence.Beat{AgentID: "a-1", Brain: "/srv/q"}); err != nil {
		t.Fatal(err)
	}
	snap1, cur1, err := hub.SnapshotCursor(ctx)
	if err != nil || len(snap1.Live) != 1 {
		t.Fatalf("after a beat: %d live, err %v", len(snap1.Live), err)
	}
	clock.Advance(10 * time.Second)
	snap2, cur2, _ := hub.SnapshotCursor(ctx)
	if cur2 != cur1 || len(snap2.Live) != 1 || snap2.AtMs != clock.Now().UnixMilli() {
		t.Errorf("quiet roster 10 s later: cursor %s→%s, %d live, served at %d; want the same cursor and roster, served at %d",
			cur1, cur2, len(snap2.Live), snap2.AtMs, clock.Now().UnixMilli())
	}
	clock.Advance(time.Minute) // past the ttl: no file changed, nothing signalled
	snap3, cur3, _ := hub.SnapshotCursor(ctx)
	if cur3 == cur2 || len(snap3.Live) != 0 {
		t.Errorf("after the ttl: cursor %s→%s, %d live; want a new cursor and nobody", cur2, cur3, len(snap3.Live))
	}
}

// TestHubStreamOutlivesItsWriteTimeout: the write timeout bounds one
// blocked write, not a stream's life: a stream open for several timeouts,
// whose client keeps up, still gets every diff.
func TestHubStreamOutlivesItsWriteTimeout(t *testing.T) {
	const timeout = 100 * time.Millisecond
	th := newTestHall(t, stream.Config{WriteTimeout: timeout})
	f := streamtest.Follow(t, th.srv.URL, "")
	f.Next(t, "the snapshot")
	b := presence.Beat{AgentID: "long-1", Brain: "/srv/long"}
	for i := 1; i <= 3; i++ {
		time.Sleep(3 * timeout)
		b.Tool = fmt.Sprintf("t%d", i)
		th.beat(t, b)
		if ev := f.Next(t, fmt.Sprintf("diff %d", i)); ev.Diff == nil || ev.Diff.Seq != uint64(i) {
			t.Fatalf("after %s open: got %+v, want diff %d", time.Duration(i)*3*timeout, ev, i)
		}
	}
	if st := th.hub.Stats(); st.Subscribers != 1 || st.Subscribed != 1 {
		t.Errorf("stats %+v: want the one stream still open, never reconnected", st)
	}
}

// TestHubNoticesClientsLeaving: with no heartbeat or diff to fail a write,
// a client that closes its connection is still let go of (its stream and
// descriptor), while one that sends stray bytes and keeps reading is not.
func TestHubNoticesClientsLeaving(t *testing.T) {
	th := newTestHall(t, stream.Config{Heartbeat: time.Hour})
	chatty := streamtest.Stalled(t, th.srv.URL)
	var leaving []net.Conn
	for i := 0; i < 50; i++ {
		leaving = append(leaving, streamtest.Stalled(t, th.srv.URL))
	}
	eventually.True(t, wait, "51 streams open", func() bool { return th.hub.Stats().Subscribers == 51 })
	if _, err := chatty.Write([]byte("stray bytes on an event stream\n")); err != nil {
		t.Fatal(err)
	}
	for _, c := range leaving {
		c.Close()
	}
	eventually.True(t, wait, "the 50 that left let go of", func() bool { return th.hub.Stats().Subscribers == 1 })

	// The chatty one is still served: a diff reaches it.
	th.beat(t, presence.Beat{AgentID: "after-1", Brain: "/srv/after"})
	_ = chatty.SetReadDeadline(time.Now().Add(wait))
	var got []byte
	buf := make([]byte, 64<<10)
	for !strings.Contains(string(got), "after-1") {
		n, err := chatty.Read(buf)
		if err != nil {
			t.Fatalf("the chatty client, after %d bytes: %v", len(got), err)
		}
		got = append(got, buf[:n]...)
	}
	if st := th.hub.Stats(); st.Subscribers != 1 || st.Dropped != 0 {
		t.Errorf("stats %+v: want the chatty stream kept, none dropped", st)
	}
}

// flushOnly hides everything of a ResponseWriter but writing and flushing,
// as a middleware's wrapper or HTTP/2 does: the stream cannot be hijacked.
type flushOnly struct{ w http.ResponseWriter }

func (f flushOnly) Header() http.Header         { return f.w.Header() }
func (f flushOnly) Write(b []byte) (int, error) { return f.w.Write(b) }
func (f flushOnly) WriteHeader(code int)        { f.w.WriteHeader(code) }
func (f flushOnly) Flush()                      { f.w.(http.Flusher).Flush() }

// TestHubServesThroughAResponseWriter: where the connection cannot be
// hijacked, the stream is served through the ResponseWriter by its
// handler: snapshot, every diff in order, heartbeats, and the handler
// returns when the client leaves.
func TestHubServesThroughAResponseWriter(t *testing.T) {
	th := newTestHall(t, stream.Config{Heartbeat: 50 * time.Millisecond})
	handlers := make(chan struct{}, 64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			select {
			case handlers <- struct{}{}: // a handler returned
			default: // a broken hub makes a follower reconnect without end
			}
		}()
		th.hub.ServeStream(flushOnly{w}, r, stream.Filter{})
	}))
	// Closed after the followers' cleanups (which run first) end their
	// streams: Close waits on the handlers.
	t.Cleanup(srv.Close)

	f := streamtest.Follow(t, srv.URL, "")
	if ev := f.Next(t, "the snapshot"); ev.Snapshot == nil {
		t.Fatalf("first event: got %+v, want a snapshot", ev)
	}
	b := presence.Beat{AgentID: "w-1", Brain: "/srv/w"}
	for i := 1; i <= 20; i++ {
		b.Tool = fmt.Sprintf("t%d", i)
		th.beat(t, b)
		if ev := f.Next(t, fmt.Sprintf("diff %d", i)); ev.Diff == nil || ev.Diff.Seq != uint64(i) {
			t.Fatalf("got %+v, want diff %d", ev, i)
		}
		// On the same stream: not through a reconnect and a resume.
		if drops := f.Drops(); drops != 0 {
			t.Fatalf("diff %d came after %d reconnects, want it on the first stream", i, drops)
		}
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 1<<16)
	for strings.Count(string(buf), ": heartbeat\n\n") < 2 {
		tmp := make([]byte, 4096)
		n, err := resp.Body.Read(tmp)
		if err != nil {
			t.Fatalf("reading for heartbeats: %v after %q", err, buf)
		}
		buf = append(buf, tmp[:n]...)
	}
	resp.Body.Close()
	select {
	case <-handlers:
	case <-time.After(wait):
		t.Fatal("the handler of a stream whose client left never returned")
	}
	f.Stop()
	select {
	case <-handlers:
	case <-time.After(wait):
		t.Fatal("the second handler never returned")
	}
	if st := th.hub.Stats(); st.Subscribers != 0 {
		t.Errorf("stats %+v: want no stream left", st)
	}
}

// heldSource is a source whose snapshots wait for release once held is
// closed: a snapshot that takes long (a store listing, a derivation).
type heldSource struct {
	changed chan struct{}
	entered chan struct{} // a token each time a held snapshot begins
	release chan struct{}
	hold    bool
	mu      sync.Mutex
}

func (s *heldSource) Snapshot(context.Context) (presence.Snapshot, error) {
	s.mu.Lock()
	hold := s.hold
	s.mu.Unlock()
	if hold {
		s.entered <- struct{}{}
		<-s.release
	}
	return presence.Snapshot{}, nil
}
func (s *heldSource) Changed() <-chan struct{} { return s.changed }

// TestHubNotHeldAcrossASnapshot: while the hub's sync waits on the
// source's snapshot, what needs only the hub's own state (its counters, a
// stream's end, a heartbeat) does not wait with it.
func TestHubNotHeldAcrossASnapshot(t *testing.T) {
	src := &heldSource{changed: make(chan struct{}, 1), entered: make(chan struct{}), release: make(chan struct{})}
	hub := stream.NewHub(src, stream.Config{Log: slog.New(slog.DiscardHandler)})
	hub.Start(t.Context())
	t.Cleanup(hub.Close)
	src.mu.Lock()
	src.hold = true
	src.mu.Unlock()
	var released sync.Once
	let := func() { released.Do(func() { close(src.release) }) }
	t.Cleanup(let) // before hub.Close: the loop must leave the snapshot
	src.changed <- struct{}{}
	<-src.entered // the hub's loop is inside the source's snapshot
	stats := make(chan stream.Stats, 1)
	go func() { stats <- hub.Stats() }()
	select {
	case <-stats:
	case <-time.After(wait):
		t.Fatal("Stats waited on the source's snapshot")
	}
	let()
}
