package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

func streamURL(m *Main, query string) string {
	u := m.URL() + "/api/presences/stream"
	if query != "" {
		u += "?" + query
	}
	return u
}

// contractNow reads GET /api/presences as the comparable part of a view.
func contractNow(tb testing.TB, u string) contract.PresencesResponse {
	tb.Helper()
	var resp contract.PresencesResponse
	if got := getJSON(tb, u, &resp); got != http.StatusOK {
		tb.Fatalf("GET %s: status %d", u, got)
	}
	resp.ServedAtMs = 0
	return resp
}

// sameRoster compares two contract answers, served_at_ms and cursor aside.
func sameRoster(a, b contract.PresencesResponse) bool {
	a.ServedAtMs, b.ServedAtMs, a.Cursor, b.Cursor = 0, 0, "", ""
	return reflect.DeepEqual(a, b)
}

// TestStreamOutsideWriteJoins: a record written by another process reaches
// a subscriber as a join; the connect snapshot is exactly the contract,
// cursor included, and the response is a proper SSE stream.
func TestStreamOutsideWriteJoins(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	root := m.Config.RegistryRoot
	dirstoretest.Upsert(t, root, liveRecord("early-1", "/srv/shop", "/srv/shop", false))
	eventually.True(t, wait, "the first record to be served", func() bool { return len(contractNow(t, m.URL()+"/api/presences").Presences) == 1 })

	// The wire, read raw.
	resp, err := http.Get(streamURL(m, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for h, want := range map[string]string{
		"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
		"X-Accel-Buffering": "no",
	} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("header %s: got %q, want %q", h, got, want)
		}
	}
	// The stream owns its connection (the Hall hijacks it, one goroutine a
	// stream): its body runs until the connection closes, and says so.
	if !resp.Close || resp.ContentLength != -1 || len(resp.TransferEncoding) != 0 {
		t.Errorf("framing: got close=%v length=%d encoding=%v, want a body delimited by the connection's close", resp.Close, resp.ContentLength, resp.TransferEncoding)
	}
	br := bufio.NewReader(resp.Body)
	blocks := readBlocks(t, br, 2)
	if !strings.HasPrefix(blocks[0], "retry: ") {
		t.Errorf("first block: got %q, want a retry: line", blocks[0])
	}
	id, event, data := fields(blocks[1])
	if event != "snapshot" {
		t.Fatalf("second block event: got %q, want snapshot", event)
	}
	var snap contract.PresencesResponse
	if err := json.Unmarshal([]byte(data), &snap); err != nil {
		t.Fatal(err)
	}
	if snap.Cursor != id {
		t.Errorf("snapshot cursor: got %q, want the event id %q", snap.Cursor, id)
	}
	got := contractNow(t, m.URL()+"/api/presences")
	if got.Cursor != id {
		t.Errorf("GET /api/presences cursor: got %q, want %q (nothing changed since)", got.Cursor, id)
	}
	snap.ServedAtMs = 0
	if !reflect.DeepEqual(snap, got) {
		t.Errorf("snapshot event differs from GET /api/presences:\n got %+v\nwant %+v", snap, got)
	}

	// An outside write: a join.
	dirstoretest.Upsert(t, root, liveRecord("claude-7", "/srv/shop", "/srv/shop-wt2", true))
	id2, event, data := fields(readBlocks(t, br, 1)[0])
	if event != "diff" {
		t.Fatalf("event after the write: got %q, want diff", event)
	}
	var d contract.Diff
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Joins) != 1 || d.Joins[0].AgentID != "claude-7" || len(d.Leaves)+len(d.Updates) != 0 {
		t.Errorf("diff: got %+v, want one join of claude-7", d)
	}
	if n1, n2 := mustUint(t, id), mustUint(t, id2); n2 != n1+1 || d.Seq == 0 {
		t.Errorf("ids: snapshot %d then diff %d (seq %d), want the next id", n1, n2, d.Seq)
	}
}

// readBlocks reads n SSE blocks (heartbeat comments skipped).
func readBlocks(tb testing.TB, br *bufio.Reader, n int) []string {
	tb.Helper()
	type res struct {
		blocks []string
		err    error
	}
	ch := make(chan res, 1)
	go func() {
		var out []string
		var cur strings.Builder
		for len(out) < n {
			line, err := br.ReadString('\n')
			if err != nil {
				ch <- res{out, err}
				return
			}
			if line == "\n" {
				if b := cur.String(); b != "" && !strings.HasPrefix(b, ":") {
					out = append(out, b)
				}
				cur.Reset()
				continue
			}
			cur.WriteString(line)
		}
		ch <- res{out, nil}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			tb.Fatalf("read stream: %v (got %q)", r.err, r.blocks)
		}
		return r.blocks
	case <-time.After(wait):
		tb.Fatalf("timed out reading %d blocks", n)
		return nil
	}
}

