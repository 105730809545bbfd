package presence_test

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

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// While Run is active, an outside create, rewrite, rename into place and
// delete each reach the roster through a reread of the one file.
func TestServiceRunRereadsWhatTheWatchNames(t *testing.T) {
	ctx := context.Background()
	store := dirstoretest.Open(t)
	now := time.Now().UnixMilli()
	fresh := func(agent string) presence.Record {
		return presencetest.Rec(agent, brain, presencetest.LastBeat(now), presencetest.TTL(3_600_000))
	}
	for i := 0; i < 20; i++ {
		if err := store.Upsert(ctx, fresh(fmt.Sprintf("steady-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	svc := presence.NewService(store, presence.Config{})
	startRun(t, svc, presence.RunConfig{Rescan: time.Hour})
	untilSnapshot(t, svc, "the roster to load", func(s presence.Snapshot) bool { return len(s.Live) == 20 })

	a := fresh("a")
	name := filepath.Join(store.Dir(), a.PresenceID+".json")
	holds := func(want presence.Record) func(presence.Snapshot) bool {
		return func(s presence.Snapshot) bool {
			r, ok := s.Find(want.PresenceID)
			return ok && reflect.DeepEqual(r, want)
		}
	}
	dirstoretest.WriteFile(t, store.Dir(), a.PresenceID+".json", presencetest.Encode(t, a))
	untilSnapshot(t, svc, "an outside create", holds(a))

	a.QueryCount, a.Theme = 2, "rewritten"
	dirstoretest.WriteFile(t, store.Dir(), a.PresenceID+".json", presencetest.Encode(t, a))
	untilSnapshot(t, svc, "an outside rewrite", holds(a))

	a.QueryCount, a.Theme = 3, "renamed into place"
	tmp := dirstoretest.WriteFile(t, store.Dir(), ".staging", presencetest.Encode(t, a))
	if err := os.Rename(tmp, name); err != nil {
		t.Fatal(err)
	}
	untilSnapshot(t, svc, "an outside rename into place", holds(a))

	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	snap := untilSnapshot(t, svc, "an outside delete", func(s presence.Snapshot) bool { _, ok := s.Find(a.PresenceID); return !ok })
	if len(snap.Live) != 20 {
		t.Errorf("after the delete: got %d live, want the 20 steady ones", len(snap.Live))
	}

	dirstoretest.WriteFile(t, store.Dir(), "junk.json", []byte("not json"))
	untilSnapshotNow(t, svc, "the junk file counted", func(s presence.Snapshot) bool { return s.Skipped == 1 })
	if err := os.Remove(filepath.Join(store.Dir(), "junk.json")); err != nil {
		t.Fatal(err)
	}
	untilSnapshotNow(t, svc, "the junk file gone from the count", func(s presence.Snapshot) bool { return s.Skipped == 0 })

	if st := svc.Stats(); st.Rereads == 0 {
		t.Errorf("Stats: got %+v, want the changes read by rereads", st)
	}
}

// untilSnapshotNow polls Snapshot until cond holds: for what changes the
// snapshot without a change signal (the skip count).
func untilSnapshotNow(tb testing.TB, svc *presence.Service, what string, cond func(presence.Snapshot) bool) {
	tb.Helper()
	eventually.True(tb, patience, what, func() bool {
		snap, err := svc.Snapshot(context.Background())
		return err == nil && cond(snap)
	})
}

// A burst of 500 outside writes, creates, rewrites and deletes mixed,
// ends with the roster a whole listing gives.
func TestServiceRunBurstEndsInTheListedState(t *testing.T) {
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{})
	startRun(t, svc, presence.RunConfig{Rescan: time.Hour})
	untilSnapshotNow(t, svc, "the first listing", func(presence.Snapshot) bool { return svc.Stats().Refreshes > 0 })
	now := time.Now().UnixMilli()
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 500; i++ {
		r := presencetest.Rec(fmt.Sprintf("burst-%d", rng.Intn(200)), brain, presencetest.LastBeat(now), presencetest.TTL(3_600_000))
		r.QueryCount = int64(i)
		p := filepath.Join(store.Dir(), r.PresenceID+".json")
		if rng.Intn(6) == 0 {
			os.Remove(p)
			continue
		}
		tmp := dirstoretest.WriteFile(t, store.Dir(), fmt.Sprintf(".w-%d", i), presencetest.Encode(t, r))
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := presencetest.ListedByID(t, store)
	differs := func(s presence.Snapshot) []string {
		var out []string
		got := map[string]presence.Record{}
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
	*dirstore.Store
	read, resume chan struct{}
}

func (p *pausedRereads) Reread(ctx context.Context, keys []string) (presence.Delta, error) {
	d, err := p.Store.Reread(ctx, keys)
	p.read <- struct{}{}
	<-p.resume
	return d, err
}

// A reread that began before this Hall's own write or leave does not undo
// it when it lands after; the next reread, begun after, shows the store.
func TestServiceRereadKeepsOwnChangesMadeDuringIt(t *testing.T) {
	ctx := context.Background()
	clk := presencetest.NewClock(presencetest.T0)
	store := &pausedRereads{Store: dirstoretest.Open(t), read: make(chan struct{}), resume: make(chan struct{})}
	if err := store.Init(); err != nil {
		t.Fatal(err)
	}
	svc := presence.NewService(store, presence.Config{Now: clk.Now})
	old := presencetest.Rec("ana", brain, presencetest.NoMutation())
	dirstoretest.WriteFile(t, store.Dir(), old.PresenceID+".json", presencetest.Encode(t, old))
	if _, err := svc.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	svc.ReadFromCache() // as under Run
	name := old.PresenceID + ".json"

	reread := func() <-chan error {
		done := make(chan error, 1)
		go func() {
			done <- svc.RereadKeys(ctx, []string{name})
		}()
		<-store.read
		return done
	}

	// An own write lands while a reread of the old file is in flight.
	done := reread()
	clk.Advance(time.Second)
	res := mustBeat(t, svc, presence.Beat{AgentID: "ana", Brain: brain, Theme: "own"})
	if !res.Stored {
		t.Fatalf("Beat: got %+v, want stored", res)
	}
	store.resume <- struct{}{}
	if err := <-done; err != nil {
		t.Fatalf("reread: %v", err)
	}
	if got := snapshotRecord(t, svc, old.PresenceID); got.Theme != "own" || got.LastBeatMs != presencetest.T0+1000 {
		t.Errorf("after a reread begun before the own write: got theme %q beat %d, want the own write (theme own, beat %d)", got.Theme, got.LastBeatMs, presencetest.T0+1000)
	}
	// The cache itself, not only the beat's projection over it: the
	// projection is forgotten once stale, the cache is what stays.
	if cached, _ := svc.CachedRecord(old.PresenceID); cached.Theme != "own" {
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
	if svc.HoldsOwn(old.PresenceID) {
		t.Errorf("own change still held after a reread that began after it")
	}

	// A leave while a reread that saw the file is in flight.
	clk.Advance(time.Second)
	dirstoretest.WriteFile(t, store.Dir(), name, presencetest.Encode(t, presencetest.Rec("ana", brain, presencetest.NoMutation(), presencetest.LastBeat(presencetest.T0+2000))))
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
