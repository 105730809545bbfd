package stream

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

func pres(id, brain string, beat int64) contract.Presence {
	return contract.Presence{PresenceID: id, AgentID: "agent-" + id, Brain: brain, LastBeatMs: beat, WorkingSet: []string{}}
}

func coll(a, b, brain string, clauses ...string) contract.Collision {
	return contract.Collision{CollisionID: a + "~" + b, Brain: brain, A: contract.Side{PresenceID: a}, B: contract.Side{PresenceID: b}, Clauses: clauses, Paths: []string{}}
}

func st(ps []contract.Presence, cs []contract.Collision, errCode string) state {
	s := state{presences: map[string]contract.Presence{}, collisions: map[string]contract.Collision{}, errCode: errCode}
	for _, p := range ps {
		s.presences[p.PresenceID] = p
	}
	for _, c := range cs {
		s.collisions[c.CollisionID] = c
	}
	return s
}

func ids(ps []contract.Presence) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.PresenceID)
	}
	return out
}

func cids(cs []contract.Collision) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.CollisionID)
	}
	return out
}

func TestDiffStates(t *testing.T) {
	a1, a2 := pres("a", "/b1", 1), pres("a", "/b1", 2)
	b1, c1 := pres("b", "/b1", 1), pres("c", "/b2", 1)
	ab := coll("a", "b", "/b1", "same_worktree")
	abMore := coll("a", "b", "/b1", "same_worktree", "working_set_overlap")
	for _, tc := range []struct {
		name                                 string
		prev, next                           state
		joins, updates, leaves, opened, shut []string
		errChanged, empty                    bool
	}{
		{name: "nothing changed", prev: st([]contract.Presence{a1}, nil, ""), next: st([]contract.Presence{a1}, nil, ""), empty: true},
		{name: "join", prev: st(nil, nil, ""), next: st([]contract.Presence{a1, c1}, nil, ""), joins: []string{"a", "c"}},
		{name: "update", prev: st([]contract.Presence{a1}, nil, ""), next: st([]contract.Presence{a2}, nil, ""), updates: []string{"a"}},
		{name: "leave", prev: st([]contract.Presence{a1, b1}, nil, ""), next: st([]contract.Presence{b1}, nil, ""), leaves: []string{"a"}},
		{name: "collision opens with the second writer",
			prev: st([]contract.Presence{a1}, nil, ""), next: st([]contract.Presence{a1, b1}, []contract.Collision{ab}, ""),
			joins: []string{"b"}, opened: []string{"a~b"}},
		{name: "collision with new clauses is opened again (upsert)",
			prev: st([]contract.Presence{a1, b1}, []contract.Collision{ab}, ""), next: st([]contract.Presence{a1, b1}, []contract.Collision{abMore}, ""),
			opened: []string{"a~b"}},
		{name: "collision closes as a side leaves",
			prev: st([]contract.Presence{a1, b1}, []contract.Collision{ab}, ""), next: st([]contract.Presence{a1}, nil, ""),
			leaves: []string{"b"}, shut: []string{"a~b"}},
		{name: "registry unreadable drops the roster whole",
			prev: st([]contract.Presence{a1, b1}, []contract.Collision{ab}, ""), next: st(nil, nil, "registry_unreadable"),
			leaves: []string{"a", "b"}, shut: []string{"a~b"}, errChanged: true},
		{name: "registry readable again, still empty",
			prev: st(nil, nil, "registry_unreadable"), next: st(nil, nil, ""), errChanged: true},
		{name: "still unreadable", prev: st(nil, nil, "registry_unreadable"), next: st(nil, nil, "registry_unreadable"), empty: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := diffStates(tc.prev, tc.next)
			for _, x := range []struct {
				what      string
				got, want []string
			}{
				{"joins", ids(c.joins), tc.joins}, {"updates", ids(c.updates), tc.updates}, {"leaves", ids(c.leaves), tc.leaves},
				{"opened", cids(c.opened), tc.opened}, {"closed", cids(c.closed), tc.shut},
			} {
				if x.want == nil {
					x.want = []string{}
				}
				if !reflect.DeepEqual(x.got, x.want) {
					t.Errorf("%s: got %v, want %v", x.what, x.got, x.want)
				}
			}
			if c.errChanged != tc.errChanged || c.empty() != tc.empty {
				t.Errorf("errChanged %v empty %v, want %v %v", c.errChanged, c.empty(), tc.errChanged, tc.empty)
			}
		})
	}
}