func fields(block string) (id, event, data string) {
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		switch k {
		case "id":
			id = v
		case "event":
			event = v
		case "data":
			data = v
		}
	}
	return id, event, data
}

func mustUint(tb testing.TB, s string) uint64 {
	tb.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		tb.Fatalf("event id %q is not a number: %v", s, err)
	}
	return n
}

// TestStreamTTLExpiryLeaves: a presence that stops beating leaves the
// stream at its ttl, though its file never changes.
func TestStreamTTLExpiryLeaves(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	root := m.Config.RegistryRoot
	f := streamtest.Follow(t, streamURL(m, ""), "")
	f.Until(t, "the snapshot", func(stream.Change) bool { return true })

	r := liveRecord("quiet-1", "/srv/shop", "/srv/shop", false)
	r.TTLMs = 3000
	dirstoretest.Upsert(t, root, r)
	file := filepath.Join(root, "presences", presence.ID("quiet-1", "/srv/shop")+".json")
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	f.Until(t, "the join", func(c stream.Change) bool { return len(c.Joins) == 1 })
	ch := f.Until(t, "the leave at ttl", func(c stream.Change) bool { return len(c.Leaves) == 1 })
	if got := ch.Leaves[0].AgentID; got != "quiet-1" {
		t.Errorf("left: got %s, want quiet-1", got)
	}
	after, err := os.Stat(file)
	if err != nil {
		t.Fatalf("the record file is gone (%v): the leave must come from the ttl, not a file change", err)
	}
	if !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the record file changed: the leave must come from the ttl alone")
	}
	if got := contractNow(t, m.URL()+"/api/presences"); len(got.Presences) != 0 {
		t.Errorf("contract after the ttl: got %d presences, want 0", len(got.Presences))
	}
}

// TestStreamCollisionOpensAndCloses: a second mutating writer in the same
// worktree opens a collision on every stream that should see it, and its
// leaving closes it; the agent's view sees only its own.
func TestStreamCollisionOpensAndCloses(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute, Brains: []string{"/srv/shop", "/srv/docs"}})
	root := m.Config.RegistryRoot
	first := liveRecord("claude-7", "/srv/shop", "/srv/shop-wt2", true)
	dirstoretest.Upsert(t, root, first)
	dirstoretest.Upsert(t, root, liveRecord("reader-1", "/srv/docs", "/srv/docs", true))
	eventually.True(t, wait, "two presences", func() bool { return len(contractNow(t, m.URL()+"/api/presences").Presences) == 2 })

	all := streamtest.Follow(t, streamURL(m, ""), "")
	shop := streamtest.Follow(t, streamURL(m, "brain=/srv/shop"), "")
	docs := streamtest.Follow(t, streamURL(m, "brain=/srv/docs"), "")
	mine := streamtest.Follow(t, streamURL(m, "presence_id="+presence.ID("claude-7", "/srv/shop")+"&collisions_only=1"), "")
	for _, f := range []*streamtest.Follower{all, shop, docs, mine} {
		f.Until(t, "the snapshot", func(stream.Change) bool { return true })
	}
	if got := len(mine.Response().Presences); got != 0 {
		t.Errorf("collisions-only snapshot: got %d presences, want none", got)
	}

	dirstoretest.Upsert(t, root, liveRecord("codex-2", "/srv/shop", "/srv/shop-wt2", true))
	want := presence.ID("claude-7", "/srv/shop") + "~" + presence.ID("codex-2", "/srv/shop")
	if want > presence.ID("codex-2", "/srv/shop")+"~"+presence.ID("claude-7", "/srv/shop") {
		want = presence.ID("codex-2", "/srv/shop") + "~" + presence.ID("claude-7", "/srv/shop")
	}
	for name, f := range map[string]*streamtest.Follower{"owner-wide": all, "brain": shop, "agent": mine} {
		ch := f.Until(t, name+": the collision opening", func(c stream.Change) bool { return len(c.Opened) > 0 })
		if got := ch.Opened[0]; got.CollisionID != want || got.Brain != "/srv/shop" || !reflect.DeepEqual(got.Clauses, []string{"same_worktree"}) {
			t.Errorf("%s: opened %+v, want %s on same_worktree", name, got, want)
		}
	}

	dirstoretest.Remove(t, root, presence.ID("codex-2", "/srv/shop"))
	for name, f := range map[string]*streamtest.Follower{"owner-wide": all, "brain": shop, "agent": mine} {
		ch := f.Until(t, name+": the collision closing", func(c stream.Change) bool { return len(c.Closed) > 0 })
		if ch.Closed[0].CollisionID != want {
			t.Errorf("%s: closed %s, want %s", name, ch.Closed[0].CollisionID, want)
		}
		if name != "agent" && (len(ch.Leaves) != 1 || ch.Leaves[0].AgentID != "codex-2") {
			t.Errorf("%s: the closing diff leaves %+v, want codex-2", name, ch.Leaves)
		}
	}
	// The docs brain saw none of it (events arrive in order: everything
	// before the marker's join is what it saw of the shop's changes), and
	// the agent's collisions-only view holds no presence.
	dirstoretest.Upsert(t, root, liveRecord("marker", "/srv/docs", "/srv/docs/m", false))
	docs.Until(t, "the docs marker", func(c stream.Change) bool {
		for _, p := range append(append(c.Joins, c.Updates...), c.Leaves...) {
			if p.Brain != "/srv/docs" {
				t.Errorf("docs stream got a presence of %s: %+v", p.Brain, p)
			}
		}
		if len(c.Opened)+len(c.Closed)+len(c.Changed) > 0 {
			t.Errorf("docs stream got a shop collision: %+v", c)
		}
		return len(c.Joins) == 1 && c.Joins[0].AgentID == "marker"
	})
	if got := mine.Response(); len(got.Presences) != 0 || len(got.Collisions) != 0 {
		t.Errorf("agent's collisions-only view at the end: got %+v, want empty", got)
	}
}

