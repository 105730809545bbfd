package presence_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// seeStore makes svc take in what its store now holds: through the
// watch when Run is active (waiting until cond holds), else through the
// listing a Snapshot makes.
func seeStore(tb testing.TB, svc *presence.Service, running bool, what string, cond func(presence.Snapshot) bool) {
	tb.Helper()
	if running {
		untilSnapshot(tb, svc, what, cond)
		return
	}
	snap, err := svc.Snapshot(context.Background())
	if err != nil {
		tb.Fatalf("Snapshot: %v", err)
	}
	if !cond(snap) {
		tb.Fatalf("after a listing: not %s; live %v", what, presencetest.IDs(snap.Live))
	}
}

// TestBeatKeepsAnOutsideWritersDeclarations: an outside writer (an m1nd
// runtime) declares on a presence this Hall beats for, with a newer beat.
// The Hall's next beats, which say nothing of those fields, keep them, in
// the beat written at once and in the one held by the throttle and flushed
// later: the newest beat keeps its declarations, the counters take the
// max (Merge). Through the watch and through a listing alike.
func TestBeatKeepsAnOutsideWritersDeclarations(t *testing.T) {
	for _, running := range []bool{true, false} {
		name := map[bool]string{true: "watch", false: "listing"}[running]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clk := presencetest.NewClock(time.Now().UnixMilli()) // the watch's expiry timer runs on real time
			svc, store, _, _ := newTestService(t, presence.Config{Now: clk.Now})
			if running {
				startRun(t, svc, presence.RunConfig{Rescan: time.Hour})
			}
			b := presence.Beat{AgentID: "claude-7", Brain: "/srv/shop", Theme: "the hall's", Worktree: "/srv/shop/wt-1"}
			id := mustBeat(t, svc, b).PresenceID

			clk.Advance(time.Second)
			outside := dirstoretest.ReadRecord(t, store.Dir(), id)
			outside.Theme, outside.WorkingSet, outside.Mutation.DeclaredIntent = "the runtime's", []string{"src/a.go"}, "edit a.go"
			outside.LastBeatMs, outside.QueryCount = clk.Now().UnixMilli(), 40
			if err := dirstore.New(filepath.Dir(store.Dir())).Upsert(ctx, outside); err != nil {
				t.Fatal(err)
			}
			seeStore(t, svc, running, "the runtime's theme", func(s presence.Snapshot) bool {
				r, ok := s.Find(id)
				return ok && r.Theme == "the runtime's"
			})

			// A beat of another field, written at once: the runtime's
			// declarations stay.
			clk.Advance(time.Second)
			res := mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: "/srv/shop", TaskRef: "T-1"})
			if !res.Stored {
				t.Fatalf("beat with a new task_ref: got %+v, want stored", res)
			}
			check := func(when string) {
				t.Helper()
				got := dirstoretest.ReadRecord(t, store.Dir(), id)
				if got.Theme != "the runtime's" || !slices.Equal(got.WorkingSet, []string{"src/a.go"}) ||
					got.Mutation.DeclaredIntent != "edit a.go" || got.Worktree != "/srv/shop/wt-1" {
					t.Errorf("%s: stored %+v, want the runtime's theme, working set and intent, the Hall's worktree", when, got)
				}
				if got.QueryCount <= 40 {
					t.Errorf("%s: query_count %d, want past the runtime's 40", when, got.QueryCount)
				}
			}
			check("after a beat written at once")

			// The runtime declares again; the Hall's next beat is held by
			// the throttle and flushed later.
			clk.Advance(time.Second)
			outside = dirstoretest.ReadRecord(t, store.Dir(), id)
			outside.Theme, outside.LastBeatMs = "the runtime's", clk.Now().UnixMilli()
			outside.WorkingSet = []string{"src/a.go"}
			if err := dirstore.New(filepath.Dir(store.Dir())).Upsert(ctx, outside); err != nil {
				t.Fatal(err)
			}
			seeStore(t, svc, running, "the runtime's second write", func(s presence.Snapshot) bool {
				r, ok := s.Find(id)
				return ok && r.LastBeatMs == outside.LastBeatMs
			})
			clk.Advance(time.Second)
			if res := mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: "/srv/shop"}); !res.Throttled {
				t.Fatalf("a beat saying nothing new: got %+v, want throttled", res)
			}
			svc.FlushDue(ctx, true)
			check("after a held beat was flushed")
		})
	}
}

