package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/natsstore"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// natsWait bounds "it eventually happens" in the NATS tests: a lost
// cluster node costs a leader election and a consumer reset (its missed
// heartbeats), seconds on a small machine. A passing run never waits it
// out.
const natsWait = 45 * time.Second

func beatOf(agent, brain, worktree string) contract.BeatRequest {
	return contract.BeatRequest{AgentID: agent, Brain: brain, Worktree: worktree, DeclaredIntent: "mutate", Theme: agent + " at work"}
}

// natsHall starts a Hall on the NATS servers at url.
func natsHall(tb testing.TB, url string) *Main {
	tb.Helper()
	return MustOpenHall(tb, Config{Store: url, TTL: time.Minute})
}

func presenceIDs(r contract.PresencesResponse) []string {
	var ids []string
	for _, p := range r.Presences {
		ids = append(ids, p.PresenceID)
	}
	sort.Strings(ids)
	return ids
}

func hasAll(r contract.PresencesResponse, want []string) bool {
	got := presenceIDs(r)
	for _, id := range want {
		if _, ok := slices.BinarySearch(got, id); !ok {
			return false
		}
	}
	return r.Error == ""
}

func ids(ps []contract.Presence) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.PresenceID)
	}
	return out
}

// Several Halls, one roster: two Halls on one NATS server serve the same
// contract and the same collisions, a beat into Hall A reaches a subscriber
// of Hall B, and a leave through A leaves B's stream too.
func TestNATSTwoHallsOneRoster(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	a, b := natsHall(t, srv.URL()), natsHall(t, srv.URL())
	fb := streamtest.Follow(t, streamURL(b, ""), "")
	fb.Until(t, "B's connect snapshot", func(stream.Change) bool { return true })

	first := beatHall(t, a.URL(), beatOf("claude-1", "/srv/shop", "/srv/shop-wt1"))
	if !first.Stored {
		t.Fatalf("beat into A: not stored: %s", first.Reason)
	}
	fb.Until(t, "a beat into A to join at B's subscriber", func(c stream.Change) bool {
		return slices.Contains(ids(c.Joins), first.PresenceID)
	})

	second := beatHall(t, b.URL(), beatOf("codex-2", "/srv/shop", "/srv/shop-wt1"))
	if len(second.North) != 1 {
		t.Errorf("beat into B colliding with A's presence: got north %q, want one line", second.North)
	}
	fb.Until(t, "the collision to open at B's subscriber", func(c stream.Change) bool { return len(c.Opened) == 1 })
	eventually.True(t, natsWait, "both Halls to serve the same roster and collision", func() bool {
		ra, rb := contractNow(t, a.URL()+"/api/presences"), contractNow(t, b.URL()+"/api/presences")
		return len(ra.Presences) == 2 && len(ra.Collisions) == 1 && sameRoster(ra, rb)
	})
	for _, m := range []*Main{a, b} {
		var h contract.Health
		if got := getJSON(t, m.URL()+"/api/health", &h); got != http.StatusOK || h.Store.Kind != "nats" || h.Presences == nil || h.Presences.CollisionCount != 1 {
			t.Errorf("health at %s: status %d, %+v; want 200, store kind nats, one collision", m.URL(), got, h)
		}
	}

	req, _ := http.NewRequest(http.MethodDelete, a.URL()+"/api/presences/"+first.PresenceID, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("DELETE through A: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE through A: status %d", resp.StatusCode)
	}
	fb.Until(t, "a leave through A to reach B's subscriber", func(c stream.Change) bool {
		return slices.Contains(ids(c.Leaves), first.PresenceID) && len(c.Closed) == 1
	})
}