// TestStreamBurstEndsInTheRightState: 500 records written at once (and a
// tenth of them deleted again) end, over the stream, in exactly the roster
// GET /api/presences serves.
func TestStreamBurstEndsInTheRightState(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	root := m.Config.RegistryRoot
	f := streamtest.Follow(t, streamURL(m, ""), "")
	f.Until(t, "the snapshot", func(stream.Change) bool { return true })

	for i := 0; i < 500; i++ {
		brain := fmt.Sprintf("/srv/b%d", i%7)
		dirstoretest.Upsert(t, root, liveRecord(fmt.Sprintf("agent-%03d", i), brain, fmt.Sprintf("%s/wt%d", brain, (i/7)%10), i%2 == 0))
	}
	for i := 0; i < 500; i += 10 {
		dirstoretest.Remove(t, root, presence.ID(fmt.Sprintf("agent-%03d", i), fmt.Sprintf("/srv/b%d", i%7)))
	}
	diffs := 0
	f.Until(t, "450 presences", func(c stream.Change) bool {
		diffs++
		return len(f.Response().Presences) == 450
	})
	// The roster can still move (the Hall re-reads); settle on equality.
	eventually.True(t, wait, "the streamed view to equal the contract", func() bool {
		diffs += len(f.Drain())
		return sameRoster(f.Response(), contractNow(t, m.URL()+"/api/presences"))
	})
	t.Logf("500 writes and 50 deletes arrived as %d diffs", diffs)
	if got := len(f.Response().Collisions); got == 0 {
		t.Errorf("the burst holds mutating pairs in shared worktrees; got no collision")
	}
}

