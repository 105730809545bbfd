package presence_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/lockedbuf"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// newTestService returns a service over a fresh sidecar store with a settable
// clock at presencetest.T0 and a logger writing into the returned buffer.
func newTestService(tb testing.TB, cfg presence.Config) (*presence.Service, *dirstore.Store, *presencetest.Clock, *lockedbuf.Buffer) {
	tb.Helper()
	store := dirstoretest.Open(tb)
	clk := presencetest.NewClock(presencetest.T0)
	logs := &lockedbuf.Buffer{}
	if cfg.Now == nil {
		cfg.Now = clk.Now
	}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	return presence.NewService(store, cfg), store, clk, logs
}

func mustBeat(tb testing.TB, svc *presence.Service, b presence.Beat) presence.BeatResult {
	tb.Helper()
	res, err := svc.Beat(context.Background(), b)
	if err != nil {
		tb.Fatalf("Beat(%+v): %v", b, err)
	}
	return res
}

// snapshotRecord returns the live record id from a fresh snapshot.
func snapshotRecord(tb testing.TB, svc *presence.Service, id string) presence.Record {
	tb.Helper()
	snap, err := svc.Snapshot(context.Background())
	if err != nil {
		tb.Fatalf("Snapshot: %v", err)
	}
	r, ok := snap.Find(id)
	if !ok {
		tb.Fatalf("Snapshot: %s not live; live are %v", id, presencetest.IDs(snap.Live))
	}
	return r
}

func TestServiceBeatUpserts(t *testing.T) {
	svc, store, clk, _ := newTestService(t, presence.Config{TTL: 90 * time.Second})
	b := presence.Beat{AgentID: "claude-7", Brain: "/home/ana/shop", CallerRoot: "/home/ana/shop-wt2", Kind: "executor",
		Theme: "checkout refactor", Worktree: "/home/ana/shop-wt2", WorkingSet: []string{"src/checkout/", "go.mod"},
		TaskRef: "msn_8c1d2e", DeclaredIntent: "edit checkout"}
	res := mustBeat(t, svc, b)
	id := presence.ID("claude-7", "/home/ana/shop")
	if res.PresenceID != id || !res.Stored || res.Throttled || res.Reason != "" {
		t.Errorf("first beat: got %+v, want id %s stored, not throttled, no reason", res, id)
	}
	want := presence.Record{Schema: presence.Schema, PresenceID: id, AgentID: "claude-7", Brain: "/home/ana/shop", CallerRoot: "/home/ana/shop-wt2",
		Kind: "executor", Theme: "checkout refactor", Worktree: "/home/ana/shop-wt2", WorkingSet: []string{"src/checkout", "go.mod"},
		TaskRef: "msn_8c1d2e", Mutation: presence.Mutation{DeclaredIntent: "edit checkout"},
		FirstSeenMs: presencetest.T0, LastBeatMs: presencetest.T0, QueryCount: 1, TTLMs: 90000}
	if got := dirstoretest.ReadRecord(t, store.Dir(), id); !reflect.DeepEqual(got, want) {
		t.Errorf("stored record:\ngot  %#v\nwant %#v", got, want)
	}

	// A later beat past the throttle window: first_seen kept, last_beat
	// and query_count advanced, declarations kept when not said again.
	clk.Advance(6 * time.Second)
	res = mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: "/home/ana/shop"})
	if !res.Stored {
		t.Errorf("beat after the window: got %+v, want stored", res)
	}
	want.LastBeatMs, want.QueryCount = presencetest.T0+6000, 2
	if got := dirstoretest.ReadRecord(t, store.Dir(), id); !reflect.DeepEqual(got, want) {
		t.Errorf("stored record after second beat:\ngot  %#v\nwant %#v", got, want)
	}
	if got := snapshotRecord(t, svc, id); !reflect.DeepEqual(got, want) {
		t.Errorf("snapshot record:\ngot  %#v\nwant %#v", got, want)
	}

	// An empty working set clears the set; nil keeps it.
	clk.Advance(time.Second)
	mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: "/home/ana/shop", WorkingSet: []string{}})
	if got := dirstoretest.ReadRecord(t, store.Dir(), id).WorkingSet; got != nil {
		t.Errorf("working set after an empty one: got %q, want none", got)
	}
}