// TestHeldBeatNeverRecreatesALeftPresence: a presence this Hall holds a
// throttled beat for leaves elsewhere (another Hall's DELETE, or its file
// removed by hand). The held beat is dropped, never written to bring the
// presence back; the presence's next beat is a new one, written at once.
func TestHeldBeatNeverRecreatesALeftPresence(t *testing.T) {
	ways := map[string]func(tb testing.TB, root, id string){
		"another Hall's leave": func(tb testing.TB, root, id string) {
			other := presence.NewService(dirstore.New(root), presence.Config{})
			if err := other.Leave(context.Background(), id); err != nil {
				tb.Fatal(err)
			}
		},
		"file removed": func(tb testing.TB, root, id string) {
			if err := os.Remove(filepath.Join(root, "presences", id+".json")); err != nil {
				tb.Fatal(err)
			}
		},
	}
	for way, leave := range ways {
		for _, running := range []bool{true, false} {
			t.Run(way+"/"+map[bool]string{true: "watch", false: "listing"}[running], func(t *testing.T) {
				ctx := context.Background()
				clk := presencetest.NewClock(time.Now().UnixMilli())
				svc, store, _, _ := newTestService(t, presence.Config{Now: clk.Now})
				if running {
					startRun(t, svc, presence.RunConfig{Rescan: time.Hour})
				}
				b := presence.Beat{AgentID: "claude-7", Brain: "/srv/shop", Theme: "t"}
				id := mustBeat(t, svc, b).PresenceID
				seeStore(t, svc, running, "the presence stored", func(s presence.Snapshot) bool { _, ok := s.Find(id); return ok })
				clk.Advance(time.Second)
				if res := mustBeat(t, svc, b); !res.Throttled {
					t.Fatalf("second beat: got %+v, want throttled (held)", res)
				}

				leave(t, filepath.Dir(store.Dir()), id)
				seeStore(t, svc, running, "the presence gone", func(s presence.Snapshot) bool { _, ok := s.Find(id); return !ok })
				svc.FlushDue(ctx, true)
				if _, err := os.Stat(filepath.Join(store.Dir(), id+".json")); !os.IsNotExist(err) {
					t.Errorf("after the flush: record file %v, want none (the held beat dropped)", err)
				}
				if _, ok := snapshotFind(t, svc, id); ok {
					t.Errorf("after the flush: %s live, want gone", id)
				}

				clk.Advance(time.Second)
				if res := mustBeat(t, svc, b); !res.Stored {
					t.Errorf("the next beat: got %+v, want stored at once (a new presence)", res)
				}
				if got := dirstoretest.ReadRecord(t, store.Dir(), id); got.FirstSeenMs != clk.Now().UnixMilli() || got.QueryCount != 1 {
					t.Errorf("the next beat stored first_seen_ms %d, query_count %d; want a new presence (%d, 1)", got.FirstSeenMs, got.QueryCount, clk.Now().UnixMilli())
				}
			})
		}
	}
}

func snapshotFind(tb testing.TB, svc *presence.Service, id string) (presence.Record, bool) {
	tb.Helper()
	snap, err := svc.Snapshot(context.Background())
	if err != nil {
		tb.Fatalf("Snapshot: %v", err)
	}
	return snap.Find(id)
}

// TestHugeForeignWorkingSetsAreSkipped: two sidecars declaring 20,000
// working-set entries each break a beat's limits: they are skipped and
// counted, never on the roster, and a mutating beat on their brain
// collides with neither (BenchmarkMutatingBeatBesideHugeSidecars times
// that beat).
func TestHugeForeignWorkingSetsAreSkipped(t *testing.T) {
	svc, store, _, _ := newTestService(t, presence.Config{Now: time.Now})
	hugeSidecars(t, store.Dir(), "/srv/shop", 20_000)
	startRun(t, svc, presence.RunConfig{})
	snap := untilSnapshot(t, svc, "the sidecars skipped", func(s presence.Snapshot) bool { return s.Skipped == 2 })
	if len(snap.Live) != 0 {
		t.Errorf("live: got %v, want none", presencetest.IDs(snap.Live))
	}
	res := mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: "/srv/shop", Worktree: "/srv/shop", WorkingSet: []string{"src"}, Tool: "Edit"})
	if len(res.Collisions) != 0 {
		t.Errorf("a mutating beat beside them: got %d collisions, want none", len(res.Collisions))
	}
}
