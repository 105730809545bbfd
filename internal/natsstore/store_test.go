package natsstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/storetest"
)

// patience bounds every "it happens" wait; a passing run never waits it
// out.
const patience = 20 * time.Second

var bucketSeq atomic.Int64

// mustOpen opens a store on url over a bucket of its own (unless the
// options name one) and closes it when the test ends.
func mustOpen(tb testing.TB, url string, o Options) *Store {
	tb.Helper()
	o.URLs = url
	if o.Bucket == "" {
		o.Bucket = fmt.Sprintf("test-%d", bucketSeq.Add(1))
	}
	s, err := Open(o)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// rawStore lets the contract place bytes the store would never write.
type rawStore struct{ *Store }

func (s rawStore) WriteRaw(ctx context.Context, id string, data []byte) error {
	kv, err := s.bucket(ctx)
	if err != nil {
		return err
	}
	_, err = kv.Put(ctx, id, data)
	return err
}

// TestContract runs the store contract shared with the sidecar directory
// (internal/presence/dirstore_contract_test.go) on a NATS bucket.
func TestContract(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	storetest.Run(t, func(t *testing.T) presence.Store {
		return rawStore{mustOpen(t, srv.URL(), Options{})}
	})
}

// watch runs s.Watch until the test ends and returns a channel that gets a
// token on each notify (coalesced).
func watch(t *testing.T, s *Store) <-chan struct{} {
	t.Helper()
	ch := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			// Retry as the Service's live loop does.
			if err := s.Watch(ctx, func() {
				select {
				case ch <- struct{}{}:
				default:
				}
			}); err != nil {
				t.Logf("watch ended: %v", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ch
}

func listed(t *testing.T, s *Store, id string) (presence.Record, bool) {
	t.Helper()
	l, err := s.List(context.Background())
	if err != nil {
		return presence.Record{}, false
	}
	for _, r := range l.Records {
		if r.PresenceID == id {
			return r, true
		}
	}
	return presence.Record{}, false
}

// Two Halls beating one presence at once (an agent whose hooks reach both)
// must never lose a beat: every write is compare-and-set, and a conflict
// re-reads and merges. One writer has a watched view (its first attempt
// takes the revision from it, often stale under this load), the other
// reads the server every time.
func TestConcurrentWritersLoseNoBeat(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	a := mustOpen(t, srv.URL(), Options{Bucket: "cas"})
	b := mustOpen(t, srv.URL(), Options{Bucket: "cas"})
	aNotes := watch(t, a)
	<-aNotes // loaded

	ctx := context.Background()
	start := time.Now().UnixMilli()
	const beats = 40
	var wg sync.WaitGroup
	for w, s := range []*Store{a, b} {
		wg.Go(func() {
			for i := range beats {
				r := storetest.Record("shared", "/brain", start+int64(2*i+w))
				r.QueryCount = int64(2*i + w + 1)
				r.Theme = fmt.Sprintf("writer %d beat %d", w, i)
				if err := s.Upsert(ctx, r); err != nil {
					t.Errorf("writer %d beat %d: %v", w, i, err)
					return
				}
				// What this writer wrote is in, or something newer is.
				got, err := s.Get(ctx, r.PresenceID)
				if err != nil || got.LastBeatMs < r.LastBeatMs || got.QueryCount < r.QueryCount {
					t.Errorf("writer %d beat %d: stored %+v, %v; want last_beat_ms >= %d, query_count >= %d", w, i, got, err, r.LastBeatMs, r.QueryCount)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := a.Get(ctx, presence.ID("shared", "/brain"))
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if want := start + 2*(beats-1) + 1; got.LastBeatMs != want {
		t.Errorf("last_beat_ms: got %d, want %d (the last beat of either writer)", got.LastBeatMs, want)
	}
	if want := int64(2*beats - 1 + 1); got.QueryCount != want {
		t.Errorf("query_count: got %d, want %d", got.QueryCount, want)
	}
	if want := fmt.Sprintf("writer 1 beat %d", beats-1); got.Theme != want {
		t.Errorf("theme: got %q, want %q (the newest beat's declaration)", got.Theme, want)
	}
	// The watched view converges on the same record.
	eventually.TrueOnNotify(t, patience, aNotes, "the view shows the final record", func() bool {
		r, ok := listed(t, a, got.PresenceID)
		return ok && r.LastBeatMs == got.LastBeatMs
	})
}

// An upsert with an older beat than the bucket holds (a relay mirroring a
// copy another host has already refreshed) keeps the newer one.
func TestUpsertOlderBeatKeepsNewer(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	s := mustOpen(t, srv.URL(), Options{})
	ctx := context.Background()
	now := time.Now().UnixMilli()
	newer := storetest.Record("agent", "/b", now)
	newer.Theme, newer.QueryCount = "newer", 5
	older := storetest.Record("agent", "/b", now-1000)
	older.Theme, older.QueryCount = "older", 3
	for _, r := range []presence.Record{newer, older} {
		if err := s.Upsert(ctx, r); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
	}
	got, err := s.Get(ctx, newer.PresenceID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.Theme != "newer" || got.LastBeatMs != now || got.QueryCount != 5 {
		t.Errorf("after an older upsert: got theme %q last_beat_ms %d query_count %d, want %q %d %d", got.Theme, got.LastBeatMs, got.QueryCount, "newer", now, 5)
	}
}

func TestDeleteUnlessNewer(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	s := mustOpen(t, srv.URL(), Options{})
	ctx := context.Background()
	now := time.Now().UnixMilli()
	r := storetest.Record("agent", "/b", now)
	if err := s.Upsert(ctx, r); err != nil {
		t.Fatalf("Upsert: %v", err)
	}

	// Someone beat it later than the caller's copy: it stays.
	if gone, err := s.DeleteUnlessNewer(ctx, r.PresenceID, now-1); err != nil || gone {
		t.Fatalf("DeleteUnlessNewer with an older beat: got %v, %v; want false, nil", gone, err)
	}
	if _, err := s.Get(ctx, r.PresenceID); err != nil {
		t.Fatalf("Get after a refused delete: %v", err)
	}
	// The caller's copy is the latest: it goes.
	if gone, err := s.DeleteUnlessNewer(ctx, r.PresenceID, now); err != nil || !gone {
		t.Fatalf("DeleteUnlessNewer with the latest beat: got %v, %v; want true, nil", gone, err)
	}
	if _, err := s.Get(ctx, r.PresenceID); presence.ErrorCode(err) != presence.ENOTFOUND {
		t.Fatalf("Get after delete: got %v, want %s", err, presence.ENOTFOUND)
	}
	// Nothing there: nothing to do, no error.
	if gone, err := s.DeleteUnlessNewer(ctx, r.PresenceID, now); err != nil || gone {
		t.Fatalf("DeleteUnlessNewer of a missing record: got %v, %v; want false, nil", gone, err)
	}
}

// A presence that stops beating is removed by the engine, and a watcher
// hears it as a delete: no reader has to poll or compare clocks for the
// bucket to forget it.
func TestExpirySeenAsLeaveThroughWatch(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	// A 1 s ttl: the message lives 2 s (remaining life plus the grace).
	s := mustOpen(t, srv.URL(), Options{TTL: time.Second})
	observer := mustOpen(t, srv.URL(), Options{Bucket: s.opts.Bucket, TTL: time.Second})
	notes := watch(t, observer)
	<-notes

	ctx := context.Background()
	r := storetest.Record("short-lived", "/b", time.Now().UnixMilli())
	r.TTLMs = 1000
	if err := s.Upsert(ctx, r); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	eventually.TrueOnNotify(t, patience, notes, "the watcher sees the presence join", func() bool {
		_, ok := listed(t, observer, r.PresenceID)
		return ok
	})
	eventually.TrueOnNotify(t, patience, notes, "the watcher sees the presence expire", func() bool {
		_, ok := listed(t, observer, r.PresenceID)
		return !ok
	})
	if _, err := s.Get(ctx, r.PresenceID); presence.ErrorCode(err) != presence.ENOTFOUND {
		t.Errorf("Get after expiry: got %v, want %s: the engine, not the reader, removed it", err, presence.ENOTFOUND)
	}
}

// Opening the same bucket with a longer ttl raises its max-age; a shorter
// one never lowers it.
func TestBucketMaxAgeOnlyGrows(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	ctx := context.Background()
	maxAge := func(s *Store) time.Duration {
		if _, err := s.List(ctx); err != nil { // opens the bucket
			t.Fatalf("List: %v", err)
		}
		st, err := s.js.Stream(ctx, "KV_shared")
		if err != nil {
			t.Fatalf("stream info: %v", err)
		}
		return st.CachedInfo().Config.MaxAge
	}
	for _, tt := range []struct {
		ttl, want time.Duration
	}{
		{time.Minute, time.Minute + maxAgeGrace},
		{10 * time.Minute, 10*time.Minute + maxAgeGrace},
		{time.Minute, 10*time.Minute + maxAgeGrace},
	} {
		s := mustOpen(t, srv.URL(), Options{Bucket: "shared", TTL: tt.ttl})
		if got := maxAge(s); got != tt.want {
			t.Errorf("after opening with ttl %s: max-age %s, want %s", tt.ttl, got, tt.want)
		}
	}
}

// With no server, every operation fails fast with EUNREACHABLE (not a
// timeout); once a server comes up on that address the store works with
// no restart, and a running watch loads the bucket and notifies.
func TestUnavailableThenServerArrives(t *testing.T) {
	port := natstest.FreePort(t)
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	s := mustOpen(t, url, Options{ReconnectWait: 100 * time.Millisecond})
	ctx := context.Background()

	r := storetest.Record("early", "/b", time.Now().UnixMilli())
	for name, op := range map[string]func() error{
		"List":   func() error { _, err := s.List(ctx); return err },
		"Get":    func() error { _, err := s.Get(ctx, r.PresenceID); return err },
		"Upsert": func() error { return s.Upsert(ctx, r) },
		"Delete": func() error { return s.Delete(ctx, r.PresenceID) },
		"Watch":  func() error { return s.Watch(ctx, func() {}) },
	} {
		err := op()
		if got, want := presence.ErrorCode(err), presence.EUNREACHABLE; got != want {
			t.Errorf("%s without a server: got code %q (%v), want %q", name, got, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), "not connected") {
			t.Errorf("%s without a server: got %q, want it to say not connected", name, err)
		}
	}

	notes := watch(t, s)
	natstest.RunServer(t, port)
	<-notes // the watch loaded the (new, empty) bucket
	if err := s.Upsert(ctx, r); err != nil {
		t.Fatalf("Upsert once the server is up: %v", err)
	}
	eventually.TrueOnNotify(t, patience, notes, "the record is listed", func() bool {
		_, ok := listed(t, s, r.PresenceID)
		return ok
	})
}

// After the server restarts, a watcher reloads its view from a fresh watch:
// what was written while it was away shows up, and it is told so.
func TestReconnectReloadsView(t *testing.T) {
	port := natstest.FreePort(t)
	dir := t.TempDir()
	srv := natstest.RunServerAt(t, port, dir)
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	watcher := mustOpen(t, url, Options{Bucket: "restart", ReconnectWait: 100 * time.Millisecond})
	notes := watch(t, watcher)
	<-notes
	ctx := context.Background()
	before := storetest.Record("before", "/b", time.Now().UnixMilli())
	if err := watcher.Upsert(ctx, before); err != nil {
		t.Fatalf("Upsert: %v", err)
	}

	srv.Shutdown()
	srv.WaitForShutdown()
	natstest.RunServerAt(t, port, dir)
	writer := mustOpen(t, url, Options{Bucket: "restart"})
	during := storetest.Record("during", "/b", time.Now().UnixMilli())
	if err := writer.Upsert(ctx, during); err != nil {
		t.Fatalf("Upsert on the restarted server: %v", err)
	}
	eventually.TrueOnNotify(t, patience, notes, "the watcher lists both records", func() bool {
		_, ok1 := listed(t, watcher, before.PresenceID)
		_, ok2 := listed(t, watcher, during.PresenceID)
		return ok1 && ok2
	})
}