func TestServiceBeatClassifiesTool(t *testing.T) {
	svc, store, clk, _ := newTestService(t, presence.Config{})
	id := presence.ID("a", "/b")
	mustBeat(t, svc, presence.Beat{AgentID: "a", Brain: "/b", Tool: "Read"})
	if got := dirstoretest.ReadRecord(t, store.Dir(), id).Mutation; got != (presence.Mutation{}) {
		t.Errorf("after Read: got mutation %+v, want none", got)
	}
	clk.Advance(time.Second)
	res := mustBeat(t, svc, presence.Beat{AgentID: "a", Brain: "/b", Tool: "Edit"})
	if !res.Stored {
		t.Errorf("first observed mutation: got %+v, want it stored at once", res)
	}
	if got, want := dirstoretest.ReadRecord(t, store.Dir(), id).Mutation, (presence.Mutation{ObservedAtMs: presencetest.T0 + 1000}); got != want {
		t.Errorf("after Edit: got mutation %+v, want %+v (never a declared intent)", got, want)
	}
	clk.Advance(time.Second)
	mustBeat(t, svc, presence.Beat{AgentID: "a", Brain: "/b", Tool: "Grep"})
	if got, want := snapshotRecord(t, svc, id).Mutation.ObservedAtMs, presencetest.T0+1000; got != want {
		t.Errorf("observed_at after Grep: got %d, want %d (kept)", got, want)
	}

	// A custom list replaces the defaults.
	c := presence.NewClassifier([]string{"Bash"})
	svc2, store2, _, _ := newTestService(t, presence.Config{Classifier: &c})
	mustBeat(t, svc2, presence.Beat{AgentID: "a", Brain: "/b", Tool: "Edit"})
	if got := dirstoretest.ReadRecord(t, store2.Dir(), id).Mutation; got != (presence.Mutation{}) {
		t.Errorf("custom list, after Edit: got %+v, want none", got)
	}
	mustBeat(t, svc2, presence.Beat{AgentID: "a", Brain: "/b", Tool: "bash"})
	if got := dirstoretest.ReadRecord(t, store2.Dir(), id).Mutation.ObservedAtMs; got != presencetest.T0 {
		t.Errorf("custom list, after bash: got observed_at %d, want %d", got, presencetest.T0)
	}
}

func TestServiceBeatRejectsBadInput(t *testing.T) {
	svc, store, _, _ := newTestService(t, presence.Config{})
	for _, b := range []presence.Beat{{Brain: "/b"}, {AgentID: "a"}, {AgentID: "a", Brain: "rel"}, {AgentID: "a", Brain: "/b", Theme: strings.Repeat("x", presence.MaxThemeLen+1)}} {
		if _, err := svc.Beat(context.Background(), b); err == nil {
			t.Errorf("Beat(%+v): got no error, want one", b)
		}
	}
	if got := dirstoretest.Names(t, store.Dir()); len(got) != 0 {
		t.Errorf("folder after bad beats: got %v, want empty", got)
	}
	if got := svc.Stats(); got.Beats != 0 || got.Writes != 0 {
		t.Errorf("stats after bad beats: got %+v, want no beats and no writes", got)
	}
}

