package presence

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// listedByID is what a whole listing says, deduplicated as the Service
// does: the newest copy of each presence (the first file by name on a
// tie), and the skip count.
func listedByID(tb testing.TB, s FileStore) (map[string]Record, int) {
	tb.Helper()
	l, err := s.List(context.Background())
	if err != nil {
		tb.Fatalf("List: %v", err)
	}
	out := map[string]Record{}
	for _, r := range l.Records {
		if old, ok := out[r.PresenceID]; !ok || r.LastBeatMs > old.LastBeatMs {
			out[r.PresenceID] = r
		}
	}
	return out, l.Skipped
}

func mustEncode(tb testing.TB, r Record) []byte {
	tb.Helper()
	data, err := EncodeRecord(r)
	if err != nil {
		tb.Fatalf("EncodeRecord: %v", err)
	}
	return data
}

// While Run is active, an outside create, rewrite, rename into place and
// delete each reach the roster through a reread of the one file.
func TestServiceRunRereadsWhatTheWatchNames(t *testing.T) {
	ctx := context.Background()
	store := mustOpenDirStore(t)
	now := time.Now().UnixMilli()
	fresh := func(agent string) Record { return newRec(agent, brain, withLastBeat(now), withTTL(3_600_000)) }
	for i := 0; i < 20; i++ {
		if err := store.Upsert(ctx, fresh(fmt.Sprintf("steady-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	svc := NewService(store, Config{})
	startRun(t, svc, RunConfig{Rescan: time.Hour})
	untilSnapshot(t, svc, "the roster to load", func(s Snapshot) bool { return len(s.Live) == 20 })

	a := fresh("a")
	name := filepath.Join(store.Dir(), a.PresenceID+".json")
	holds := func(want Record) func(Snapshot) bool {
		return func(s Snapshot) bool { r, ok := s.Find(want.PresenceID); return ok && reflect.DeepEqual(r, want) }
	}
	writeRecordFile(t, store.Dir(), a.PresenceID+".json", mustEncode(t, a))
	untilSnapshot(t, svc, "an outside create", holds(a))

	a.QueryCount, a.Theme = 2, "rewritten"
	writeRecordFile(t, store.Dir(), a.PresenceID+".json", mustEncode(t, a))
	untilSnapshot(t, svc, "an outside rewrite", holds(a))

	a.QueryCount, a.Theme = 3, "renamed into place"
	tmp := writeRecordFile(t, store.Dir(), ".staging", mustEncode(t, a))
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
	untilSnapshot(t, svc, "an outside rename into place", holds(a))

	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	snap := untilSnapshot(t, svc, "an outside delete", func(s Snapshot) bool { _, ok := s.Find(a.PresenceID); return !ok })
	if len(snap.Live) != 20 {
		t.Errorf("after the delete: got %d live, want the 20 steady ones", len(snap.Live))
	}

	writeRecordFile(t, store.Dir(), "junk.json", []byte("not json"))
	untilSnapshotNow(t, svc, "the junk file counted", func(s Snapshot) bool { return s.Skipped == 1 })
	if err := os.Remove(filepath.Join(store.Dir(), "junk.json")); err != nil {
		t.Fatal(err)
	}
	untilSnapshotNow(t, svc, "the junk file gone from the count", func(s Snapshot) bool { return s.Skipped == 0 })

	if st := svc.Stats(); st.Rereads == 0 {
		t.Errorf("Stats: got %+v, want the changes read by rereads", st)
	}
}

// untilSnapshotNow polls Snapshot until cond holds: for what changes the
// snapshot without a change signal (the skip count).
func untilSnapshotNow(tb testing.TB, svc *Service, what string, cond func(Snapshot) bool) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		snap, err := svc.Snapshot(context.Background())
		if err == nil && cond(snap) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	tb.Fatalf("timed out waiting for %s", what)
}

// A burst of 500 outside writes, creates, rewrites and deletes mixed,
// ends with the roster a whole listing gives.
func TestServiceRunBurstEndsInTheListedState(t *testing.T) {
	store := mustOpenDirStore(t)
	svc := NewService(store, Config{})
	startRun(t, svc, RunConfig{Rescan: time.Hour})
	untilSnapshotNow(t, svc, "the first listing", func(Snapshot) bool { return svc.Stats().Refreshes > 0 })
	now := time.Now().UnixMilli()
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 500; i++ {
		r := newRec(fmt.Sprintf("burst-%d", rng.Intn(200)), brain, withLastBeat(now), withTTL(3_600_000))
		r.QueryCount = int64(i)
		p := filepath.Join(store.Dir(), r.PresenceID+".json")
		if rng.Intn(6) == 0 {
			os.Remove(p)
			continue
		}
		tmp := writeRecordFile(t, store.Dir(), fmt.Sprintf(".w-%d", i), mustEncode(t, r))
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := listedByID(t, store)
	differs := func(s Snapshot) []string {
		var out []string
		got := map[string]Record{}
		for _, r := range s.Live {
			got[r.PresenceID] = r
			if w, ok := want[r.PresenceID]; !ok {
				out = append(out, fmt.Sprintf("%s: got query_count %d, want none", r.PresenceID, r.QueryCount))
			} else if !reflect.DeepEqual(w, r) {
				out = append(out, fmt.Sprintf("%s: got query_count %d, want %d", r.PresenceID, r.QueryCount, w.QueryCount))
			}
		}
		for id, w := range want {
			if _, ok := got[id]; !ok {
				out = append(out, fmt.Sprintf("%s: got none, want query_count %d", id, w.QueryCount))
			}
		}
		return out
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		snap, err := svc.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		d := differs(snap)
		if len(d) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the roster after the burst differs from the folder's (stats %+v):\n%v", svc.Stats(), d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pausedRereads is the real sidecar store with a pause after each reread has
// read the folder and before the Service applies it: the window in which
// this Hall's own writes race a reread.
type pausedRereads struct {
	FileStore
	read, resume chan struct{}
}

func (p *pausedRereads) Reread(ctx context.Context, keys []string) (Delta, error) {
	d, err := p.FileStore.Reread(ctx, keys)
	p.read <- struct{}{}
	<-p.resume
	return d, err
}

// A reread that began before this Hall's own write or leave does not undo
// it when it lands after; the next reread, begun after, shows the store.
func TestServiceRereadKeepsOwnChangesMadeDuringIt(t *testing.T) {
	ctx := context.Background()
	clk := newTestClock(t0)
	store := &pausedRereads{FileStore: mustOpenDirStore(t), read: make(chan struct{}), resume: make(chan struct{})}
	if err := store.Init(); err != nil {
		t.Fatal(err)
	}
	svc := NewService(store, Config{Now: clk.Now})
	old := newRec("ana", brain, withNoMutation())
	writeRecordFile(t, store.Dir(), old.PresenceID+".json", mustEncode(t, old))
	if _, err := svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	svc.mu.Lock()
	svc.watching = true // as under Run: reads come from the cache
	svc.mu.Unlock()
	name := old.PresenceID + ".json"

	reread := func() <-chan error {
		done := make(chan error, 1)
		go func() {
			_, _, err := svc.reread(ctx, []string{name})
			done <- err
		}()
		<-store.read
		return done
	}

	// An own write lands while a reread of the old file is in flight.
	done := reread()
	clk.Advance(time.Second)
	res := mustBeat(t, svc, Beat{AgentID: "ana", Brain: brain, Theme: "own"})
	if !res.Stored {
		t.Fatalf("Beat: got %+v, want stored", res)
	}
	store.resume <- struct{}{}
	if err := <-done; err != nil {
		t.Fatalf("reread: %v", err)
	}
	if got := snapshotRecord(t, svc, old.PresenceID); got.Theme != "own" || got.LastBeatMs != t0+1000 {
		t.Errorf("after a reread begun before the own write: got theme %q beat %d, want the own write (theme own, beat %d)", got.Theme, got.LastBeatMs, t0+1000)
	}
	// The cache itself, not only the beat's projection over it: the
	// projection is forgotten once stale, the cache is what stays.
	svc.mu.Lock()
	cached := svc.cache[old.PresenceID]
	svc.mu.Unlock()
	if cached.Theme != "own" {
		t.Errorf("cache after a reread begun before the own write: got theme %q, want own", cached.Theme)
	}
	// A reread begun after it reads the own write from the file.
	done = reread()
	store.resume <- struct{}{}
	if err := <-done; err != nil {
		t.Fatalf("reread: %v", err)
	}
	if got := snapshotRecord(t, svc, old.PresenceID); got.Theme != "own" {
		t.Errorf("after a later reread: got theme %q, want own", got.Theme)
	}
	svc.mu.Lock()
	_, held := svc.own[old.PresenceID]
	svc.mu.Unlock()
	if held {
		t.Errorf("own change still held after a reread that began after it")
	}

	// A leave while a reread that saw the file is in flight.
	clk.Advance(time.Second)
	writeRecordFile(t, store.Dir(), name, mustEncode(t, newRec("ana", brain, withNoMutation(), withLastBeat(t0+2000))))
	done = reread()
	if err := svc.Leave(ctx, old.PresenceID); err != nil {
		t.Fatalf("Leave: %v", err)
	}
	store.resume <- struct{}{}
	if err := <-done; err != nil {
		t.Fatalf("reread: %v", err)
	}
	snap, err := svc.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := snap.Find(old.PresenceID); ok {
		t.Errorf("after a reread begun before the leave: got %+v live, want it gone", r)
	}
	if _, err := os.Stat(filepath.Join(store.Dir(), name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("record file after the leave: got %v, want it removed", err)
	}
}
