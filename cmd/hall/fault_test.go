package main

// The fault suite: each fault is injected into a running Hall (the real
// Main on 127.0.0.1:0 over a temp registry) and the behaviour the spec
// promises is asserted while it lasts and after it ends. The faults that
// need another process (a full disk, a writer killed mid-write, 10,000
// subscribers dropping at once, SIGTERM) are in fault_proc_test.go.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// faultWait bounds "it eventually happens" in the fault suite: generous for
// a loaded 2-core machine under -race, never a measure of speed.
const faultWait = 30 * time.Second

// rosterIDs is the comparable core of a roster: agent ids and collision ids,
// sorted.
func rosterIDs(r contract.PresencesResponse) (agents, collisions []string) {
	for _, p := range r.Presences {
		agents = append(agents, p.AgentID)
	}
	for _, c := range r.Collisions {
		collisions = append(collisions, c.CollisionID)
	}
	slices.Sort(agents)
	slices.Sort(collisions)
	return agents, collisions
}

// readContract reads GET /api/presences, requiring 200, and returns the
// decoded answer and its raw body.
func readContract(tb testing.TB, base string) (contract.PresencesResponse, []byte) {
	tb.Helper()
	resp, err := http.Get(base + "/api/presences")
	if err != nil {
		tb.Fatalf("GET /api/presences: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("GET /api/presences: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET /api/presences: got %d %s, want 200", resp.StatusCode, body)
	}
	var out contract.PresencesResponse
	if err := json.Unmarshal(body, &out); err != nil {
		tb.Fatalf("GET /api/presences: decode %q: %v", body, err)
	}
	return out, body
}

func readHealth(tb testing.TB, base string) contract.Health {
	tb.Helper()
	var h contract.Health
	if got := getJSON(tb, base+"/api/health", &h); got != http.StatusOK {
		tb.Fatalf("GET /api/health: got %d, want 200", got)
	}
	return h
}

// assertFailOpen checks every surface while the registry cannot be read:
// the contract is 200 with both lists empty and registry_unreadable; health
// is 200 without a presences block and says why; cockpit, north, the page,
// its fragments and the recent events still answer 200; a beat is 200 with
// stored false.
func assertFailOpen(tb testing.TB, base string, fault string) {
	tb.Helper()
	var got contract.PresencesResponse
	var raw []byte
	eventually.True(tb, faultWait, "the roster dropped ("+fault+")", func() bool {
		got, raw = readContract(tb, base)
		return got.Error != ""
	})
	if got.Error != "registry_unreadable" || got.Detail == "" || len(got.Presences) != 0 || len(got.Collisions) != 0 ||
		!bytes.Contains(raw, []byte(`"presences":[]`)) || !bytes.Contains(raw, []byte(`"collisions":[]`)) {
		tb.Errorf("%s: contract got %s, want 200 with empty lists, registry_unreadable and a detail", fault, raw)
	}
	if h := readHealth(tb, base); h.Status != "ok" || h.Presences != nil || h.PresencesError == "" {
		tb.Errorf("%s: health got %+v (presences %+v), want ok without a presences block and with presences_error", fault, h, h.Presences)
	}
	for _, path := range []string{"/api/cockpit", "/api/north?presence_id=" + presence.ID("a", "/srv/shop"), "/", "/fragments/hall", "/api/events"} {
		resp, err := http.Get(base + path)
		if err != nil {
			tb.Fatalf("%s: GET %s: %v", fault, path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || len(body) == 0 {
			tb.Errorf("%s: GET %s got %d (%d bytes), want 200 with a body (fail-open)", fault, path, resp.StatusCode, len(body))
		}
	}
	if res := beatHall(tb, base, contract.BeatRequest{AgentID: "outage-" + strings.ReplaceAll(fault, " ", "-"), Brain: "/srv/shop"}); res.Stored || res.Reason == "" {
		tb.Errorf("%s: beat got %+v, want stored false with a reason", fault, res)
	}
}

// TestFaultRegistryUnreadableDeletedRecreated: the presences folder made
// unreadable (a regular file where it was: root reads through any chmod),
// then deleted, then recreated. While it is gone every surface answers per
// the fail-open law and the stream says the roster was dropped; once it is
// back the Hall is live again: an outside write appears on the contract and
// on the stream, and a beat taken during the outage reaches the store.
func TestFaultRegistryUnreadableDeletedRecreated(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: 10 * time.Minute, Rescan: 200 * time.Millisecond})
	root := m.Config.RegistryRoot
	dir := filepath.Join(root, "presences")
	dirstoretest.Upsert(t, root, liveRecord("before-1", "/srv/shop", "/srv/shop/wt-1", true))
	dirstoretest.Upsert(t, root, liveRecord("before-2", "/srv/shop", "/srv/shop/wt-1", true))
	w := streamtest.Follow(t, m.URL()+"/api/presences/stream", "")
	w.UntilView(t, "before-1 and before-2 colliding", func(r contract.PresencesResponse) bool {
		return len(r.Presences) == 2 && len(r.Collisions) == 1
	})

	// Unreadable: the folder renamed away, a regular file in its place.
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertFailOpen(t, m.URL(), "replaced by a file")
	ch := w.Until(t, "the roster dropped on the stream", func(c stream.Change) bool { return c.Error != "" })
	if ch.Error != "registry_unreadable" || len(ch.Leaves) != 2 || len(ch.Closed) != 1 {
		t.Errorf("stream drop: got %+v, want both leaving, the collision closed, registry_unreadable", ch)
	}
	if r := w.Response(); len(r.Presences) != 0 || len(r.Collisions) != 0 {
		t.Errorf("view while unreadable: got %+v, want empty (dropped whole, never half-shown)", r)
	}

	// Deleted: nothing at the path at all.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	assertFailOpen(t, m.URL(), "deleted")

	// Recreated, empty: live again.
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, faultWait, "the contract readable again", func() bool {
		got, _ := readContract(t, m.URL())
		return got.Error == ""
	})
	w.Until(t, "the stream recovered", func(c stream.Change) bool { return c.Recovered })
	if h := readHealth(t, m.URL()); h.Presences == nil || h.PresencesError != "" {
		t.Errorf("health after recovery: got %+v, want a presences block and no error", h)
	}
	dirstoretest.Upsert(t, root, liveRecord("after-1", "/srv/shop", "/srv/shop/wt-2", true))
	w.Until(t, "after-1 joining on the stream", func(c stream.Change) bool {
		return len(c.Joins) > 0 && slices.ContainsFunc(c.Joins, func(p contract.Presence) bool { return p.AgentID == "after-1" })
	})
	if res := beatHall(t, m.URL(), contract.BeatRequest{AgentID: "after-2", Brain: "/srv/shop", Worktree: "/srv/shop/wt-2", DeclaredIntent: "mutate"}); !res.Stored || len(res.North) != 1 {
		t.Errorf("beat after recovery: got %+v, want stored with one north line (it collides with after-1)", res)
	}
	// The beats refused during the outage were held, not lost: each
	// reaches the store once the folder is back.
	want := []string{"after-1", "after-2", "outage-deleted", "outage-replaced-by-a-file"}
	eventually.True(t, faultWait, "the outage beats flushed to the store", func() bool {
		got, _ := readContract(t, m.URL())
		agents, _ := rosterIDs(got)
		return slices.Equal(agents, want)
	})
	for _, agent := range []string{"outage-deleted", "outage-replaced-by-a-file"} {
		if _, err := os.Stat(filepath.Join(dir, presence.ID(agent, "/srv/shop")+".json")); err != nil {
			t.Errorf("%s's held beat: got %v, want its record file written", agent, err)
		}
	}
	got, _ := readContract(t, m.URL())
	ga, gc := rosterIDs(got)
	w.UntilView(t, "the view to match the contract", func(r contract.PresencesResponse) bool {
		va, vc := rosterIDs(r)
		return slices.Equal(va, ga) && slices.Equal(vc, gc)
	})
}

