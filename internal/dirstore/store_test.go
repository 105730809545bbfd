package dirstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/atomicfile"
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

func TestDirStoreRoundtrip(t *testing.T) {
	ctx := context.Background()
	s := dirstoretest.Open(t)
	a := presencetest.SpecRecord()
	a.PresenceID = presence.ID(a.AgentID, a.Brain)
	b := presencetest.Rec("codex-1", brain, presencetest.WS("src"), presencetest.Intent("fix"))

	for _, r := range []presence.Record{a, b} {
		if err := s.Upsert(ctx, r); err != nil {
			t.Fatalf("Upsert(%s): %v", r.PresenceID, err)
		}
	}
	got, err := s.Get(ctx, a.PresenceID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if !reflect.DeepEqual(got, a) {
		t.Errorf("Get:\ngot  %#v\nwant %#v", got, a)
	}
	raw, err := os.ReadFile(filepath.Join(s.Dir(), a.PresenceID+".json"))
	if err != nil {
		t.Fatalf("record file: %v", err)
	}
	if !strings.HasPrefix(string(raw), "{\n  \"schema\": \"m1nd-presence-v0\",\n") {
		t.Errorf("record file: got %q..., want pretty-printed JSON starting with the schema", raw[:min(40, len(raw))])
	}

	// Upsert again: still one file per presence, holding the new state.
	a.QueryCount, a.Theme = 42, "second"
	if err := s.Upsert(ctx, a); err != nil {
		t.Fatalf("Upsert again: %v", err)
	}
	if got, want := dirstoretest.Names(t, s.Dir()), []string{b.PresenceID + ".json", a.PresenceID + ".json"}; !sameSet(got, want) {
		t.Errorf("folder: got %v, want exactly %v (no temp files)", got, want)
	}
	l, err := s.List(ctx)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if l.Skipped != 0 {
		t.Errorf("Skipped: got %d, want 0", l.Skipped)
	}
	byID := map[string]presence.Record{}
	for _, r := range l.Records {
		byID[r.PresenceID] = r
	}
	if got := byID[a.PresenceID]; !reflect.DeepEqual(got, a) {
		t.Errorf("List record a:\ngot  %#v\nwant %#v", got, a)
	}
	if got := byID[b.PresenceID]; !reflect.DeepEqual(got, b) {
		t.Errorf("List record b:\ngot  %#v\nwant %#v", got, b)
	}
	if got, want := len(l.Records), 2; got != want {
		t.Errorf("List: got %d records, want %d", got, want)
	}

	if err := s.Delete(ctx, a.PresenceID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(ctx, a.PresenceID); presence.ErrorCode(err) != presence.ENOTFOUND {
		t.Errorf("Get after Delete: got %v, want code %q", err, presence.ENOTFOUND)
	}
	if err := s.Delete(ctx, a.PresenceID); presence.ErrorCode(err) != presence.ENOTFOUND {
		t.Errorf("Delete again: got %v, want code %q", err, presence.ENOTFOUND)
	}
	if err := s.Delete(ctx, "prs_000000000000"); presence.ErrorCode(err) != presence.ENOTFOUND {
		t.Errorf("Delete unknown: got %v, want code %q", err, presence.ENOTFOUND)
	}
	if got, want := dirstoretest.Names(t, s.Dir()), []string{b.PresenceID + ".json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("folder after Delete: got %v, want %v", got, want)
	}
}

func sameSet(a, b []string) bool {
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	return reflect.DeepEqual(a, b)
}

func TestDirStoreRejectsCraftedIDs(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := dirstore.New(root)
	if err := s.Init(); err != nil {
		t.Fatalf("Init: %v", err)
	}
	// A file a traversal would reach if the id named a path.
	victim := dirstoretest.WriteFile(t, root, "x.json", []byte(presencetest.SpecExample))
	for _, id := range []string{"../x", "../presences/../x", "/etc/passwd", "prs_CC073E458413", "", "prs_cc073e45841/"} {
		if _, err := s.Get(ctx, id); presence.ErrorCode(err) != presence.EINVALID {
			t.Errorf("Get(%q): got %v, want code %q", id, err, presence.EINVALID)
		}
		if err := s.Delete(ctx, id); presence.ErrorCode(err) != presence.EINVALID {
			t.Errorf("Delete(%q): got %v, want code %q", id, err, presence.EINVALID)
		}
		r := presencetest.SpecRecord()
		r.PresenceID = id
		if err := s.Upsert(ctx, r); presence.ErrorCode(err) != presence.EINVALID {
			t.Errorf("Upsert(%q): got %v, want code %q", id, err, presence.EINVALID)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("file outside the folder: got %v, want it untouched", err)
	}
	if got := dirstoretest.Names(t, root); !reflect.DeepEqual(got, []string{"presences", "x.json"}) {
		t.Errorf("registry root: got %v, want [presences x.json]", got)
	}
	if got := dirstoretest.Names(t, s.Dir()); len(got) != 0 {
		t.Errorf("presences folder: got %v, want empty", got)
	}
}

func TestDirStoreListReadsForeignAndSkipsBroken(t *testing.T) {
	ctx := context.Background()
	s := dirstoretest.Open(t)
	dir := s.Dir()

	want := map[string]presence.Record{}
	foreign := func(name string, r presence.Record, data string) {
		dirstoretest.WriteFile(t, dir, name, []byte(data))
		want[r.PresenceID] = r
	}
	// Pretty, the spec's own example, under a name that is not its id.
	foreign("prs_3fa94c0e11d2.json", presencetest.SpecRecord(), presencetest.SpecExample)
	// Compact, reversed field order, unknown fields at every level.
	r2 := presence.Record{Schema: presence.Schema, PresenceID: "prs_aaaaaaaaaaaa", AgentID: "m1nd-runtime", Brain: "/srv/brain",
		WorkingSet: []string{"a"}, Mutation: presence.Mutation{ObservedAtMs: 7}, LastBeatMs: 99, QueryCount: 3}
	foreign("prs_aaaaaaaaaaaa.json", r2, `{"query_count":3,"last_beat_ms":99,"mutation":{"observed_at_ms":7,"level":"observed"},`+
		`"working_set":["a"],"brain":"/srv/brain","agent_id":"m1nd-runtime","presence_id":"prs_aaaaaaaaaaaa","runtime":{"pid":1},"tags":["x"]}`)
	// Null mutation, tabs and CRLF, no schema.
	r3 := presence.Record{Schema: presence.Schema, PresenceID: "prs_bbbbbbbbbbbb", AgentID: "script", Brain: "/srv/brain", LastBeatMs: 5}
	foreign("prs_bbbbbbbbbbbb.json", r3, "{\r\n\t\"presence_id\": \"prs_bbbbbbbbbbbb\",\r\n\t\"agent_id\": \"script\",\r\n\t\"brain\": \"/srv/brain\",\r\n\t\"mutation\": null,\r\n\t\"last_beat_ms\": 5\r\n}\r\n")

	// Over a beat's limits, as m1nd may write it (no length limits in its
	// serde): 65 working-set entries, a 300-byte theme, a declared
	// worktree string, a brain not clean. Shown as written.
	r4 := presence.Record{Schema: presence.Schema, PresenceID: "prs_cccccccccccf", AgentID: "a", Brain: "/b/", Worktree: "feat/x",
		Theme: strings.Repeat("t", 300), WorkingSet: slices.Repeat([]string{"a"}, presence.MaxWorkingSetLen+1), LastBeatMs: 1}
	foreign("prs_cccccccccccf.json", r4, `{"presence_id":"prs_cccccccccccf","agent_id":"a","brain":"/b/","worktree":"feat/x","last_beat_ms":1,"theme":"`+
		strings.Repeat("t", 300)+`","working_set":["`+strings.Repeat(`a","`, presence.MaxWorkingSetLen)+`a"]}`)

	// Names that are not records: ignored, not counted, even with valid content.
	for _, name := range []string{"README.md", "prs_dddddddddddd.json.bak", "prs_dddddddddddd.txt", "prs_dddddddddddd",
		".tmp-prs_dddddddddddd-123", ".hidden.json", "prs_dddddddddddd.JSON~"} {
		dirstoretest.WriteFile(t, dir, name, []byte(`{"presence_id":"prs_dddddddddddd","agent_id":"x","brain":"/b","last_beat_ms":1}`))
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.json"), 0o755); err != nil {
		t.Fatal(err)
	}

	// Files that look like records but are not: skipped and counted.
	broken := map[string]string{
		"garbage.json":        "this is not json",
		"truncated.json":      presencetest.SpecExample[:100],
		"empty.json":          "",
		"array.json":          `[{"presence_id":"prs_eeeeeeeeeeee"}]`,
		"no-presence-id.json": `{"agent_id":"a","brain":"/b","last_beat_ms":1}`,
		"no-agent-id.json":    `{"presence_id":"prs_eeeeeeeeeeee","brain":"/b","last_beat_ms":1}`,
		"no-brain.json":       `{"presence_id":"prs_eeeeeeeeeeee","agent_id":"a","last_beat_ms":1}`,
		"no-last-beat.json":   `{"presence_id":"prs_eeeeeeeeeeee","agent_id":"a","brain":"/b"}`,
		"empty-brain.json":    `{"presence_id":"prs_eeeeeeeeeeee","agent_id":"a","brain":"","last_beat_ms":1}`,
		// Whole records filed under another name than their own id: they
		// would speak for another presence, or outlive its leave.
		"cursor-session.json":   `{"presence_id":"prs_cccccccccccc","agent_id":"cursor","brain":"/srv/brain","last_beat_ms":6}`,
		"prs_cccccccccccd.json": `{"presence_id":"prs_cccccccccccc","agent_id":"cursor","brain":"/srv/brain","last_beat_ms":6}`,
		"__proto__.json":        `{"presence_id":"__proto__","agent_id":"cursor","brain":"/srv/brain","last_beat_ms":6}`,
		// Valid JSON, but over MaxRecordBytes: skipped unread.
		"huge.json": `{"presence_id":"prs_ffffffffffff","agent_id":"a","brain":"/b","last_beat_ms":1,"pad":"` +
			strings.Repeat("x", presence.MaxRecordBytes) + `"}`,
	}
	for name, data := range broken {
		dirstoretest.WriteFile(t, dir, name, []byte(data))
	}

	l, err := s.List(ctx)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	got := map[string]presence.Record{}
	for _, r := range l.Records {
		got[r.PresenceID] = r
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("List records:\ngot  %#v\nwant %#v", got, want)
	}
	if got, want := l.Skipped, len(broken); got != want {
		t.Errorf("List Skipped: got %d, want %d", got, want)
	}

	// Get reads a foreign record by id, and reports a broken one as
	// unavailable rather than absent.
	if r, err := s.Get(ctx, "prs_aaaaaaaaaaaa"); err != nil || !reflect.DeepEqual(r, r2) {
		t.Errorf("Get(foreign): got %#v, %v, want %#v", r, err, r2)
	}
	dirstoretest.WriteFile(t, dir, "prs_eeeeeeeeeeee.json", []byte("{broken"))
	if _, err := s.Get(ctx, "prs_eeeeeeeeeeee"); presence.ErrorCode(err) != presence.EUNAVAILABLE {
		t.Errorf("Get(broken): got %v, want code %q", err, presence.EUNAVAILABLE)
	}
}

func TestDirStoreListMissingFolder(t *testing.T) {
	s := dirstore.New(filepath.Join(t.TempDir(), "nope"))
	if _, err := s.List(context.Background()); presence.ErrorCode(err) != presence.EUNAVAILABLE {
		t.Errorf("List without Init: got %v, want code %q", err, presence.EUNAVAILABLE)
	}
	if err := s.Init(); err != nil {
		t.Fatalf("Init: %v", err)
	}
	l, err := s.List(context.Background())
	if err != nil || len(l.Records) != 0 || l.Skipped != 0 {
		t.Errorf("List after Init: got %+v, %v, want empty", l, err)
	}
	if err := s.Init(); err != nil {
		t.Errorf("Init twice: got %v, want nil", err)
	}
}

func TestDirStoreReclaim(t *testing.T) {
	ctx := context.Background()
	s := dirstoretest.Open(t)
	dir := s.Dir()
	now := time.Now()
	nowMs := now.UnixMilli()

	live := presencetest.Rec("live", brain, presencetest.LastBeat(nowMs-1000))
	boundary := presencetest.Rec("boundary", brain, presencetest.LastBeat(nowMs-300), presencetest.TTL(300)) // exactly at ttl: live
	stale := presencetest.Rec("stale", brain, presencetest.LastBeat(nowMs-120001))                           // default ttl passed by 1 ms
	staleShort := presencetest.Rec("short", brain, presencetest.LastBeat(nowMs-301), presencetest.TTL(300))
	for _, r := range []presence.Record{live, boundary, stale, staleShort} {
		if err := s.Upsert(ctx, r); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
	}
	// A stale record another writer wrote is reclaimed too.
	dirstoretest.WriteFile(t, dir, "prs_aaaaaaaaaaaa.json",
		[]byte(fmt.Sprintf(`{"presence_id":"prs_aaaaaaaaaaaa","agent_id":"x","brain":"/b","last_beat_ms":%d}`, nowMs-200000)))
	// One filed under another name is skipped at read, and left alone.
	misfiled := dirstoretest.WriteFile(t, dir, "foreign.json",
		[]byte(fmt.Sprintf(`{"presence_id":"prs_aaaaaaaaaaab","agent_id":"x","brain":"/b","last_beat_ms":%d}`, nowMs-200000)))
	undecodable := dirstoretest.WriteFile(t, dir, "junk.json", []byte("not a record"))
	notes := dirstoretest.WriteFile(t, dir, "notes.txt", []byte("keep me"))
	oldTemp := dirstoretest.WriteFile(t, dir, dirstore.TempPrefix+"prs_aaaaaaaaaaaa-1", []byte("{half"))
	freshTemp := dirstoretest.WriteFile(t, dir, dirstore.TempPrefix+"prs_bbbbbbbbbbbb-2", []byte("{half"))
	// What a writer killed mid-write leaves now (atomicfile's name), and
	// what an older Hall left (TempPrefix): both reclaimed once old.
	oldWrite := dirstoretest.WriteFile(t, dir, filepath.Base(atomicfile.TempName("prs_cccccccccccc.json")), []byte("{half"))
	old := now.Add(-2 * time.Minute)
	for _, p := range []string{oldTemp, oldWrite, undecodable, notes} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatalf("Chtimes: %v", err)
		}
	}
	recent := now.Add(-10 * time.Second)
	if err := os.Chtimes(freshTemp, recent, recent); err != nil {
		t.Fatalf("Chtimes: %v", err)
	}

	rep, err := s.Reclaim(ctx, nowMs)
	if err != nil {
		t.Fatalf("Reclaim: %v", err)
	}
	if got, want := rep, (presence.ReclaimReport{StaleRecords: 3, TempFiles: 2}); got != want {
		t.Errorf("Reclaim report: got %+v, want %+v", got, want)
	}
	wantNames := []string{live.PresenceID + ".json", boundary.PresenceID + ".json", filepath.Base(misfiled), "junk.json", "notes.txt", filepath.Base(freshTemp)}
	if got := dirstoretest.Names(t, dir); !sameSet(got, wantNames) {
		t.Errorf("folder after Reclaim: got %v, want %v", got, wantNames)
	}
	// A second reclaim finds nothing more.
	if rep, err := s.Reclaim(ctx, nowMs); err != nil || rep != (presence.ReclaimReport{}) {
		t.Errorf("second Reclaim: got %+v, %v, want nothing reclaimed", rep, err)
	}
}

// Writers replace large records in a loop while readers list and get them:
// every read decodes whole, and each record is consistent with itself.
func TestDirStoreConcurrentReadersNeverSeePartialFiles(t *testing.T) {
	ctx := context.Background()
	s := dirstoretest.Open(t)
	const (
		writers = 3
		readers = 4
		iters   = 150
	)
	// A record near the field limits: about 64 KiB of working set, so a
	// torn write would be visible to any reader that caught it.
	big := func(w, i int) presence.Record {
		agent := fmt.Sprintf("writer-%d", w)
		r := presencetest.Rec(agent, brain)
		r.Theme = "iter " + strconv.Itoa(i) + " " + strings.Repeat("t", presence.MaxThemeLen-20)
		n := i%presence.MaxWorkingSetLen + 1
		r.WorkingSet = make([]string, n)
		for k := range r.WorkingSet {
			r.WorkingSet[k] = fmt.Sprintf("/%04d/", k) + strings.Repeat("p", presence.MaxPathLen-7)
		}
		r.QueryCount = int64(i)
		r.CallerRoot = "/" + strings.Repeat("c", presence.MaxPathLen-1)
		r.Mutation.DeclaredIntent = strings.Repeat("d", presence.MaxThemeLen)
		return r
	}
	check := func(r presence.Record) error {
		var i int
		if _, err := fmt.Sscanf(r.Theme, "iter %d", &i); err != nil {
			return fmt.Errorf("theme %q: %v", r.Theme[:min(20, len(r.Theme))], err)
		}
		if got, want := len(r.WorkingSet), i%presence.MaxWorkingSetLen+1; got != want {
			return fmt.Errorf("iter %d: got %d working-set entries, want %d", i, got, want)
		}
		if got, want := r.QueryCount, int64(i); got != want {
			return fmt.Errorf("iter %d: got query_count %d, want %d", i, got, want)
		}
		return nil
	}
	// Seed every record so readers always find them.
	for w := 0; w < writers; w++ {
		if err := s.Upsert(ctx, big(w, 0)); err != nil {
			t.Fatalf("Upsert: %v", err)
		}
	}
	if n, _ := json.Marshal(big(0, presence.MaxWorkingSetLen-1)); len(n) < 64<<10 {
		t.Fatalf("record size: got %d bytes, want at least 64 KiB", len(n))
	}

	stop := make(chan struct{})
	errs := make(chan error, 64)
	var wwg, rwg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wwg.Add(1)
		go func(w int) {
			defer wwg.Done()
			for i := 1; i <= iters; i++ {
				if err := s.Upsert(ctx, big(w, i)); err != nil {
					errs <- fmt.Errorf("Upsert: %v", err)
					return
				}
			}
		}(w)
	}
	var reads, lists int64
	var mu sync.Mutex
	for k := 0; k < readers; k++ {
		rwg.Add(1)
		go func(k int) {
			defer rwg.Done()
			var myReads, myLists int64
			defer func() { mu.Lock(); reads += myReads; lists += myLists; mu.Unlock() }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if k%2 == 0 {
					l, err := s.List(ctx)
					if err != nil {
						errs <- fmt.Errorf("List: %v", err)
						return
					}
					myLists++
					if l.Skipped != 0 {
						errs <- fmt.Errorf("List: got Skipped %d, want 0 (a partial file was read)", l.Skipped)
						return
					}
					if len(l.Records) != writers {
						errs <- fmt.Errorf("List: got %d records, want %d", len(l.Records), writers)
						return
					}
					for _, r := range l.Records {
						if err := check(r); err != nil {
							errs <- fmt.Errorf("List: %v", err)
							return
						}
					}
				} else {
					id := presence.ID(fmt.Sprintf("writer-%d", myReads%writers), brain)
					r, err := s.Get(ctx, id)
					if err != nil {
						errs <- fmt.Errorf("Get(%s): %v", id, err)
						return
					}
					if err := check(r); err != nil {
						errs <- fmt.Errorf("Get: %v", err)
						return
					}
					myReads++
				}
			}
		}(k)
	}
	wwg.Wait()
	close(stop)
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if reads == 0 || lists == 0 {
		t.Errorf("readers: got %d gets and %d lists, want some of each", reads, lists)
	}
	if got := dirstoretest.Names(t, s.Dir()); len(got) != writers {
		t.Errorf("folder after the run: got %v, want %d record files and no temp files", got, writers)
	}
	for w := 0; w < writers; w++ {
		r := dirstoretest.ReadRecord(t, s.Dir(), presence.ID(fmt.Sprintf("writer-%d", w), brain))
		if got, want := r.QueryCount, int64(iters); got != want {
			t.Errorf("writer %d final query_count: got %d, want %d", w, got, want)
		}
	}
}