// TestStreamFolderDeletedAndRecreated: the presences folder vanishing drops
// the roster whole (a diff that says so); once it is back, new writes
// stream again.
//
// The folder goes twice. First in one step (renamed away, then removed, as
// `mv` does): the Hall sees its records and the folder go at once, so one
// diff carries every leave and the error. Then as `rm -rf` removes it,
// file by file and the folder last: a watch may see a file go while the
// folder is still there, a leave like any other, so the leaves may come in
// earlier diffs; each record still leaves exactly once, none after the
// diff that says the registry is unreadable, and that diff comes.
func TestStreamFolderDeletedAndRecreated(t *testing.T) {
	// No rescan within the test: the watch alone must notice the folder
	// going, coming back, and the writes after.
	m := MustOpenHall(t, Config{TTL: time.Minute, Rescan: time.Hour})
	root := m.Config.RegistryRoot
	dir := filepath.Join(root, "presences")
	dirstoretest.Upsert(t, root, liveRecord("before-1", "/srv/shop", "/srv/shop", false))
	f := streamtest.Follow(t, streamURL(m, ""), "")
	f.UntilView(t, "before-1 on the stream", func(r contract.PresencesResponse) bool { return len(r.Presences) == 1 })

	// In one step: one diff drops the roster whole.
	away := filepath.Join(root, "presences-away")
	if err := os.Rename(dir, away); err != nil {
		t.Fatal(err)
	}
	ch := f.Until(t, "the roster dropped", func(c stream.Change) bool { return !c.Empty() })
	if len(ch.Leaves) != 1 || ch.Leaves[0].AgentID != "before-1" || ch.Error != "registry_unreadable" {
		t.Errorf("drop: got %+v, want before-1 leaving and registry_unreadable in one diff", ch)
	}
	if err := os.RemoveAll(away); err != nil {
		t.Fatal(err)
	}
	recreate := func(agents ...string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		f.Until(t, "the registry readable again", func(c stream.Change) bool { return c.Recovered })
		for _, a := range agents {
			dirstoretest.Upsert(t, root, liveRecord(a, "/srv/shop", "/srv/shop", false))
			f.Until(t, a+" joining", func(c stream.Change) bool { return len(c.Joins) == 1 && c.Joins[0].AgentID == a })
		}
		if got := contractNow(t, m.URL()+"/api/presences"); !sameRoster(f.Response(), got) {
			t.Errorf("view %+v, contract %+v", f.Response(), got)
		}
	}
	recreate("after-1", "after-2")

	// File by file, the folder last: every record leaves once, by the
	// diff that says the registry is unreadable.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	left := map[string]int{}
	ch = f.Until(t, "the roster dropped", func(c stream.Change) bool {
		for _, p := range c.Leaves {
			left[p.AgentID]++
		}
		if len(c.Joins)+len(c.Updates) > 0 || (c.Error != "" && c.Error != "registry_unreadable") {
			t.Errorf("while the folder went: got %+v, want leaves and registry_unreadable only", c)
		}
		return c.Error != ""
	})
	if want := map[string]int{"after-1": 1, "after-2": 1}; !reflect.DeepEqual(left, want) {
		t.Errorf("leaves by the unreadable diff: got %v, want %v", left, want)
	}
	if n := len(f.Response().Presences); n != 0 {
		t.Errorf("view after the drop holds %d presences, want none", n)
	}
	recreate("after-3")
}