// TestFaultJunkFilesInRegistry: corrupt, truncated, empty, incomplete,
// binary and huge (10 MiB) files dropped into the folder are skipped and
// counted, files that are not *.json are ignored, the roster and its
// collisions stay right on the contract and the stream, and a re-read of
// the folder does not read the huge file whole.
func TestFaultJunkFilesInRegistry(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: 10 * time.Minute})
	root := m.Config.RegistryRoot
	dir := filepath.Join(root, "presences")
	good := []presence.Record{
		liveRecord("good-a", "/srv/shop", "/srv/shop/wt-1", true),
		liveRecord("good-b", "/srv/shop", "/srv/shop/wt-1", true),
		liveRecord("good-c", "/srv/shop", "/srv/shop/wt-2", true),
	}
	for _, r := range good {
		dirstoretest.Upsert(t, root, r)
	}
	w := streamtest.Follow(t, m.URL()+"/api/presences/stream", "")
	w.UntilView(t, "the three good records", func(r contract.PresencesResponse) bool { return len(r.Presences) == 3 })

	whole, err := presence.EncodeRecord(func() presence.Record {
		r := liveRecord("junk-whole", "/srv/shop", "/srv/shop/wt-1", true)
		r.PresenceID = presence.ID(r.AgentID, r.Brain)
		return r
	}())
	if err != nil {
		t.Fatal(err)
	}
	binary := make([]byte, 4096)
	for i := range binary {
		binary[i] = byte(i*131 + i>>3)
	}
	// A whole, valid record padded to 10 MiB: read whole, it would decode
	// and join, so it shows the reader never reads past MaxRecordBytes.
	huge := append(append([]byte{}, whole...), bytes.Repeat([]byte(" "), 10<<20)...)
	junk := map[string][]byte{
		"corrupt.json":   []byte(`{"presence_id": "prs_000000000001", "agent_id": ]]] not json`),
		"truncated.json": whole[:len(whole)/2],
		"empty.json":     {},
		"incomplete.json": []byte(`{"presence_id":"` + presence.ID("no-brain", "/srv/shop") +
			`","agent_id":"no-brain","last_beat_ms":` + fmt.Sprint(time.Now().UnixMilli()) + `}`),
		"binary.json": binary,
		"huge.json":   huge,
		// Ignored, not counted: not *.json, a temp file, a folder.
		"notes.txt":               whole,
		"binary.bin":              binary,
		".tmp-prs_0123456789ab-1": whole,
	}
	for name, data := range junk {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A marker written after the junk: once it shows, the junk was read.
	dirstoretest.Upsert(t, root, liveRecord("marker", "/srv/shop", "/srv/shop/wt-3", true))
	w.Until(t, "the marker joining", func(c stream.Change) bool {
		return slices.ContainsFunc(c.Joins, func(p contract.Presence) bool { return p.AgentID == "marker" })
	})

	wantAgents := []string{"good-a", "good-b", "good-c", "marker"}
	wantCollision := presence.ID("good-a", "/srv/shop")
	check := func(when string, skipped int) {
		t.Helper()
		eventually.True(t, faultWait, fmt.Sprintf("%s: health to count %d skipped", when, skipped), func() bool {
			h := readHealth(t, m.URL())
			return h.Presences != nil && h.Presences.Skipped == skipped
		})
		got, _ := readContract(t, m.URL())
		agents, collisions := rosterIDs(got)
		if !slices.Equal(agents, wantAgents) || len(collisions) != 1 || !strings.Contains(collisions[0], wantCollision) || got.Error != "" {
			t.Errorf("%s: contract got agents %v collisions %v error %q, want %v, one collision of good-a and good-b, no error", when, agents, collisions, got.Error, wantAgents)
		}
		w.UntilView(t, when+": the view to match the contract", func(r contract.PresencesResponse) bool {
			va, vc := rosterIDs(r)
			return slices.Equal(va, agents) && slices.Equal(vc, collisions)
		})
	}
	check("junk dropped", 6)

	// A record overwritten in place by a careless writer, cut short: it
	// drops out (never half-shown) and is counted, until written whole.
	c := good[2]
	c.PresenceID = presence.ID(c.AgentID, c.Brain)
	cFile := filepath.Join(dir, c.PresenceID+".json")
	cWhole, err := os.ReadFile(cFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cFile, cWhole[:len(cWhole)-20], 0o644); err != nil {
		t.Fatal(err)
	}
	w.Until(t, "good-c leaving", func(ch stream.Change) bool {
		return slices.ContainsFunc(ch.Leaves, func(p contract.Presence) bool { return p.AgentID == "good-c" })
	})
	wantAgents = []string{"good-a", "good-b", "marker"}
	check("good-c cut short", 7)
	if err := os.WriteFile(cFile, cWhole, 0o644); err != nil {
		t.Fatal(err)
	}
	w.Until(t, "good-c back", func(ch stream.Change) bool {
		return slices.ContainsFunc(ch.Joins, func(p contract.Presence) bool { return p.AgentID == "good-c" })
	})
	wantAgents = []string{"good-a", "good-b", "good-c", "marker"}
	check("good-c whole again", 6)

	// Memory: a full re-read of the folder allocates what the capped reads
	// need, not the 10 MiB file (nor the 4 KiB of binary read as text).
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const reads = 5
	for i := 0; i < reads; i++ {
		if _, err := m.Service.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	perRead := (after.TotalAlloc - before.TotalAlloc) / reads
	if perRead > 2<<20 {
		t.Errorf("one re-read of the folder with a 10 MiB file in it: got %d KiB allocated, want under 2 MiB (reads capped at MaxRecordBytes = %d KiB)", perRead>>10, presence.MaxRecordBytes>>10)
	}
	t.Logf("one re-read of the folder allocates %d KiB", perRead>>10)
}

// TestFaultClockJumps: the Hall's clock jumps forward by less than the ttl
// (nobody who beat within the rest of it expires), back by less than the
// ttl (nobody expires; a beat right after is stored at once), and forward
// again past the silent presences' ttl: they leave on the stream by
// themselves, no read needed, within ttl + the jump back; the beating ones
// stay; a record stamped a year ahead is never shown.
func TestFaultClockJumps(t *testing.T) {
	const ttl = 5 * time.Minute
	clock := &presencetest.OffsetClock{}
	m := MustOpenHall(t, Config{TTL: ttl, Now: clock.Now})
	beat := func(agent string) contract.BeatResponse {
		return beatHall(t, m.URL(), contract.BeatRequest{AgentID: agent, Brain: "/srv/shop", Worktree: "/srv/shop/" + agent, Theme: "steady"})
	}
	all := []string{"a-1", "a-2", "a-3", "silent-1", "silent-2"}
	for _, a := range all {
		beat(a)
	}
	w := streamtest.Follow(t, m.URL()+"/api/presences/stream", "")
	w.UntilView(t, "the five in the snapshot", func(r contract.PresencesResponse) bool { return len(r.Presences) == 5 })
	leaves := func(c stream.Change) []string {
		var out []string
		for _, p := range c.Leaves {
			out = append(out, p.AgentID)
		}
		slices.Sort(out)
		return out
	}
	// untilMarker beats a new agent and consumes the stream up to its
	// join, returning every leave seen on the way.
	marker := 0
	untilMarker := func(when string) []string {
		t.Helper()
		marker++
		agent := fmt.Sprintf("marker-%d", marker)
		beat(agent)
		var left []string
		w.Until(t, when+": "+agent+" joining", func(c stream.Change) bool {
			left = append(left, leaves(c)...)
			return slices.ContainsFunc(c.Joins, func(p contract.Presence) bool { return p.AgentID == agent })
		})
		return left
	}

	// Forward by 200s of a 5m ttl: no one expires.
	clock.Jump(200 * time.Second)
	if left := untilMarker("after a jump forward of 200s"); len(left) != 0 {
		t.Errorf("after a jump forward of 200s (ttl 5m): got %v leaving, want none", left)
	}
	got, _ := readContract(t, m.URL())
	if agents, _ := rosterIDs(got); len(agents) != 6 {
		t.Errorf("contract after the jump forward: got %v, want all five and marker-1", agents)
	}
	for _, a := range all[:3] {
		beat(a)
	}

	// Back by 100s: the beats just taken are stamped 100s ahead and still
	// believed; the next beat is stored at once, not held for the window.
	clock.Jump(-100 * time.Second)
	if left := untilMarker("after a jump back of 100s"); len(left) != 0 {
		t.Errorf("after a jump back of 100s: got %v leaving, want none", left)
	}
	if res := beat("a-1"); !res.Stored {
		t.Errorf("a-1's beat right after the jump back: got %+v, want stored at once", res)
	}
	future := liveRecord("year-ahead", "/srv/shop", "/srv/shop/future", true)
	future.LastBeatMs = clock.Now().Add(365 * 24 * time.Hour).UnixMilli()
	dirstoretest.Upsert(t, m.Config.RegistryRoot, future)
	untilMarker("after a record stamped a year ahead")
	got, _ = readContract(t, m.URL())
	if agents, _ := rosterIDs(got); slices.Contains(agents, "year-ahead") || len(agents) != 8 {
		t.Errorf("contract after the jump back: got %v, want the five and three markers, never year-ahead", agents)
	}

	// The silent ones beat last at T (the start); the clock now reads about
	// T+100s. Forward to T+280s: still live. Then to T+310s: past their
	// ttl, and they leave by themselves; a-1 (last beat T+100s), a-2 and
	// a-3 (T+200s) and the markers stay.
	clock.Jump(180 * time.Second)
	if left := untilMarker("at T+280s"); len(left) != 0 {
		t.Errorf("at T+280s (ttl 5m): got %v leaving, want none", left)
	}
	clock.Jump(30 * time.Second)
	var left []string
	w.Until(t, "the silent ones leaving by themselves", func(c stream.Change) bool {
		left = append(left, leaves(c)...)
		slices.Sort(left)
		return len(left) >= 2
	})
	if !slices.Equal(left, []string{"silent-1", "silent-2"}) {
		t.Errorf("leaving after T+310s: got %v, want [silent-1 silent-2]", left)
	}
	got, _ = readContract(t, m.URL())
	agents, _ := rosterIDs(got)
	if want := []string{"a-1", "a-2", "a-3", "marker-1", "marker-2", "marker-3", "marker-4"}; !slices.Equal(agents, want) {
		t.Errorf("contract at T+310s: got %v, want %v", agents, want)
	}
}