// bounded runs f, failing the test rather than hanging it when f blocks.
func bounded(tb testing.TB, what string, f func()) {
	tb.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		tb.Fatalf("%s blocked", what)
	}
}

// TestDirStoreNeverOpensNonRegularEntries: FIFOs, devices and symlinks
// named like records are never read, by any reader (List, Reclaim, Get,
// and the read itself when an entry is swapped after it was looked at):
// nothing blocks, each is skipped and counted, a symlink is not followed
// even to a whole record named for its id, and the good record is read.
func TestDirStoreNeverOpensNonRegularEntries(t *testing.T) {
	ctx := context.Background()
	s := dirstoretest.Open(t)
	dir := s.Dir()
	good := presencetest.Rec("good", brain)
	if err := s.Upsert(ctx, good); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	fifo := filepath.Join(elsewhere, "fifo")
	mkfifo(t, fifo)
	linked := presencetest.Rec("linked", brain)
	target := dirstoretest.WriteFile(t, elsewhere, linked.PresenceID+".json", presencetest.Encode(t, linked))
	shadowed := presencetest.Rec("shadowed", brain)
	mkfifo(t, filepath.Join(dir, shadowed.PresenceID+".json"))
	mkfifo(t, filepath.Join(dir, "fifo.json"))
	symlink(t, fifo, filepath.Join(dir, "to-fifo.json"))
	symlink(t, "/dev/zero", filepath.Join(dir, "to-zero.json"))
	symlink(t, "/proc/self/fd/0", filepath.Join(dir, "to-stdin.json"))
	symlink(t, target, filepath.Join(dir, linked.PresenceID+".json"))
	symlink(t, filepath.Join(dir, good.PresenceID+".json"), filepath.Join(dir, "to-good.json"))
	const nonRegular = 7

	var l presence.Listing
	var err error
	bounded(t, "List", func() { l, err = s.List(ctx) })
	if err != nil || len(l.Records) != 1 || l.Records[0].PresenceID != good.PresenceID || l.Skipped != nonRegular {
		t.Errorf("List: got %d records %v, %d skipped, %v; want good alone and %d skipped", len(l.Records), l.Records, l.Skipped, err, nonRegular)
	}
	bounded(t, "Reclaim", func() { _, err = s.Reclaim(ctx, time.Now().UnixMilli()) })
	if err != nil {
		t.Errorf("Reclaim: %v", err)
	}
	for _, id := range []string{shadowed.PresenceID, linked.PresenceID} {
		bounded(t, "Get "+id, func() { _, err = s.Get(ctx, id) })
		if presence.ErrorCode(err) != presence.EUNAVAILABLE {
			t.Errorf("Get(%s) over a non-regular entry: got %v, want unavailable", id, err)
		}
	}
	// Looked at as a regular file, then swapped for a FIFO before it is
	// opened: the read checks what it opened.
	swapped := presencetest.Rec("swapped", brain)
	name := swapped.PresenceID + ".json"
	mkfifo(t, filepath.Join(dir, name))
	bounded(t, "readRecord", func() { _, err = s.ReadRecord(name) })
	if !errors.Is(err, dirstore.ErrNotRegular) {
		t.Errorf("readRecord of a FIFO: got %v, want errNotRegular", err)
	}
	// A beat's write replaces the FIFO at its own name.
	if err := s.Upsert(ctx, shadowed); err != nil {
		t.Fatalf("Upsert over a FIFO: %v", err)
	}
	if r, err := s.Get(ctx, shadowed.PresenceID); err != nil || r.AgentID != "shadowed" {
		t.Errorf("Get after Upsert over a FIFO: got %+v, %v", r, err)
	}
}