// TestWireOfSeesEveryField: a collision's cached wire form is reused only
// when it is exactly what FromCollision would make: every field of the wire
// form, changed alone, is seen.
func TestWireOfSeesEveryField(t *testing.T) {
	dom := presence.Collision{
		Brain:   "/b",
		A:       &presence.Record{PresenceID: "prs_00000000000a", AgentID: "a", Theme: "t"},
		B:       &presence.Record{PresenceID: "prs_00000000000b", AgentID: "b"},
		Clauses: []presence.Clause{"same_worktree", "working_set_overlap"},
		Place:   "/b/wt",
		Paths:   []string{"/b/wt/src"},
	}
	if !wireOf(dom, contract.FromCollision(dom)) {
		t.Fatal("a collision's own wire form is not recognised")
	}
	mods := map[string]func(*contract.Collision){
		"CollisionID": nil, // the map key: both sides' ids, checked through A and B
		"Brain":       func(c *contract.Collision) { c.Brain = "/c" },
		"A":           func(c *contract.Collision) { c.A.Theme = "new" },
		"B":           func(c *contract.Collision) { c.B.AgentID = "new" },
		"Clauses":     func(c *contract.Collision) { c.Clauses = []string{"same_worktree", "same_caller_root"} },
		"Place":       func(c *contract.Collision) { c.Place = "/elsewhere" },
		"Paths":       func(c *contract.Collision) { c.Paths = []string{"/b/wt/docs"} },
		"BrainRoot":   func(c *contract.Collision) { c.BrainRoot = "/c" },
		"CallerRoot":  func(c *contract.Collision) { c.CallerRoot = "/b/other" },
		"AgentIDs":    func(c *contract.Collision) { c.AgentIDs = [2]string{"b", "a"} },
		"Reason":      func(c *contract.Collision) { c.Reason = contract.ReasonDeclaredOverlap },
	}
	typ := reflect.TypeOf(contract.Collision{})
	for i := 0; i < typ.NumField(); i++ {
		mod, ok := mods[typ.Field(i).Name]
		if !ok {
			t.Fatalf("field %s: teach this test and wireOf about it", typ.Field(i).Name)
		}
		if mod == nil {
			continue
		}
		w := contract.FromCollision(dom)
		mod(&w)
		if wireOf(dom, w) {
			t.Errorf("a change to %s is not seen", typ.Field(i).Name)
		}
	}
	fewer := contract.FromCollision(dom)
	fewer.Clauses = fewer.Clauses[:1]
	if wireOf(dom, fewer) {
		t.Error("a clause fewer is not seen")
	}
}