// NATS unreachable at start-up: the Hall starts anyway, says so on its
// surfaces (an empty roster with an error, health answering with a
// presences_error), takes beats without storing them, and once a server
// appears on that address it reconnects, writes the held beat and serves
// the roster — to a subscriber that was connected all along, too.
func TestNATSDownAtStartupThenBack(t *testing.T) {
	port := natstest.FreePort(t)
	m := natsHall(t, fmt.Sprintf("nats://127.0.0.1:%d", port))

	got := contractNow(t, m.URL()+"/api/presences")
	if got.Error == "" || len(got.Presences) != 0 || got.Collisions == nil || len(got.Collisions) != 0 {
		t.Errorf("contract with NATS down: got %+v, want empty lists and an error", got)
	}
	var h contract.Health
	if status := getJSON(t, m.URL()+"/api/health", &h); status != http.StatusOK || h.PresencesError == "" || h.Presences != nil {
		t.Errorf("health with NATS down: status %d, %+v; want 200 with presences_error", status, h)
	}
	res := beatHall(t, m.URL(), beatOf("early-bird", "/srv/shop", "/srv/shop"))
	if res.Stored || !strings.Contains(res.Reason, "unavailable") {
		t.Errorf("beat with NATS down: got stored %v, reason %q; want not stored, store unavailable", res.Stored, res.Reason)
	}
	f := streamtest.Follow(t, streamURL(m, ""), "")

	natstest.RunServer(t, port)
	f.Until(t, "the held beat to join at the subscriber once NATS is up", func(c stream.Change) bool {
		return slices.Contains(ids(c.Joins), res.PresenceID)
	})
	eventually.True(t, natsWait, "the contract to serve the roster without error", func() bool {
		r := contractNow(t, m.URL()+"/api/presences")
		return r.Error == "" && slices.Equal(presenceIDs(r), []string{res.PresenceID})
	})
	var back contract.Health
	if status := getJSON(t, m.URL()+"/api/health", &back); status != http.StatusOK || back.PresencesError != "" || back.Presences == nil || back.Presences.Live != 1 {
		t.Errorf("health with NATS back: status %d, %+v; want 200, one live presence", status, back)
	}
}