// TestDirStoreDeleteRemovesAMisfiledClaim: a record in another file
// claiming a presence's id never speaks for it: List shows the presence
// from its own file, and once Delete removed that, nothing shows it.
func TestDirStoreDeleteRemovesAMisfiledClaim(t *testing.T) {
	ctx := context.Background()
	s := dirstoretest.Open(t)
	real := presencetest.Rec("real", brain)
	real.Theme = "real"
	if err := s.Upsert(ctx, real); err != nil {
		t.Fatal(err)
	}
	forged := real
	forged.LastBeatMs, forged.Theme = real.LastBeatMs+60_000, "forged"
	dirstoretest.WriteFile(t, s.Dir(), "zzz-forged.json", presencetest.Encode(t, forged))
	l, err := s.List(ctx)
	if err != nil || len(l.Records) != 1 || l.Records[0].Theme != "real" || l.Skipped != 1 {
		t.Fatalf("List: got %+v, %v; want the real record alone and the forgery skipped", l, err)
	}
	if err := s.Delete(ctx, real.PresenceID); err != nil {
		t.Fatal(err)
	}
	if l, err := s.List(ctx); err != nil || len(l.Records) != 0 || l.Skipped != 1 {
		t.Errorf("List after Delete: got %+v, %v; want no record, the forgery still skipped", l, err)
	}
}