func TestFilterDiff(t *testing.T) {
	a, b, c := pres("prs_a", "/shop", 1), pres("prs_b", "/shop", 1), pres("prs_c", "/docs", 1)
	ab := coll("prs_a", "prs_b", "/shop", "same_worktree")
	ch := &change{seq: 7, joins: []contract.Presence{a}, updates: []contract.Presence{c}, leaves: []contract.Presence{b},
		opened: []contract.Collision{ab}}
	for _, tc := range []struct {
		name                          string
		f                             Filter
		joins, updates, leaves, opens int
		keep                          bool
	}{
		{"owner-wide", Filter{}, 1, 1, 1, 1, true},
		{"one brain", Filter{Brain: "/shop"}, 1, 0, 1, 1, true},
		{"another brain", Filter{Brain: "/docs"}, 0, 1, 0, 0, true},
		{"an unknown brain sees nothing", Filter{Brain: "/none"}, 0, 0, 0, 0, false},
		{"agent's view: its own join and collision", Filter{PresenceID: "prs_a"}, 1, 0, 0, 1, true},
		{"agent's view: its own leave", Filter{PresenceID: "prs_b"}, 0, 0, 1, 1, true},
		{"agent's view of a bystander", Filter{PresenceID: "prs_c"}, 0, 1, 0, 0, true},
		{"collisions only", Filter{CollisionsOnly: true}, 0, 0, 0, 1, true},
		{"collisions only, other brain", Filter{Brain: "/docs", CollisionsOnly: true}, 0, 0, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, keep := tc.f.diff(ch)
			got := []int{len(d.Joins), len(d.Updates), len(d.Leaves), len(d.CollisionsOpened)}
			if want := []int{tc.joins, tc.updates, tc.leaves, tc.opens}; !reflect.DeepEqual(got, want) || keep != tc.keep {
				t.Errorf("joins, updates, leaves, opened: got %v keep %v, want %v keep %v", got, keep, want, tc.keep)
			}
			if d.Seq != 7 || d.Joins == nil || d.Updates == nil || d.Leaves == nil || d.CollisionsOpened == nil || d.CollisionsClosed == nil {
				t.Errorf("diff must carry its seq and [] (not null) lists: %+v", d)
			}
		})
	}
	// A change of the registry's state reaches every subscriber, even one
	// for which the rest of the diff is empty.
	errCh := &change{seq: 8, errChanged: true, errCode: "registry_unreadable", errDetail: "gone"}
	if d, keep := (Filter{Brain: "/none"}).diff(errCh); !keep || d.Error != "registry_unreadable" {
		t.Errorf("registry error diff: got %+v keep %v, want it kept with its error", d, keep)
	}
}

func TestFilterResponse(t *testing.T) {
	recs := []presence.Record{
		{PresenceID: "prs_aaaaaaaaaaaa", AgentID: "a", Brain: "/shop", Worktree: "/wt", LastBeatMs: 3, Mutation: presence.Mutation{DeclaredIntent: "mutate"}},
		{PresenceID: "prs_bbbbbbbbbbbb", AgentID: "b", Brain: "/shop", Worktree: "/wt", LastBeatMs: 2, Mutation: presence.Mutation{DeclaredIntent: "mutate"}},
		{PresenceID: "prs_cccccccccccc", AgentID: "c", Brain: "/docs", LastBeatMs: 1},
	}
	snap := presence.Snapshot{AtMs: 99, Live: recs, Collisions: presencetest.CollisionsIn("", recs)}
	for _, tc := range []struct {
		name        string
		f           Filter
		presences   []string
		collisions  int
		servedBrain string
	}{
		{"owner-wide", Filter{}, []string{"prs_aaaaaaaaaaaa", "prs_bbbbbbbbbbbb", "prs_cccccccccccc"}, 1, ""},
		{"brain", Filter{Brain: "/docs"}, []string{"prs_cccccccccccc"}, 0, "/docs"},
		{"agent", Filter{PresenceID: "prs_bbbbbbbbbbbb"}, []string{"prs_bbbbbbbbbbbb"}, 1, ""},
		{"agent not live", Filter{PresenceID: "prs_dddddddddddd"}, []string{}, 0, ""},
		{"collisions only", Filter{Brain: "/shop", CollisionsOnly: true}, []string{}, 1, "/shop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.f.response(snap, nil, "123")
			if got := ids(r.Presences); !reflect.DeepEqual(got, tc.presences) || len(r.Collisions) != tc.collisions ||
				r.ServedBrain.Root() != tc.servedBrain || r.Cursor != "123" || r.ServedAtMs != 99 {
				t.Errorf("got %v, %d collisions, served %q, cursor %q; want %v, %d, %q", got, len(r.Collisions), r.ServedBrain.Root(), r.Cursor, tc.presences, tc.collisions, tc.servedBrain)
			}
		})
	}
	r := Filter{Brain: "/shop"}.response(presence.Snapshot{AtMs: 5}, presence.Errorf(presence.EUNAVAILABLE, "folder gone"), "9")
	if r.Error != "registry_unreadable" || r.Detail != "folder gone" || r.Presences == nil || r.Collisions == nil || r.ServedBrain != nil {
		t.Errorf("unreadable registry: got %+v, want the contract's error answer", r)
	}
}

