package natsstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/storetest"
)

// frozen opens a store through a proxy to a fresh server, with a watch
// loaded, and returns the proxy to pause.
func frozen(t *testing.T, o Options) (*Store, *natstest.Proxy, <-chan struct{}) {
	t.Helper()
	srv := natstest.RunServer(t, 0)
	proxy := natstest.NewProxy(t, fmt.Sprintf("127.0.0.1:%d", srv.Port))
	o.OpTimeout, o.OutageGrace, o.ReconnectWait = 200*time.Millisecond, 300*time.Millisecond, 100*time.Millisecond
	s := mustOpen(t, proxy.URL(), o)
	notes := watch(t, s)
	<-notes // the view is loaded
	return s, proxy, notes
}

// A frozen server (its TCP connection open, nothing answered: SIGSTOP) is
// an outage as a dead one is. The first request runs out of OpTimeout;
// every later one fails at once with EUNREACHABLE and sends the server
// nothing; List reports the outage once OutageGrace passed; and when the
// server answers again, so does the store. (Found: every beat took 10–11
// s, and the contract and health said nothing for 70 s.)
func TestFrozenServerIsAnOutage(t *testing.T) {
	// Pings an hour apart: the requests alone must find the stall.
	s, proxy, notes := frozen(t, Options{PingInterval: time.Hour})
	ctx := context.Background()
	r := storetest.Record("frozen", "/b", time.Now().UnixMilli())
	if err := s.Upsert(ctx, r); err != nil {
		t.Fatalf("Upsert before the freeze: %v", err)
	}

	proxy.Pause()
	if err := s.Upsert(ctx, r); presence.ErrorCode(err) != presence.EUNREACHABLE {
		t.Fatalf("Upsert to a frozen server: got %v, want EUNREACHABLE", err)
	}
	sent := s.nc.Stats().OutMsgs
	for i := range 10 {
		_, gerr := s.Get(ctx, r.PresenceID)
		uerr := s.Upsert(ctx, r)
		_, derr := s.DeleteUnlessNewer(ctx, r.PresenceID, r.LastBeatMs)
		for _, err := range []error{gerr, uerr, derr} {
			if presence.ErrorCode(err) != presence.EUNREACHABLE {
				t.Fatalf("round %d on a stalled server: got %v, want EUNREACHABLE", i, err)
			}
		}
	}
	if got := s.nc.Stats().OutMsgs - sent; got != 0 {
		t.Errorf("requests sent to a server known stalled: got %d, want 0", got)
	}
	eventually.TrueOnNotify(t, patience, notes, "List reports the outage", func() bool {
		_, err := s.List(ctx)
		return presence.ErrorCode(err) == presence.EUNREACHABLE
	})

	proxy.Resume()
	eventually.True(t, patience, "the store to answer again", func() bool {
		return s.Upsert(ctx, r) == nil
	})
	eventually.TrueOnNotify(t, patience, notes, "the record listed again", func() bool {
		_, ok := listed(t, s, r.PresenceID)
		return ok
	})
}

// An idle store notices a frozen server too: its pings go unanswered, the
// client drops the connection, and List reports the outage with no
// request made.
func TestFrozenServerSeenWhileIdle(t *testing.T) {
	s, proxy, notes := frozen(t, Options{PingInterval: 100 * time.Millisecond})
	proxy.Pause()
	eventually.TrueOnNotify(t, patience, notes, "List reports the outage", func() bool {
		_, err := s.List(context.Background())
		return presence.ErrorCode(err) == presence.EUNREACHABLE
	})
}

// A caller's own deadline running out says nothing of the server: the
// store is not taken for stalled, and the next request goes through.
func TestCallerDeadlineIsNoStall(t *testing.T) {
	s, _, _ := frozen(t, Options{PingInterval: time.Hour})
	r := storetest.Record("hurried", "/b", time.Now().UnixMilli())
	if err := s.Upsert(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	hurried, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-hurried.Done()
	if _, err := s.Get(hurried, r.PresenceID); err == nil {
		t.Fatal("Get under a spent deadline: got nil error")
	}
	if _, err := s.Get(context.Background(), r.PresenceID); err != nil {
		t.Errorf("Get after a caller's deadline ran out: %v, want the store answering", err)
	}
}