// A 3-node cluster with the bucket replicated three times loses a node
// mid-run — the one Hall A is connected to, and the leader of the bucket's
// stream — and no live presence is lost: neither Hall's subscriber sees a
// presence leave, and beats taken during and after the failover reach
// both Halls.
func TestNATSClusterNodeLost(t *testing.T) {
	nodes := natstest.RunCluster(t, 3)
	all := nodes[0].URL() + "," + nodes[1].URL() + "," + nodes[2].URL()

	// Create the bucket first, to learn which node leads its stream.
	setup, err := natsstore.Open(natsstore.Options{URLs: all, TTL: time.Minute, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	eventually.True(t, natsWait, "the bucket to be created", func() bool { _, err := setup.List(context.Background()); return err == nil })
	nc, err := nats.Connect(all)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	info, err := js.Stream(context.Background(), "KV_"+natsstore.DefaultBucket)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.CachedInfo().Config.Replicas; got != 3 {
		t.Fatalf("bucket replicas: got %d, want 3 (picked automatically on a 3-node cluster)", got)
	}
	leader := info.CachedInfo().Cluster.Leader
	var lost, other *natstest.Server
	for _, n := range nodes {
		switch {
		case n.Name() == leader:
			lost = n
		case other == nil:
			other = n
		}
	}
	if lost == nil {
		t.Fatalf("no node is named %q, the stream leader", leader)
	}

	a, b := natsHall(t, lost.URL()), natsHall(t, other.URL())
	fa, fb := streamtest.Follow(t, streamURL(a, ""), ""), streamtest.Follow(t, streamURL(b, ""), "")
	var want []string
	for i := range 3 {
		want = append(want, beatHall(t, a.URL(), beatOf(fmt.Sprintf("a-%d", i), "/srv/shop", fmt.Sprintf("/srv/a%d", i))).PresenceID)
		want = append(want, beatHall(t, b.URL(), beatOf(fmt.Sprintf("b-%d", i), "/srv/shop", fmt.Sprintf("/srv/b%d", i))).PresenceID)
	}
	for _, m := range []*Main{a, b} {
		eventually.True(t, natsWait, "both Halls to serve all six presences", func() bool { return hasAll(contractNow(t, m.URL()+"/api/presences"), want) })
	}
	// From here on, no subscriber may see a presence leave.
	var leaves sync.Map
	watchLeaves := func(f *streamtest.Follower, hall string) {
		for _, c := range f.Drain() {
			if len(c.Leaves) > 0 || c.Error != "" {
				leaves.Store(hall, fmt.Sprintf("leaves %v, error %q", ids(c.Leaves), c.Error))
			}
		}
	}
	watchLeaves(fa, "A")
	watchLeaves(fb, "B")

	lost.Shutdown()
	lost.WaitForShutdown()

	// Beats after the loss: re-beats of the six, and two new presences.
	for i := range 3 {
		beatHall(t, a.URL(), beatOf(fmt.Sprintf("a-%d", i), "/srv/shop", fmt.Sprintf("/srv/a%d", i)))
		beatHall(t, b.URL(), beatOf(fmt.Sprintf("b-%d", i), "/srv/shop", fmt.Sprintf("/srv/b%d", i)))
	}
	want = append(want,
		beatHall(t, a.URL(), beatOf("a-after", "/srv/shop", "/srv/a-after")).PresenceID,
		beatHall(t, b.URL(), beatOf("b-after", "/srv/shop", "/srv/b-after")).PresenceID)
	for _, m := range []*Main{a, b} {
		eventually.True(t, natsWait, "both Halls to serve all eight presences after the node loss", func() bool {
			watchLeaves(fa, "A")
			watchLeaves(fb, "B")
			return hasAll(contractNow(t, m.URL()+"/api/presences"), want)
		})
	}
	watchLeaves(fa, "A")
	watchLeaves(fb, "B")
	leaves.Range(func(hall, what any) bool {
		t.Errorf("Hall %s's subscriber saw the roster shrink during the failover: %s", hall, what)
		return true
	})
}

// BenchmarkCrossHallLatency measures how long a beat into Hall A takes to
// reach a subscriber of Hall B through one NATS server: the HTTP beat, the
// compare-and-set write, B's key watch, B's live loop and its stream. Each
// iteration changes the theme, so the beat is written at once (no
// throttle). It reports p50 and p99 in milliseconds.
//
//	go test -run '^$' -bench CrossHallLatency -benchtime 300x ./cmd/hall/
func BenchmarkCrossHallLatency(b *testing.B) {
	srv := natstest.RunServer(b, 0)
	hallA, hallB := natsHall(b, srv.URL()), natsHall(b, srv.URL())
	fb := streamtest.Follow(b, streamURL(hallB, ""), "")
	fb.Until(b, "B's connect snapshot", func(stream.Change) bool { return true })
	req := beatOf("bench", "/srv/bench", "/srv/bench")
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		req.Theme = fmt.Sprintf("beat %d", i)
		start := time.Now()
		beatHall(b, hallA.URL(), req)
		fb.Until(b, "the beat at B's subscriber", func(c stream.Change) bool {
			for _, p := range append(c.Joins, c.Updates...) {
				if p.Theme == req.Theme {
					return true
				}
			}
			return false
		})
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	q := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

// NATS stopped under a running Hall: once the outage outlasts its grace,
// every read surface says store_unreachable with a detail, as an
// unreadable folder says registry_unreadable: the contract, health, the
// page's status line, the cockpit, north and a stream that was open all
// along. When NATS is back they all serve the roster again.
func TestNATSOutageIsVisibleOnReadSurfaces(t *testing.T) {
	dir := t.TempDir()
	srv := natstest.RunServerAt(t, 0, dir)
	port := srv.Port
	m := natsHall(t, srv.URL())
	res := beatHall(t, m.URL(), beatOf("claude-1", "/srv/shop", "/srv/shop-wt1"))
	f := streamtest.Follow(t, streamURL(m, ""), "")
	f.Until(t, "the presence in the subscriber's view", func(stream.Change) bool {
		return len(f.Response().Presences) == 1
	})
	wr := startWatch(t, "--hall", m.URL(), "--json")
	watchLineOf := func(what string) contract.Line {
		t.Helper()
		var l contract.Line
		if raw := wr.line(t, what); json.Unmarshal([]byte(raw), &l) != nil {
			t.Fatalf("%s: line %q does not parse", what, raw)
		}
		return l
	}
	if l := watchLineOf("hall watch's snapshot"); l.Type != "snapshot" {
		t.Fatalf("hall watch: first line %+v, want the snapshot", l)
	}

	srv.Shutdown()
	srv.WaitForShutdown()
	ch := f.Until(t, "the stream to drop the roster", func(c stream.Change) bool { return c.Error != "" })
	if ch.Error != contract.StoreUnreachable || len(f.Response().Presences) != 0 || f.Response().Detail == "" {
		t.Errorf("stream during the outage: error %q, view %+v; want store_unreachable with a detail, the roster dropped", ch.Error, f.Response())
	}
	got := contractNow(t, m.URL()+"/api/presences")
	if got.Error != contract.StoreUnreachable || got.Detail == "" || len(got.Presences) != 0 {
		t.Errorf("contract during the outage: got %+v, want store_unreachable with a detail and no presences", got)
	}
	var h contract.Health
	if status := getJSON(t, m.URL()+"/api/health", &h); status != http.StatusOK || h.Error != contract.StoreUnreachable || h.Detail == "" ||
		!strings.HasPrefix(h.PresencesError, "store unreachable: ") || h.Presences != nil {
		t.Errorf("health during the outage: %d %+v; want 200, store_unreachable with a detail, the presences block dropped", status, h)
	}
	var n contract.NorthResponse
	if getJSON(t, m.URL()+"/api/north?presence_id="+res.PresenceID, &n); n.Error != contract.StoreUnreachable {
		t.Errorf("north during the outage: got %+v, want store_unreachable", n)
	}
	// Each body as the published schemas say, closed to undeclared fields.
	set := schematest.FromHall(t, m.URL(), schematest.Strict)
	for path, name := range map[string]string{"/api/presences": "presences", "/api/health": "health", "/api/north?presence_id=" + res.PresenceID: "north"} {
		getChecked(t, set, m.URL(), path, name)
	}
	if status, _, body := get(t, m.URL()+"/api/cockpit", nil); status != 200 || !strings.Contains(body, "(store unreachable)") {
		t.Errorf("cockpit during the outage: got %d %q, want 200 saying the store is unreachable", status, body)
	}
	if status, _, body := get(t, m.URL()+"/", nil); status != 200 || !strings.Contains(body, `data-testid="registry-error">Store unreachable: `) {
		t.Errorf("page during the outage: got %d, want 200 with the status line saying the store is unreachable:\n%s", status, body)
	}

	if l := watchLineOf("hall watch's outage line"); l.Type != "store_unreachable" || l.Detail == "" {
		t.Errorf("hall watch during the outage: got %+v, want a store_unreachable line with a detail", l)
	}

	natstest.RunServerAt(t, port, dir)
	f.Until(t, "the stream to serve the roster again", func(c stream.Change) bool {
		return c.Recovered && len(f.Response().Presences) == 1
	})
	eventually.True(t, natsWait, "the contract without an error", func() bool {
		r := contractNow(t, m.URL()+"/api/presences")
		return r.Error == "" && len(r.Presences) == 1
	})
	if l := watchLineOf("hall watch's leave"); l.Type != "leave" {
		t.Errorf("hall watch during the outage: got %+v, want the presence leaving with the roster", l)
	}
	if l := watchLineOf("hall watch's recovery line"); l.Type != "store_reachable" {
		t.Errorf("hall watch after the outage: got %+v, want a store_reachable line", l)
	}
}