// TestStreamResumeLosesAndRepeatsNothing: a client that drops and
// reconnects with its Last-Event-ID gets exactly the diffs it missed, in
// order, and its rebuilt roster equals the contract. A client that starts
// from the contract's cursor streams on from it the same way.
func TestStreamResumeLosesAndRepeatsNothing(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	root := m.Config.RegistryRoot
	dirstoretest.Upsert(t, root, liveRecord("a-0", "/srv/shop", "/srv/shop/0", true))

	f := streamtest.Follow(t, streamURL(m, ""), "")
	var view stream.View
	view.Apply(f.Next(t, "the snapshot"))
	dirstoretest.Upsert(t, root, liveRecord("a-1", "/srv/shop", "/srv/shop/0", true))
	ev := f.Next(t, "a diff")
	view.Apply(ev)
	last := f.Stop()
	if last != ev.ID {
		t.Fatalf("client's last id: got %s, want %s", last, ev.ID)
	}
	seq := ev.Diff.Seq

	// Changes while disconnected: joins, an update, a leave.
	for i := 2; i < 8; i++ {
		dirstoretest.Upsert(t, root, liveRecord(fmt.Sprintf("a-%d", i), "/srv/shop", fmt.Sprintf("/srv/shop/%d", i%2), true))
		eventually.True(t, wait, "the Hall to see it", func() bool {
			return len(contractNow(t, m.URL()+"/api/presences").Presences) == i+1
		})
	}
	dirstoretest.Remove(t, root, presence.ID("a-0", "/srv/shop"))
	eventually.True(t, wait, "the Hall to see the leave", func() bool {
		return len(contractNow(t, m.URL()+"/api/presences").Presences) == 7
	})

	g := streamtest.Follow(t, streamURL(m, ""), last)
	want := contractNow(t, m.URL()+"/api/presences")
	for !sameRoster(view.Response(), want) {
		ev := g.Next(t, "the missed diffs")
		if ev.Diff == nil {
			t.Fatalf("resume sent a %s, want only diffs", "snapshot")
		}
		if ev.Diff.Seq != seq+1 {
			t.Fatalf("resumed seq: got %d, want %d (none lost, none twice)", ev.Diff.Seq, seq+1)
		}
		seq = ev.Diff.Seq
		view.Apply(ev)
	}
	if got, _ := strconv.ParseUint(want.Cursor, 10, 64); got != mustUint(t, view.Cursor) {
		t.Errorf("rebuilt view at %s, contract at cursor %s", view.Cursor, want.Cursor)
	}
	g.Stop()

	// From the contract's cursor: no snapshot, the next diff is cursor+1.
	h := streamtest.Follow(t, streamURL(m, ""), want.Cursor)
	dirstoretest.Upsert(t, root, liveRecord("a-9", "/srv/shop", "/srv/shop/9", false))
	ev = h.Next(t, "the diff after the cursor")
	if ev.Diff == nil || mustUint(t, ev.ID) != mustUint(t, want.Cursor)+1 || len(ev.Diff.Joins) != 1 {
		t.Errorf("after the cursor: got %+v (id %s), want one join at cursor+1", ev, ev.ID)
	}
	// The same through ?last_event_id=, for clients that cannot set headers.
	u := streamURL(m, "last_event_id="+url.QueryEscape(want.Cursor))
	q := streamtest.Follow(t, u, "")
	if ev := q.Next(t, "the replay"); ev.Diff == nil || mustUint(t, ev.ID) != mustUint(t, want.Cursor)+1 {
		t.Errorf("?last_event_id=: got %+v, want the diff after the cursor", ev)
	}

	// Health counts it all: one snapshot, three resumes, the two streams
	// still open (the stopped ones are noticed within a liveness sweep).
	var health contract.Health
	eventually.True(t, wait, "health to count two open streams", func() bool {
		health = contract.Health{}
		return getJSON(t, m.URL()+"/api/health", &health) == http.StatusOK && health.Stream != nil && health.Stream.Subscribers == 2
	})
	if st := *health.Stream; st.Snapshots != 1 || st.Resumed != 3 || st.Subscribed != 4 || st.Dropped != 0 || st.Diffs != ev.Diff.Seq {
		t.Errorf("health stream: got %+v, want 1 snapshot, 3 resumed, 4 subscribed, 0 dropped, %d diffs", st, ev.Diff.Seq)
	}
}

// TestStreamRestartFallsBackToSnapshot: an id from an earlier run of the
// Hall, however plausible, gets a fresh snapshot from the new run.
func TestStreamRestartFallsBackToSnapshot(t *testing.T) {
	root := t.TempDir()
	a := NewMain(Config{Addr: "127.0.0.1:0", RegistryRoot: root, TTL: time.Minute}, quietLog)
	if err := a.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := streamtest.Follow(t, streamURL(a, ""), "")
	f.Next(t, "the snapshot")
	dirstoretest.Upsert(t, root, liveRecord("a-1", "/srv/shop", "/srv/shop", false))
	f.Next(t, "the diff")
	last := f.Stop()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	b := MustOpenHall(t, Config{RegistryRoot: root, TTL: time.Minute})
	for i := 2; i < 6; i++ { // the new run's seqs pass the old one's
		dirstoretest.Upsert(t, root, liveRecord(fmt.Sprintf("a-%d", i), "/srv/shop", "/srv/shop", false))
		eventually.True(t, wait, "the Hall to see it", func() bool { return len(contractNow(t, b.URL()+"/api/presences").Presences) == i })
	}
	g := streamtest.Follow(t, streamURL(b, ""), last)
	ev := g.Next(t, "the first event from the new run")
	if ev.Snapshot == nil {
		t.Fatalf("an id from the previous run: got a diff %+v, want a snapshot", ev.Diff)
	}
	if mustUint(t, ev.ID) <= mustUint(t, last) {
		t.Errorf("new run's id %s is not above the old run's %s", ev.ID, last)
	}
	if got := len(ev.Snapshot.Presences); got != 5 {
		t.Errorf("snapshot: got %d presences, want 5", got)
	}
}