// The throttle: one store write per presence per window; a changed signal
// writes at once; the projection stays exact between writes; the held state
// reaches the store when the window passes.
func TestServiceThrottle(t *testing.T) {
	ctx := context.Background()
	svc, store, clk, _ := newTestService(t, presence.Config{})
	id := presence.ID("claude-7", "/home/ana/shop")
	base := presence.Beat{AgentID: "claude-7", Brain: "/home/ana/shop"}
	beat := func(f func(*presence.Beat)) presence.BeatResult {
		b := base
		if f != nil {
			f(&b)
		}
		return mustBeat(t, svc, b)
	}
	wantWrites := int64(0)
	expectWrite := func(step string, res presence.BeatResult, stored bool) {
		t.Helper()
		if stored {
			wantWrites++
		}
		if res.Stored != stored || res.Throttled == stored {
			t.Errorf("%s: got stored=%v throttled=%v, want stored=%v", step, res.Stored, res.Throttled, stored)
		}
		if got := svc.Stats().Writes; got != wantWrites {
			t.Errorf("%s: got %d writes, want %d", step, got, wantWrites)
		}
		disk := dirstoretest.ReadRecord(t, store.Dir(), id)
		mem := snapshotRecord(t, svc, id)
		if stored && !reflect.DeepEqual(disk, mem) {
			t.Errorf("%s: stored record differs from memory:\ngot  %#v\nwant %#v", step, disk, mem)
		}
	}

	expectWrite("first beat", beat(func(b *presence.Beat) { b.Theme = "t1" }), true)

	clk.Advance(time.Second)
	res := beat(nil)
	expectWrite("same signal within 5 s", res, false)
	if res.Reason == "" {
		t.Errorf("throttled beat: got no reason, want one")
	}
	if got, want := dirstoretest.ReadRecord(t, store.Dir(), id), (struct{ last, count int64 }{presencetest.T0, 1}); got.LastBeatMs != want.last || got.QueryCount != want.count {
		t.Errorf("file after a throttled beat: got last_beat %d count %d, want %d %d (not written)", got.LastBeatMs, got.QueryCount, want.last, want.count)
	}
	if got := snapshotRecord(t, svc, id); got.LastBeatMs != presencetest.T0+1000 || got.QueryCount != 2 {
		t.Errorf("snapshot after a throttled beat: got last_beat %d count %d, want %d 2 (from memory)", got.LastBeatMs, got.QueryCount, presencetest.T0+1000)
	}
	if got := svc.Stats().Throttled; got != 1 {
		t.Errorf("Throttled: got %d, want 1", got)
	}

	// Each changed declaration forces a write at once, inside the window.
	for _, step := range []struct {
		name string
		f    func(*presence.Beat)
	}{
		{"theme", func(b *presence.Beat) { b.Theme = "t2" }},
		{"worktree", func(b *presence.Beat) { b.Worktree = "/w/wt" }},
		{"working_set", func(b *presence.Beat) { b.WorkingSet = []string{"src"} }},
		{"working_set changed", func(b *presence.Beat) { b.WorkingSet = []string{"src", "go.mod"} }},
		{"declared_intent", func(b *presence.Beat) { b.DeclaredIntent = "edit" }},
		{"caller_root", func(b *presence.Beat) { b.CallerRoot = "/w/wt/src" }},
		{"kind", func(b *presence.Beat) { b.Kind = "executor" }},
		{"task_ref", func(b *presence.Beat) { b.TaskRef = "msn_1" }},
		{"first observed mutation", func(b *presence.Beat) { b.Tool = "Edit" }},
	} {
		clk.Advance(100 * time.Millisecond)
		expectWrite("changed "+step.name, beat(step.f), true)
		clk.Advance(100 * time.Millisecond)
		expectWrite("unchanged after "+step.name, beat(step.f), false)
	}
	// A second observed mutation is no new signal: it waits for the window,
	// but memory has its time.
	clk.Advance(100 * time.Millisecond)
	expectWrite("second observed mutation", beat(func(b *presence.Beat) { b.Tool = "Write" }), false)
	held := snapshotRecord(t, svc, id)
	if got, want := held.Mutation.ObservedAtMs, clk.Now().UnixMilli(); got != want {
		t.Errorf("observed_at in memory: got %d, want %d", got, want)
	}
	if disk := dirstoretest.ReadRecord(t, store.Dir(), id); reflect.DeepEqual(disk, held) {
		t.Fatalf("file equals memory before the flush: the test would prove nothing")
	}

	// Inside the window FlushDue(false) holds back; after it, the held
	// state is written and the file equals the projection.
	clk.Advance(4 * time.Second)
	if n := svc.FlushDue(ctx, false); n != 0 {
		t.Errorf("FlushDue inside the window: got %d written, want 0", n)
	}
	clk.Advance(time.Second)
	if n := svc.FlushDue(ctx, false); n != 1 {
		t.Errorf("FlushDue after the window: got %d written, want 1", n)
	}
	wantWrites++
	if got := svc.Stats().Writes; got != wantWrites {
		t.Errorf("writes after FlushDue: got %d, want %d", got, wantWrites)
	}
	if got := dirstoretest.ReadRecord(t, store.Dir(), id); !reflect.DeepEqual(got, held) {
		t.Errorf("file after FlushDue:\ngot  %#v\nwant %#v", got, held)
	}
	if n := svc.FlushDue(ctx, true); n != 0 {
		t.Errorf("FlushDue with nothing held: got %d written, want 0", n)
	}

	// FlushDue(force) writes a held state at once, window or not.
	clk.Advance(time.Millisecond)
	expectWrite("within the window again", beat(nil), false)
	held = snapshotRecord(t, svc, id)
	if n := svc.FlushDue(ctx, true); n != 1 {
		t.Errorf("FlushDue(force): got %d written, want 1", n)
	}
	if got := dirstoretest.ReadRecord(t, store.Dir(), id); !reflect.DeepEqual(got, held) {
		t.Errorf("file after FlushDue(force):\ngot  %#v\nwant %#v", got, held)
	}
	if got, want := held.QueryCount, int64(22); got != want {
		t.Errorf("query_count: got %d, want %d", got, want)
	}
	if got, want := held.FirstSeenMs, presencetest.T0; got != want {
		t.Errorf("first_seen_ms: got %d, want %d", got, want)
	}
}