func TestParseID(t *testing.T) {
	const base = 1_764_489_600_000_000_000
	for _, tc := range []struct {
		id   string
		seq  uint64
		okay bool
	}{
		{strconv.FormatUint(base, 10), 0, true},
		{strconv.FormatUint(base+5, 10), 5, true},
		{strconv.FormatUint(base+10, 10), 10, true},
		{" " + strconv.FormatUint(base+3, 10) + " ", 3, true},
		{strconv.FormatUint(base+11, 10), 0, false}, // not issued yet
		{strconv.FormatUint(base-1, 10), 0, false},  // an earlier run
		{"", 0, false}, {"abc", 0, false}, {"-5", 0, false}, {"1e18", 0, false},
		{"99999999999999999999999", 0, false}, {"0x10", 0, false},
	} {
		seq, ok := parseID(tc.id, base, 10)
		if seq != tc.seq || ok != tc.okay {
			t.Errorf("parseID(%q): got %d %v, want %d %v", tc.id, seq, ok, tc.seq, tc.okay)
		}
	}
}

func TestRing(t *testing.T) {
	r := newRing(3, 0)
	if !r.covers(0, 0) || r.covers(0, 1) {
		t.Error("an empty ring covers only the present")
	}
	for s := uint64(1); s <= 5; s++ {
		r.push(&change{seq: s})
	}
	for _, tc := range []struct {
		from   uint64
		covers bool
		seqs   []uint64
	}{
		{0, false, nil}, {1, false, nil}, {2, true, []uint64{3, 4, 5}}, {4, true, []uint64{5}}, {5, true, nil},
	} {
		if got := r.covers(tc.from, 5); got != tc.covers {
			t.Errorf("covers(%d): got %v, want %v", tc.from, got, tc.covers)
		}
		if !tc.covers {
			continue
		}
		var got []uint64
		for _, c := range r.since(tc.from) {
			got = append(got, c.seq)
		}
		if !reflect.DeepEqual(got, tc.seqs) {
			t.Errorf("since(%d): got %v, want %v (never the one it saw)", tc.from, got, tc.seqs)
		}
	}
}

// TestRingItemBound: large diffs are kept fewer; the newest always is,
// and a resume from before what is kept is refused (a snapshot follows).
func TestRingItemBound(t *testing.T) {
	r := newRing(100, 10)
	big := func(seq uint64, n int) *change {
		return &change{seq: seq, joins: make([]contract.Presence, n)}
	}
	for s := uint64(1); s <= 4; s++ {
		r.push(big(s, 1)) // 2 items each
	}
	if r.n != 4 || r.items != 8 || !r.covers(0, 4) {
		t.Fatalf("small diffs: %d held, %d items, covers(0) %v; want 4, 8, true", r.n, r.items, r.covers(0, 4))
	}
	r.push(big(5, 5)) // 6 items: the oldest two go
	if r.n != 3 || r.items != 10 || r.covers(1, 5) || !r.covers(2, 5) {
		t.Fatalf("a big diff: %d held, %d items, covers(1) %v covers(2) %v; want 3, 10, false, true", r.n, r.items, r.covers(1, 5), r.covers(2, 5))
	}
	r.push(big(6, 50)) // more than the bound alone: kept alone
	if r.n != 1 || r.covers(4, 6) || !r.covers(5, 6) || len(r.since(5)) != 1 {
		t.Fatalf("a huge diff: %d held, covers(4) %v covers(5) %v; want 1, false, true", r.n, r.covers(4, 6), r.covers(5, 6))
	}
}

func TestEncodeEvent(t *testing.T) {
	got := string(encodeEvent("42", "diff", contract.Diff{Seq: 1, Joins: []contract.Presence{{Theme: "line\nbreak </script>"}}}))
	want := "id: 42\nevent: diff\ndata: "
	if got[:len(want)] != want || got[len(got)-2:] != "\n\n" {
		t.Errorf("frame: got %q", got)
	}
	body := got[len(want) : len(got)-2]
	for _, bad := range []string{"\n", "\r", "<"} {
		if strings.Contains(body, bad) {
			t.Errorf("data line holds %q: %q", bad, body)
		}
	}
	f := parseFrame([]byte(got))
	if ev, ok, err := f.event(); err != nil || !ok || ev.Diff.Joins[0].Theme != "line\nbreak </script>" {
		t.Errorf("round trip: got %+v %v %v", ev, ok, err)
	}
}