// TestStreamBadLastEventIDGetsSnapshot: a Last-Event-ID that is not a
// number, or a number this run never issued, is answered with a snapshot,
// never a 4xx that would end a browser's retries.
func TestStreamBadLastEventIDGetsSnapshot(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	cur := contractNow(t, m.URL()+"/api/presences").Cursor
	for _, id := range []string{"abc", "-1", "1.5", "12 34", "0", "99999999999999999999999", strconv.FormatUint(mustUint(t, cur)+5, 10)} {
		req, _ := http.NewRequest(http.MethodGet, streamURL(m, ""), nil)
		req.Header.Set("Last-Event-ID", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Errorf("Last-Event-ID %q: status %d, want 200", id, resp.StatusCode)
			resp.Body.Close()
			continue
		}
		blocks := readBlocks(t, bufio.NewReader(resp.Body), 2)
		if _, event, _ := fields(blocks[1]); event != "snapshot" {
			t.Errorf("Last-Event-ID %q: got %q, want a snapshot", id, event)
		}
		resp.Body.Close()
	}
}

// TestStreamRefusesBadInputBeforeOpening: an unknown brain is 404 JSON, as
// on GET /api/presences, and bad parameters are 400 JSON; no stream opens.
func TestStreamRefusesBadInputBeforeOpening(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute, Brains: []string{"/srv/known"}})
	for _, tc := range []struct {
		query  string
		status int
		code   string
	}{
		{"brain=/srv/unknown", 404, "unknown_brain"},
		{"brain=relative/path", 400, "invalid_brain"},
		{"presence_id=../../etc", 400, "invalid_presence_id"},
		{"collisions_only=maybe", 400, "invalid_collisions_only"},
	} {
		resp, err := http.Get(streamURL(m, tc.query))
		if err != nil {
			t.Fatal(err)
		}
		var e contract.ErrorResponse
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != tc.status || e.Error != tc.code || e.Detail == "" {
			t.Errorf("%s: got %d %+v, want %d %s", tc.query, resp.StatusCode, e, tc.status, tc.code)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: content type %q, want JSON", tc.query, ct)
		}
	}
	// The same brain on the contract: 404 there too.
	if got := getJSON(t, m.URL()+"/api/presences?brain=/srv/unknown", nil); got != 404 {
		t.Errorf("contract for an unknown brain: got %d, want 404", got)
	}
	resp, err := http.Get(streamURL(m, "brain=/srv/known"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a configured brain: got %d, want 200", resp.StatusCode)
	}
}

// TestStreamShutdownWithOpenStreams: Close ends open streams (healthy ones
// and one whose client never reads) so the server shuts down at once.
func TestStreamShutdownWithOpenStreams(t *testing.T) {
	m := NewMain(Config{Addr: "127.0.0.1:0", RegistryRoot: t.TempDir(), TTL: time.Minute}, quietLog)
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		f := streamtest.Follow(t, streamURL(m, ""), "")
		f.Next(t, "the snapshot")
	}
	streamtest.Stalled(t, streamURL(m, ""))
	eventually.True(t, wait, "six subscribers", func() bool { return m.Hub.Stats().Subscribers == 6 })

	start := time.Now()
	if err := m.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	// A correctness bound, not a speed test: Shutdown's own timeout is 2 s,
	// and it would hit it if a stream held it.
	if took := time.Since(start); took >= 2*time.Second {
		t.Errorf("Close took %s with open streams, want under 2s", took)
	}
}

// TestStreamGoroutinesReturnToBaseline: 1,000 streams opened and closed
// leave no goroutine behind.
func TestStreamGoroutinesReturnToBaseline(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: time.Minute})
	dirstoretest.Upsert(t, m.Config.RegistryRoot, liveRecord("a-1", "/srv/shop", "/srv/shop", false))
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	cycle := func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, streamURL(m, ""), nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		for { // up to the end of the snapshot
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(line, "data: ") {
				break
			}
		}
		cancel()
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	cycle() // warm the pools
	eventually.True(t, wait, "no subscriber", func() bool { return m.Hub.Stats().Subscribers == 0 })
	runtime.GC()
	base := runtime.NumGoroutine()
	for i := 0; i < 1000; i++ {
		cycle()
	}
	eventually.True(t, wait, "no subscriber", func() bool { return m.Hub.Stats().Subscribers == 0 })
	deadline := time.Now().Add(wait)
	for runtime.NumGoroutine() > base+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > base+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines after 1,000 cycles: got %d, baseline %d\n%s", got, base, buf[:runtime.Stack(buf, true)])
	}
	if got := m.Hub.Stats().Subscribed; got < 1001 {
		t.Errorf("subscribed: got %d, want 1001", got)
	}
}