// A Hall that restarts picks up its presences where the store left them.
func TestServiceBeatSeedsFromStore(t *testing.T) {
	store := dirstoretest.Open(t)
	clk := presencetest.NewClock(presencetest.T0)
	prev := presencetest.Rec("claude-7", "/b", presencetest.Worktree("/w"), presencetest.LastBeat(presencetest.T0-10000))
	prev.FirstSeenMs, prev.QueryCount = presencetest.T0-60000, 41
	if err := store.Upsert(context.Background(), prev); err != nil {
		t.Fatal(err)
	}
	svc := presence.NewService(store, presence.Config{Now: clk.Now})
	res := mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: "/b"})
	if !res.Stored {
		t.Errorf("first beat after restart: got %+v, want stored", res)
	}
	got := dirstoretest.ReadRecord(t, store.Dir(), prev.PresenceID)
	if got.FirstSeenMs != presencetest.T0-60000 || got.QueryCount != 42 || got.Worktree != "/w" || got.LastBeatMs != presencetest.T0 {
		t.Errorf("after restart: got first_seen %d count %d worktree %q last_beat %d, want %d 42 /w %d",
			got.FirstSeenMs, got.QueryCount, got.Worktree, got.LastBeatMs, presencetest.T0-60000, presencetest.T0)
	}
	// A stale stored state is a new session: first_seen starts again.
	clk.Advance(presence.DefaultTTL + time.Second)
	svc2 := presence.NewService(store, presence.Config{Now: clk.Now})
	mustBeat(t, svc2, presence.Beat{AgentID: "claude-7", Brain: "/b"})
	got = dirstoretest.ReadRecord(t, store.Dir(), prev.PresenceID)
	if now := clk.Now().UnixMilli(); got.FirstSeenMs != now || got.QueryCount != 1 {
		t.Errorf("after a stale restart: got first_seen %d count %d, want %d 1", got.FirstSeenMs, got.QueryCount, now)
	}
}