func TestParseFrame(t *testing.T) {
	for _, tc := range []struct {
		name   string
		raw    string
		id     string
		event  string
		data   string
		retry  int64
		ok     bool
		broken bool
	}{
		{"diff", "id: 5\nevent: diff\ndata: {\"seq\":5}", "5", "diff", `{"seq":5}`, 0, true, false},
		{"no space after colon", "id:5\nevent:diff\ndata:{\"seq\":5}", "5", "diff", `{"seq":5}`, 0, true, false},
		{"CRLF", "id: 5\r\nevent: diff\r\ndata: {\"seq\":5}", "5", "diff", `{"seq":5}`, 0, true, false},
		{"retry alone", "retry: 2000", "", "", "", 2000, false, false},
		{"heartbeat", ": heartbeat", "", "", "", 0, false, false},
		{"unknown event", "id: 5\nevent: other\ndata: {}", "5", "other", "{}", 0, false, false},
		{"cut before data", "id: 5\nevent: diff", "5", "diff", "", 0, false, false},
		{"cut inside data", "id: 5\nevent: diff\ndata: {\"seq\":", "5", "diff", `{"seq":`, 0, false, true},
		{"multi-line data", "id: 1\nevent: snapshot\ndata: {\"presences\":\ndata: []}", "1", "snapshot", "{\"presences\":\n[]}", 0, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := parseFrame([]byte(tc.raw))
			if f.id != tc.id || f.name != tc.event || string(f.data) != tc.data || f.retry.Milliseconds() != tc.retry {
				t.Errorf("fields: got %q %q %q %v", f.id, f.name, f.data, f.retry)
			}
			_, ok, err := f.event()
			if ok != tc.ok || (err != nil) != tc.broken {
				t.Errorf("event: ok %v err %v, want ok %v broken %v", ok, err, tc.ok, tc.broken)
			}
		})
	}
}

func TestViewApply(t *testing.T) {
	var v View
	a, b := pres("a", "/s", 2), pres("b", "/s", 1)
	ab := coll("a", "b", "/s", "same_worktree")
	c := v.Apply(Event{ID: "1", Snapshot: &contract.PresencesResponse{Presences: []contract.Presence{a, b}, Collisions: []contract.Collision{ab}}})
	if len(c.Joins) != 2 || len(c.Opened) != 1 || c.Resync {
		t.Errorf("first snapshot: got %+v, want two joins and the open collision", c)
	}
	a2 := a
	a2.LastBeatMs = 3
	abMore := coll("a", "b", "/s", "same_worktree", "working_set_overlap")
	c = v.Apply(Event{ID: "2", Diff: &contract.Diff{Seq: 2, Updates: []contract.Presence{a2}, CollisionsOpened: []contract.Collision{abMore}}})
	if len(c.Updates) != 1 || len(c.Changed) != 1 || len(c.Opened) != 0 {
		t.Errorf("update and upsert: got %+v, want one update and one changed collision", c)
	}
	c = v.Apply(Event{ID: "3", Diff: &contract.Diff{Seq: 3, Leaves: []string{"b"}, CollisionsClosed: []contract.Collision{ab}}})
	if len(c.Leaves) != 1 || c.Leaves[0].AgentID != "agent-b" || len(c.Closed) != 1 {
		t.Errorf("leave: got %+v, want b as last seen, and the collision closed", c)
	}
	c = v.Apply(Event{ID: "4", Diff: &contract.Diff{Seq: 4, Error: "registry_unreadable", Leaves: []string{"a"}}})
	if c.Error != "registry_unreadable" || len(c.Leaves) != 1 {
		t.Errorf("drop: got %+v", c)
	}
	c = v.Apply(Event{ID: "5", Diff: &contract.Diff{Seq: 5}})
	if !c.Recovered {
		t.Errorf("recovery: got %+v", c)
	}
	// A resync: compared with what the view held.
	c = v.Apply(Event{ID: "9", Snapshot: &contract.PresencesResponse{Presences: []contract.Presence{b}, Collisions: []contract.Collision{}}})
	if !c.Resync || len(c.Joins) != 1 || c.Joins[0].PresenceID != "b" {
		t.Errorf("resync: got %+v, want b joining", c)
	}
	r := v.Response()
	if r.Cursor != "9" || len(r.Presences) != 1 {
		t.Errorf("response: got %+v", r)
	}
}

