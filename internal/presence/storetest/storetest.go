// Package storetest is the contract every presence.Store backend keeps,
// written once and run against each backend (the sidecar directory and the
// NATS bucket), so the Service above them cannot tell which one it reads.
//
// Run takes a function that opens a fresh, empty store for one subtest.
// Checks that need to put bytes the store would never write itself (a
// corrupt entry) use the RawWriter interface when the opened store offers
// it; checks of live change notification run when it is a
// presence.Watcher. Backend-specific behaviour (CAS merges, engine expiry,
// file-system quirks) is tested beside each backend, not here.
package storetest

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// RawWriter is a store that lets a test place arbitrary bytes under an id,
// as a foreign or broken writer would.
type RawWriter interface {
	WriteRaw(ctx context.Context, id string, data []byte) error
}

// patience bounds every "it happens" wait: generous, because CI machines
// are small and busy; a passing run never waits it out.
const patience = 15 * time.Second

// Run runs the contract against stores that open returns. Every subtest
// opens its own store.
func Run(t *testing.T, open func(t *testing.T) presence.Store) {
	t.Run("GetMissingIsNotFound", func(t *testing.T) {
		s := open(t)
		_, err := s.Get(context.Background(), presence.ID("nobody", "/nowhere"))
		if got, want := presence.ErrorCode(err), presence.ENOTFOUND; got != want {
			t.Fatalf("Get of a missing id: got code %q (%v), want %q", got, err, want)
		}
	})

	t.Run("DeleteMissingIsNotFound", func(t *testing.T) {
		s := open(t)
		err := s.Delete(context.Background(), presence.ID("nobody", "/nowhere"))
		if got, want := presence.ErrorCode(err), presence.ENOTFOUND; got != want {
			t.Fatalf("Delete of a missing id: got code %q (%v), want %q", got, err, want)
		}
	})

	t.Run("InvalidIDIsRefused", func(t *testing.T) {
		s := open(t)
		ctx := context.Background()
		for _, id := range []string{"", "prs_", "../../etc/passwd", "prs_ABCDEF012345", "prs_0123456789ab.json", "prs_*"} {
			if _, err := s.Get(ctx, id); presence.ErrorCode(err) != presence.EINVALID {
				t.Errorf("Get(%q): got code %q (%v), want %q", id, presence.ErrorCode(err), err, presence.EINVALID)
			}
			if err := s.Delete(ctx, id); presence.ErrorCode(err) != presence.EINVALID {
				t.Errorf("Delete(%q): got code %q (%v), want %q", id, presence.ErrorCode(err), err, presence.EINVALID)
			}
			r := Record("a", "/b", time.Now().UnixMilli())
			r.PresenceID = id
			if err := s.Upsert(ctx, r); presence.ErrorCode(err) != presence.EINVALID {
				t.Errorf("Upsert(%q): got code %q (%v), want %q", id, presence.ErrorCode(err), err, presence.EINVALID)
			}
		}
	})

	t.Run("RoundtripFieldForField", func(t *testing.T) {
		s := open(t)
		ctx := context.Background()
		now := time.Now().UnixMilli()
		full := presence.Record{
			Schema:     presence.Schema,
			PresenceID: presence.ID("claude-7", "/home/ana/shop"),
			AgentID:    "claude-7",
			Brain:      "/home/ana/shop",
			CallerRoot: "/home/ana/shop-wt2",
			Kind:       "executor",
			Theme:      "checkout refactor — ünïcode & <html>",
			Worktree:   "/home/ana/shop-wt2",
			WorkingSet: []string{"src/checkout/", "go.mod"},
			TaskRef:    "msn_8c1d2e",
			Mutation:   presence.Mutation{ObservedAtMs: now - 5000, DeclaredIntent: "edit checkout"},

			FirstSeenMs: now - 60000,
			LastBeatMs:  now,
			QueryCount:  41,
			TTLMs:       120000,
		}
		bare := presence.Record{Schema: presence.Schema, PresenceID: presence.ID("bare", "/b"), AgentID: "bare", Brain: "/b", LastBeatMs: now}
		for _, want := range []presence.Record{full, bare} {
			if err := s.Upsert(ctx, want); err != nil {
				t.Fatalf("Upsert: %v", err)
			}
			got, err := s.Get(ctx, want.PresenceID)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Get after Upsert:\n got %+v\nwant %+v", got, want)
			}
		}
		l, err := s.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		for _, want := range []presence.Record{full, bare} {
			got, ok := find(l.Records, want.PresenceID)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("List after Upsert:\n got %+v (found %v)\nwant %+v", got, ok, want)
			}
		}
	})

	t.Run("UpsertReplaces", func(t *testing.T) {
		s := open(t)
		ctx := context.Background()
		now := time.Now().UnixMilli()
		first := Record("codex-1", "/w", now-1000)
		first.Theme, first.WorkingSet, first.Mutation.DeclaredIntent = "first", []string{"a", "b"}, "edit"
		if err := s.Upsert(ctx, first); err != nil {
			t.Fatalf("Upsert first: %v", err)
		}
		// A later beat that changes every declaration and clears some.
		second := first.Clone()
		second.LastBeatMs, second.QueryCount = now, first.QueryCount+1
		second.Theme, second.WorkingSet, second.Mutation.DeclaredIntent = "second", nil, ""
		if err := s.Upsert(ctx, second); err != nil {
			t.Fatalf("Upsert second: %v", err)
		}
		got, err := s.Get(ctx, first.PresenceID)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if !reflect.DeepEqual(got, second) {
			t.Errorf("Get after replace:\n got %+v\nwant %+v", got, second)
		}
		l, err := s.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if got, want := ids(l.Records), []string{first.PresenceID}; !reflect.DeepEqual(got, want) {
			t.Errorf("List after replace: got ids %v, want %v (one record per presence)", got, want)
		}
	})

	t.Run("ListDelete", func(t *testing.T) {
		s := open(t)
		ctx := context.Background()
		now := time.Now().UnixMilli()
		byID := map[string]presence.Record{}
		var want []string
		for i := range 5 {
			r := Record(fmt.Sprintf("agent-%d", i), "/brain", now)
			byID[r.PresenceID] = r
			want = append(want, r.PresenceID)
			if err := s.Upsert(ctx, r); err != nil {
				t.Fatalf("Upsert %d: %v", i, err)
			}
		}
		sort.Strings(want)
		l, err := s.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if got := ids(l.Records); !reflect.DeepEqual(got, want) {
			t.Fatalf("List: got ids %v, want %v", got, want)
		}
		if l.Skipped != 0 {
			t.Errorf("List: got %d skipped, want 0", l.Skipped)
		}

		gone := want[2]
		if err := s.Delete(ctx, gone); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if _, err := s.Get(ctx, gone); presence.ErrorCode(err) != presence.ENOTFOUND {
			t.Errorf("Get after Delete: got code %q (%v), want %q", presence.ErrorCode(err), err, presence.ENOTFOUND)
		}
		if err := s.Delete(ctx, gone); presence.ErrorCode(err) != presence.ENOTFOUND {
			t.Errorf("second Delete: got code %q (%v), want %q", presence.ErrorCode(err), err, presence.ENOTFOUND)
		}
		l, err = s.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if got, want := ids(l.Records), append(append([]string{}, want[:2]...), want[3:]...); !reflect.DeepEqual(got, want) {
			t.Errorf("List after Delete: got ids %v, want %v", got, want)
		}

		// A presence that left and comes back is an ordinary upsert.
		back := byID[gone]
		back.LastBeatMs++
		if err := s.Upsert(ctx, back); err != nil {
			t.Fatalf("Upsert after Delete: %v", err)
		}
		if got, err := s.Get(ctx, gone); err != nil || !reflect.DeepEqual(got, back) {
			t.Errorf("Get after re-Upsert: got %+v, %v; want %+v", got, err, back)
		}
	})

	t.Run("ConcurrentUpsertsOfDistinctIDsAllLand", func(t *testing.T) {
		s := open(t)
		ctx := context.Background()
		const n = 32
		now := time.Now().UnixMilli()
		var wg sync.WaitGroup
		errs := make(chan error, n)
		want := make([]string, n)
		for i := range n {
			r := Record(fmt.Sprintf("swarm-%02d", i), "/swarm", now)
			want[i] = r.PresenceID
			wg.Go(func() {
				if err := s.Upsert(ctx, r); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("concurrent Upsert: %v", err)
		}
		sort.Strings(want)
		l, err := s.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if got := ids(l.Records); !reflect.DeepEqual(got, want) {
			t.Errorf("List after %d concurrent upserts: got %d ids, want %d:\n got %v\nwant %v", n, len(got), n, got, want)
		}
	})

	t.Run("ListSkipsUndecodable", func(t *testing.T) {
		s := open(t)
		raw, ok := s.(RawWriter)
		if !ok {
			t.Skip("this backend cannot hold bytes it did not encode")
		}
		ctx := context.Background()
		good := Record("good", "/b", time.Now().UnixMilli())
		if err := s.Upsert(ctx, good); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
		for i, data := range []string{
			`{not json`,
			`{"schema":"m1nd-presence-v0","agent_id":"x","brain":"/b","last_beat_ms":1}`, // no presence_id
			`[]`,
		} {
			id := presence.ID(fmt.Sprintf("broken-%d", i), "/b")
			if err := raw.WriteRaw(ctx, id, []byte(data)); err != nil {
				t.Fatalf("WriteRaw: %v", err)
			}
		}
		l, err := s.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if got, want := ids(l.Records), []string{good.PresenceID}; !reflect.DeepEqual(got, want) {
			t.Errorf("List: got ids %v, want %v", got, want)
		}
		if got, want := l.Skipped, 3; got != want {
			t.Errorf("List: got %d skipped, want %d", got, want)
		}
	})

	t.Run("ListSkipsMisfiledKeepsLong", func(t *testing.T) {
		// An entry holding another id's record never speaks for it (nor
		// outlives its leave): it is skipped and counted, and Get of the
		// entry's own id fails, but not as not found. One over a beat's
		// limits is shown whole, as m1nd reads it.
		s := open(t)
		raw, ok := s.(RawWriter)
		if !ok {
			t.Skip("this backend cannot hold bytes it did not encode")
		}
		ctx := context.Background()
		real := Record("real", "/b", time.Now().UnixMilli())
		real.Theme = "real"
		if err := s.Upsert(ctx, real); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
		forged := real
		forged.LastBeatMs, forged.Theme = real.LastBeatMs+60_000, "forged"
		oversized := Record("oversized", "/b", time.Now().UnixMilli())
		oversized.WorkingSet = make([]string, presence.MaxWorkingSetLen+1)
		for i := range oversized.WorkingSet {
			oversized.WorkingSet[i] = fmt.Sprintf("src/%d.go", i)
		}
		elsewhere := presence.ID("elsewhere", "/b")
		for id, r := range map[string]presence.Record{elsewhere: forged, oversized.PresenceID: oversized} {
			data, err := presence.EncodeRecord(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := raw.WriteRaw(ctx, id, data); err != nil {
				t.Fatalf("WriteRaw: %v", err)
			}
		}
		l, err := s.List(ctx)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		// Over a beat's limits is no reason to skip (m1nd's serde has
		// none): the long record is listed, the forgery skipped.
		if len(l.Records) != 2 || l.Skipped != 1 {
			t.Errorf("List: got %d records %v, %d skipped; want the real and the long record, 1 skipped", len(l.Records), l.Records, l.Skipped)
		}
		if _, err := s.Get(ctx, elsewhere); err == nil || presence.ErrorCode(err) == presence.ENOTFOUND {
			t.Errorf("Get(%s): got %v, want an error other than not found", elsewhere, err)
		}
		if got, err := s.Get(ctx, oversized.PresenceID); err != nil || len(got.WorkingSet) != presence.MaxWorkingSetLen+1 {
			t.Errorf("Get(%s): got %d entries, %v; want %d entries", oversized.PresenceID, len(got.WorkingSet), err, presence.MaxWorkingSetLen+1)
		}
		if err := s.Delete(ctx, real.PresenceID); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if l, err := s.List(ctx); err != nil || len(l.Records) != 1 || l.Records[0].PresenceID != oversized.PresenceID {
			t.Errorf("List after Delete: got %v, %v; want the long record alone (the forgery speaks for no one)", l.Records, err)
		}
	})

	t.Run("WatchNotifiesChanges", func(t *testing.T) {
		s := open(t)
		w, ok := s.(presence.Watcher)
		if !ok {
			t.Skip("this backend has no watch")
		}
		ctx, cancel := context.WithCancel(context.Background())
		notified := make(chan struct{}, 1)
		done := make(chan error, 1)
		go func() {
			done <- w.Watch(ctx, func() {
				select {
				case notified <- struct{}{}:
				default:
				}
			})
		}()
		defer func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Watch after cancel: got %v, want nil", err)
				}
			case <-time.After(patience):
				t.Errorf("Watch did not return within %s of its context ending", patience)
			}
		}()
		// The watch notifies once it is in place; changes after that must
		// each be heard.
		eventually.Notified(t, patience, notified, "the watch to start", func() bool { return true })
		r := Record("watched", "/w", time.Now().UnixMilli())
		if err := s.Upsert(ctx, r); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
		// A notify may come before the change it announces is visible to
		// every reader (coalesced or early), so one notify alone proves
		// nothing: wait for one after which the change shows.
		eventually.Notified(t, patience, notified, "an upsert", func() bool {
			l, err := s.List(ctx)
			_, ok := find(l.Records, r.PresenceID)
			return err == nil && ok
		})
		if err := s.Delete(ctx, r.PresenceID); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		eventually.Notified(t, patience, notified, "a delete", func() bool {
			l, err := s.List(ctx)
			_, ok := find(l.Records, r.PresenceID)
			return err == nil && !ok
		})
	})
}

// Record returns a minimal live record of agent on brain, beaten at ms,
// with the default ttl and no mutation signal (presencetest.Rec).
func Record(agent, brain string, ms int64) presence.Record {
	return presencetest.Rec(agent, brain, presencetest.At(ms), presencetest.NoMutation(),
		presencetest.TTL(presence.DefaultTTL.Milliseconds()))
}

func find(rs []presence.Record, id string) (presence.Record, bool) {
	for _, r := range rs {
		if r.PresenceID == id {
			return r, true
		}
	}
	return presence.Record{}, false
}

// ids lists the records' presence ids, sorted.
func ids(rs []presence.Record) []string {
	out := presencetest.IDs(rs)
	sort.Strings(out)
	return out
}