// makeUnwritable makes the store's folder refuse new files: chmod 0o555
// where that binds, and where it does not (root) the folder is replaced by
// a regular file of the same name, so creating a temp file in it fails.
func makeUnwritable(tb testing.TB, dir string) {
	tb.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		tb.Fatalf("chmod: %v", err)
	}
	tb.Cleanup(func() { os.Chmod(dir, 0o755) })
	probe, err := os.CreateTemp(dir, "probe-*")
	if err != nil {
		return // the read-only folder binds
	}
	probe.Close()
	os.Remove(probe.Name())
	tb.Logf("chmod 0o555 does not stop this user (root?): replacing %s with a file", dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a folder"), 0o444); err != nil {
		tb.Fatal(err)
	}
	if f, err := os.CreateTemp(dir, "probe-*"); err == nil {
		f.Close()
		tb.Fatalf("folder still writable after replacing it with a file")
	}
}

func TestServiceBeatFailOpen(t *testing.T) {
	svc, store, _, logs := newTestService(t, presence.Config{})
	makeUnwritable(t, store.Dir())

	res, err := svc.Beat(context.Background(), presence.Beat{AgentID: "claude-7", Brain: "/b", Theme: "t"})
	if err != nil {
		t.Fatalf("Beat on an unwritable store: got error %v, want none", err)
	}
	if res.Stored {
		t.Errorf("Stored: got true, want false")
	}
	if res.Reason == "" {
		t.Errorf("Reason: got empty, want why it was not stored")
	}
	if got, want := res.PresenceID, presence.ID("claude-7", "/b"); got != want {
		t.Errorf("PresenceID: got %q, want %q", got, want)
	}
	st := svc.Stats()
	if st.WriteErrors != 1 || st.Writes != 0 || st.Beats != 1 {
		t.Errorf("stats: got %+v, want 1 beat, 1 write error, 0 writes", st)
	}
	if !strings.Contains(logs.String(), "presence not stored") {
		t.Errorf("log: got %q, want a line saying the presence was not stored", logs.String())
	}
	// A second beat within the window tries again rather than pretending
	// the first one landed.
	res = mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: "/b", Theme: "t"})
	if res.Stored || res.Throttled {
		t.Errorf("second beat: got stored=%v throttled=%v, want a new failed attempt", res.Stored, res.Throttled)
	}
	if got := svc.Stats().WriteErrors; got != 2 {
		t.Errorf("WriteErrors: got %d, want 2", got)
	}
	if n := svc.FlushDue(context.Background(), true); n != 0 {
		t.Errorf("FlushDue on an unwritable store: got %d written, want 0", n)
	}
}

// 100 goroutines beat one presence, some with a changed declaration (a
// forced write), most without (throttled): one valid file remains, and the
// count is exact once the held state is flushed.
func TestServiceConcurrentBeatsOnePresence(t *testing.T) {
	ctx := context.Background()
	svc, store, clk, _ := newTestService(t, presence.Config{})
	const n = 100
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			b := presence.Beat{AgentID: "claude-7", Brain: "/home/ana/shop", Tool: "Read"}
			if i%10 == 0 {
				b.DeclaredIntent = fmt.Sprintf("step %d", i) // a changed signal: written at once
			}
			if i%7 == 0 {
				clk.Advance(time.Millisecond)
			}
			res, err := svc.Beat(ctx, b)
			if err != nil {
				errs <- err
				return
			}
			if !res.Stored && !res.Throttled {
				errs <- fmt.Errorf("beat %d: neither stored nor throttled: %s", i, res.Reason)
			}
			if i%3 == 0 {
				if _, err := svc.Snapshot(ctx); err != nil {
					errs <- err
				}
			}
		}(i)
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := svc.Stats()
	if st.Beats != n {
		t.Errorf("Beats: got %d, want %d", st.Beats, n)
	}
	if st.Writes < 1 || st.Throttled < 1 || st.Writes+st.Throttled != n || st.WriteErrors != 0 {
		t.Errorf("stats: got %+v, want writes and throttled beats adding up to %d", st, n)
	}
	svc.FlushDue(ctx, true)

	id := presence.ID("claude-7", "/home/ana/shop")
	if got, want := dirstoretest.Names(t, store.Dir()), []string{id + ".json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("folder: got %v, want %v", got, want)
	}
	disk := dirstoretest.ReadRecord(t, store.Dir(), id)
	if got := disk.QueryCount; got != n {
		t.Errorf("query_count on disk: got %d, want %d", got, n)
	}
	if got := snapshotRecord(t, svc, id).QueryCount; got != n {
		t.Errorf("query_count in Snapshot: got %d, want %d", got, n)
	}
	if disk.FirstSeenMs < presencetest.T0 || disk.FirstSeenMs > disk.LastBeatMs {
		t.Errorf("first_seen_ms: got %d, want between %d and last_beat %d", disk.FirstSeenMs, presencetest.T0, disk.LastBeatMs)
	}
}