func TestViewResponseOrder(t *testing.T) {
	var v View
	v.Apply(Event{ID: "1", Snapshot: &contract.PresencesResponse{
		Presences:  []contract.Presence{pres("z", "/s", 1), pres("y", "/s", 5), pres("x", "/s", 1)},
		Collisions: []contract.Collision{coll("x", "z", "/t"), coll("x", "y", "/t"), coll("y", "z", "/a")},
	}})
	r := v.Response()
	if got := ids(r.Presences); !reflect.DeepEqual(got, []string{"y", "x", "z"}) {
		t.Errorf("presences: got %v, want newest beat first, then agent_id", got)
	}
	if got := cids(r.Collisions); !reflect.DeepEqual(got, []string{"y~z", "x~y", "x~z"}) {
		t.Errorf("collisions: got %v, want by brain, then id", got)
	}
}

// TestDiffRosters: the hub's diff over domain records, in wire form.
func TestDiffRosters(t *testing.T) {
	rec := func(agent, wt string, beat int64) presence.Record {
		return presence.Record{PresenceID: presence.ID(agent, "/s"), AgentID: agent, Brain: "/s", Worktree: wt, LastBeatMs: beat,
			Mutation: presence.Mutation{DeclaredIntent: "mutate"}}
	}
	snap := func(rs ...presence.Record) presence.Snapshot {
		return presence.Snapshot{Live: rs, Collisions: presencetest.CollisionsIn("", rs)}
	}
	a1, a2, b1, b2 := rec("a", "/wt", 1), rec("a", "/wt", 2), rec("b", "/wt", 1), rec("b", "/wt", 2)
	aID, bID := presence.ID("a", "/s"), presence.ID("b", "/s")
	for _, tc := range []struct {
		name                                 string
		prev, next                           roster
		joins, updates, leaves, opened, shut int
		errChanged                           bool
	}{
		{name: "join opens the collision", prev: rosterOf(snap(a1), nil, roster{}), next: rosterOf(snap(a1, b1), nil, roster{}), joins: 1, opened: 1},
		{name: "a side's beat updates it, not its collision", prev: rosterOf(snap(a1, b1), nil, roster{}), next: rosterOf(snap(a2, b2), nil, roster{}), updates: 2},
		{name: "a side leaving closes it", prev: rosterOf(snap(a1, b1), nil, roster{}), next: rosterOf(snap(a1), nil, roster{}), leaves: 1, shut: 1},
		{name: "unreadable", prev: rosterOf(snap(a1, b1), nil, roster{}), next: rosterOf(presence.Snapshot{}, errors.New("gone"), roster{}), leaves: 2, shut: 1, errChanged: true},
		{name: "nothing", prev: rosterOf(snap(a1, b1), nil, roster{}), next: rosterOf(snap(a1, b1), nil, roster{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := diffRosters(tc.prev, tc.next)
			got := []int{len(c.joins), len(c.updates), len(c.leaves), len(c.opened), len(c.closed)}
			if want := []int{tc.joins, tc.updates, tc.leaves, tc.opened, tc.shut}; !reflect.DeepEqual(got, want) || c.errChanged != tc.errChanged {
				t.Errorf("joins, updates, leaves, opened, closed: got %v (err changed %v), want %v (%v)", got, c.errChanged, want, tc.errChanged)
			}
			for _, p := range append(append(c.joins, c.updates...), c.leaves...) {
				if p.PresenceID != aID && p.PresenceID != bID || p.MutationLevel != "declared" || p.WorkingSet == nil {
					t.Errorf("wire form: got %+v", p)
				}
			}
		})
	}
}

// TestFilterDiffTotals: each filter's collisions_total rides a diff when
// its own count changed, alone if need be, and never when it did not.
func TestFilterDiffTotals(t *testing.T) {
	ch := &change{seq: 3, total: 12, totalChanged: true,
		brainTotals:    map[string]int{"/shop": 10},
		presenceTotals: map[string]ownTotal{"prs_a": {brain: "/shop", n: 4}, "prs_gone": {brain: "/shop", n: 0}}}
	still := &change{seq: 4}
	for _, tc := range []struct {
		name  string
		f     Filter
		c     *change
		total int // -1: absent
		keep  bool
	}{
		{"owner-wide", Filter{}, ch, 12, true},
		{"its brain", Filter{Brain: "/shop"}, ch, 10, true},
		{"another brain", Filter{Brain: "/docs"}, ch, -1, false},
		{"its presence", Filter{PresenceID: "prs_a"}, ch, 4, true},
		{"its presence, on its brain", Filter{PresenceID: "prs_a", Brain: "/shop"}, ch, 4, true},
		{"its presence, on another brain", Filter{PresenceID: "prs_a", Brain: "/docs"}, ch, -1, false},
		{"a presence whose last collision closed", Filter{PresenceID: "prs_gone"}, ch, 0, true},
		{"a bystander", Filter{PresenceID: "prs_z"}, ch, -1, false},
		{"collisions only", Filter{CollisionsOnly: true}, ch, 12, true},
		{"nothing changed", Filter{}, still, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, keep := tc.f.diff(tc.c)
			got := -1
			if d.CollisionsTotal != nil {
				got = *d.CollisionsTotal
			}
			if got != tc.total || keep != tc.keep {
				t.Errorf("collisions_total %d keep %v, want %d keep %v", got, keep, tc.total, tc.keep)
			}
		})
	}
}