func TestServiceLeave(t *testing.T) {
	ctx := context.Background()
	svc, store, _, _ := newTestService(t, presence.Config{})
	res := mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: "/b", Worktree: "/w", Tool: "Edit"})
	other := mustBeat(t, svc, presence.Beat{AgentID: "codex-1", Brain: "/b", Worktree: "/w", Tool: "Edit"})
	if len(other.Collisions) != 1 {
		t.Fatalf("collisions before leave: got %d, want 1", len(other.Collisions))
	}

	if err := svc.Leave(ctx, res.PresenceID); err != nil {
		t.Fatalf("Leave: %v", err)
	}
	if _, err := os.Stat(filepath.Join(store.Dir(), res.PresenceID+".json")); !os.IsNotExist(err) {
		t.Errorf("file after Leave: got %v, want it gone", err)
	}
	snap, err := svc.Snapshot(ctx)
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if _, ok := snap.Find(res.PresenceID); ok {
		t.Errorf("roster after Leave: got %s still live, want it gone", res.PresenceID)
	}
	if len(snap.Collisions) != 0 {
		t.Errorf("collisions after Leave: got %d, want 0", len(snap.Collisions))
	}
	// A flush after leave does not resurrect it.
	svc.FlushDue(ctx, true)
	if _, err := os.Stat(filepath.Join(store.Dir(), res.PresenceID+".json")); !os.IsNotExist(err) {
		t.Errorf("file after Leave and FlushDue: got %v, want it gone", err)
	}

	if err := svc.Leave(ctx, res.PresenceID); presence.ErrorCode(err) != presence.ENOTFOUND {
		t.Errorf("Leave twice: got %v, want code %q", err, presence.ENOTFOUND)
	}
	if err := svc.Leave(ctx, "prs_000000000000"); presence.ErrorCode(err) != presence.ENOTFOUND {
		t.Errorf("Leave unknown: got %v, want code %q", err, presence.ENOTFOUND)
	}
	for _, bad := range []string{"", "../x", "prs_XYZ", "prs_cc073e458413/../x"} {
		if err := svc.Leave(ctx, bad); presence.ErrorCode(err) != presence.EINVALID {
			t.Errorf("Leave(%q): got %v, want code %q", bad, err, presence.EINVALID)
		}
	}
	// A presence another writer stored is left the same way.
	foreign := presencetest.Rec("m1nd", "/b", presencetest.LastBeat(presencetest.T0))
	if err := store.Upsert(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	if err := svc.Leave(ctx, foreign.PresenceID); err != nil {
		t.Errorf("Leave(foreign): got %v, want nil", err)
	}
	if got, want := dirstoretest.Names(t, store.Dir()), []string{other.PresenceID + ".json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("folder: got %v, want %v", got, want)
	}
}

func TestServiceSnapshotUnreadableStore(t *testing.T) {
	svc, store, _, _ := newTestService(t, presence.Config{Brains: []string{"/configured"}})
	mustBeat(t, svc, presence.Beat{AgentID: "a", Brain: "/b"})
	if err := os.RemoveAll(store.Dir()); err != nil {
		t.Fatal(err)
	}
	snap, err := svc.Snapshot(context.Background())
	if presence.ErrorCode(err) != presence.EUNAVAILABLE {
		t.Errorf("Snapshot over a missing folder: got %v, want code %q", err, presence.EUNAVAILABLE)
	}
	if len(snap.Live) != 0 || len(snap.Collisions) != 0 {
		t.Errorf("Snapshot over a missing folder: got %d live, %d collisions, want the roster dropped whole", len(snap.Live), len(snap.Collisions))
	}
	if !snap.Known("/configured") {
		t.Errorf("Known(configured brain): got false, want true")
	}
}

// Projections of sessions that went silent are forgotten once stale, even
// when their last state never reached an unwritable store: memory stays
// bounded by the live sessions.
func TestServiceForgetsStaleProjections(t *testing.T) {
	ctx := context.Background()
	svc, store, clk, _ := newTestService(t, presence.Config{})
	mustBeat(t, svc, presence.Beat{AgentID: "written", Brain: "/b"})
	clk.Advance(time.Second)
	mustBeat(t, svc, presence.Beat{AgentID: "written", Brain: "/b"}) // throttled: dirty
	makeUnwritable(t, store.Dir())
	for i := 0; i < 20; i++ {
		mustBeat(t, svc, presence.Beat{AgentID: fmt.Sprintf("lost-%d", i), Brain: "/b"})
	}
	entries := svc.Projections
	if got, want := entries(), 21; got != want {
		t.Fatalf("projections while live: got %d, want %d", got, want)
	}
	svc.FlushDue(ctx, false)
	if got, want := entries(), 21; got != want {
		t.Fatalf("projections after a flush while live: got %d, want %d", got, want)
	}
	clk.Advance(presence.DefaultTTL + time.Second)
	if n := svc.FlushDue(ctx, true); n != 0 {
		t.Errorf("FlushDue of stale states: got %d written, want 0", n)
	}
	if got := entries(); got != 0 {
		t.Errorf("projections after every session went stale: got %d, want 0", got)
	}
}

// A session an older Hall recorded under its SHA-256 id goes on under
// m1nd's id: first seen, count and declarations carried over; the old
// file is left to lapse, never written again.
func TestServiceBeatSeedsFromLegacyID(t *testing.T) {
	store := dirstoretest.Open(t)
	clk := presencetest.NewClock(presencetest.T0)
	prev := presencetest.Rec("claude-7", "/b", presencetest.Worktree("/w"), presencetest.LastBeat(presencetest.T0-10000))
	prev.PresenceID = presence.LegacyID("claude-7", "/b")
	prev.FirstSeenMs, prev.QueryCount = presencetest.T0-60000, 41
	if err := store.Upsert(context.Background(), prev); err != nil {
		t.Fatal(err)
	}
	svc := presence.NewService(store, presence.Config{Now: clk.Now})
	res := mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: "/b"})
	if want := presence.ID("claude-7", "/b"); res.PresenceID != want || !res.Stored {
		t.Fatalf("beat: got %+v, want %s stored", res, want)
	}
	got := dirstoretest.ReadRecord(t, store.Dir(), res.PresenceID)
	if got.FirstSeenMs != presencetest.T0-60000 || got.QueryCount != 42 || got.Worktree != "/w" {
		t.Errorf("new id's record: got first_seen %d count %d worktree %q, want %d 42 /w",
			got.FirstSeenMs, got.QueryCount, got.Worktree, presencetest.T0-60000)
	}
	if old := dirstoretest.ReadRecord(t, store.Dir(), prev.PresenceID); !reflect.DeepEqual(old, prev) {
		t.Errorf("old record: got %#v, want it untouched %#v", old, prev)
	}
}