// TestDiffRostersUnlisted: a collision the bound pushed out of the list is
// closed on the wire and marked unlisted; one whose side left is closed.
func TestDiffRostersUnlisted(t *testing.T) {
	rec := func(agent string) presence.Record {
		return presence.Record{PresenceID: presence.ID(agent, "/s"), AgentID: agent, Brain: "/s", Worktree: "/wt", LastBeatMs: 1,
			Mutation: presence.Mutation{DeclaredIntent: "mutate"}}
	}
	snap := func(rs ...presence.Record) presence.Snapshot {
		cs, tally := presence.CollisionsWithin("", rs, time.UnixMilli(1), presence.CollisionBound{Max: 1})
		return presence.Snapshot{Live: rs, Collisions: cs, CollisionsTotal: tally.Pairs,
			Counts: &presence.CollisionCounts{Total: tally.Pairs, Brains: map[string]*presence.BrainCounts{"/s": {Total: tally.Pairs}}}}
	}
	// Three agents in one worktree: three pairs, one listed.
	a, b, c := rec("a"), rec("b"), rec("c")
	all := []presence.Record{a, b, c}
	slices.SortFunc(all, func(x, y presence.Record) int { return strings.Compare(x.PresenceID, y.PresenceID) })
	first, second, third := all[0], all[1], all[2]
	// Without the first, the second and third's pair is listed; with it
	// back, that pair is pushed out, still open.
	prev := rosterOf(snap(second, third), nil, roster{})
	next := rosterOf(snap(first, second, third), nil, prev)
	d := diffRosters(prev, next)
	if len(d.closed) != 1 || !d.unlisted[d.closed[0].CollisionID] || len(d.opened) != 1 || !d.totalChanged || d.total != 3 {
		t.Fatalf("pushed out: got closed %v unlisted %v opened %v total %d (changed %v), want one closed and unlisted, one opened, total 3",
			cids(d.closed), d.unlisted, cids(d.opened), d.total, d.totalChanged)
	}
	// The first leaving closes its pair for good.
	d = diffRosters(next, rosterOf(snap(second, third), nil, next))
	if len(d.closed) != 1 || d.unlisted[d.closed[0].CollisionID] {
		t.Fatalf("side left: got closed %v unlisted %v, want one closed, not unlisted", cids(d.closed), d.unlisted)
	}
}
