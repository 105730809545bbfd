package stream

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// TestTellerTells walks one View and one Teller through a run's events
// and checks the lines each event is told as: types, event ids, and how
// long each collision lasted when the teller saw it open.
func TestTellerTells(t *testing.T) {
	a, b := pres("prs_aaaaaaaaaaaa", "/b", 1), pres("prs_bbbbbbbbbbbb", "/b", 1)
	c := coll(a.PresenceID, b.PresenceID, "/b", "same_worktree")
	old := coll("prs_cccccccccccc", "prs_dddddddddddd", "/b", "same_worktree")
	changed := c
	changed.Clauses = []string{"same_worktree", "working_set_overlap"}
	at := func(ms int64) time.Time { return time.UnixMilli(ms) }

	var v View
	var tl Teller
	steps := []struct {
		name string
		ev   Event
		at   int64
		want string // type@event_id[+opened_at/lasted], space separated
	}{
		{"first snapshot: itself and the collision open in it", Event{ID: "1", Snapshot: &contract.PresencesResponse{
			Presences: []contract.Presence{a}, Collisions: []contract.Collision{old}}}, 1000,
			"snapshot@1 collision_opened@1"},
		{"a join and a collision opening", Event{ID: "2", Diff: &contract.Diff{Seq: 2, Joins: []contract.Presence{b}, CollisionsOpened: []contract.Collision{c}}}, 2000,
			"join@2 collision_opened@2"},
		{"an update and a changed collision", Event{ID: "3", Diff: &contract.Diff{Seq: 3, Updates: []contract.Presence{pres(a.PresenceID, "/b", 9)}, CollisionsOpened: []contract.Collision{changed}}}, 2500,
			"update@3 collision_changed@3+2000/"},
		{"both close: one seen opening, one open before the first look", Event{ID: "4", Diff: &contract.Diff{Seq: 4, Leaves: []string{b.PresenceID}, CollisionsClosed: []contract.Collision{changed, old}}}, 5000,
			"leave@4 collision_closed@4+2000/3000 collision_closed@4"},
		{"the registry unreadable", Event{ID: "5", Diff: &contract.Diff{Seq: 5, Leaves: []string{a.PresenceID}, Error: "registry_unreadable", Detail: "gone"}}, 6000,
			"registry_unreadable@5 leave@5"},
		{"readable again, by a resync snapshot", Event{ID: "9", Snapshot: &contract.PresencesResponse{Presences: []contract.Presence{a}}}, 7000,
			"snapshot@9 registry_readable@9 join@9"},
	}
	for _, s := range steps {
		ch := v.Apply(s.ev)
		var got []string
		for _, l := range tl.Tell(s.ev, ch, at(s.at)) {
			w := l.Type + "@" + l.EventID
			if l.OpenedAtMs != 0 {
				w += "+" + itoa(l.OpenedAtMs) + "/"
				if l.LastedMs != nil {
					w += itoa(*l.LastedMs)
				}
			}
			if l.AtMs != s.at {
				t.Errorf("%s: %s at_ms %d, want %d", s.name, l.Type, l.AtMs, s.at)
			}
			if l.Type == contract.LineRegistryUnreadable && l.Detail != "gone" {
				t.Errorf("%s: detail %q", s.name, l.Detail)
			}
			got = append(got, w)
		}
		if g := strings.Join(got, " "); g != s.want {
			t.Errorf("%s: got %q, want %q", s.name, g, s.want)
		}
	}
	if _, ok := tl.OpenedAt(c.CollisionID); ok {
		t.Error("a closed collision is still remembered")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestEventRing: newest first, bounded, narrowed to a brain (a line about
// every brain matches any), and the count of matching lines left out.
func TestEventRing(t *testing.T) {
	r := eventRing{buf: make([]contract.Line, 4)}
	for i, brain := range []string{"/a", "/b", "", "/a", "/b", "/a"} {
		l := contract.Line{Type: contract.LineRegistryReadable, EventID: string(rune('0' + i))}
		if brain != "" {
			p := pres("prs_aaaaaaaaaaaa", brain, 1)
			l.Type, l.Presence = contract.LineJoin, &p
		}
		r.push(l)
	}
	ids := func(ls []contract.Line) string {
		var s string
		for _, l := range ls {
			s += l.EventID
		}
		return s
	}
	for _, tt := range []struct {
		brain    string
		limit    int
		want     string
		leftOut  int
		describe string
	}{
		{"", 10, "5432", 0, "all kept lines, newest first; the two oldest were evicted"},
		{"", 2, "54", 2, "limited"},
		{"/a", 10, "532", 0, "one brain and the line about every brain"},
		{"/a", 1, "5", 2, "one brain, limited"},
		{"/c", 10, "2", 0, "a brain with no lines of its own"},
	} {
		got, left := r.newest(tt.brain, tt.limit)
		if ids(got) != tt.want || left != tt.leftOut {
			t.Errorf("%s: got %q left %d, want %q left %d", tt.describe, ids(got), left, tt.want, tt.leftOut)
		}
	}
}

// TestEventRingKeepsAnEventsOrder: events newest first, and within one
// event the registry's state, then collisions, then presences.
func TestEventRingKeepsAnEventsOrder(t *testing.T) {
	r := eventRing{buf: make([]contract.Line, 8)}
	p := pres("prs_aaaaaaaaaaaa", "/a", 1)
	c := coll("prs_aaaaaaaaaaaa", "prs_bbbbbbbbbbbb", "/a", "same_worktree")
	for _, l := range []contract.Line{
		{Type: contract.LineJoin, EventID: "1", Presence: &p},
		{Type: contract.LineJoin, EventID: "2", Presence: &p},
		{Type: contract.LineCollisionOpened, EventID: "2", Collision: &c},
		{Type: contract.LineRegistryUnreadable, EventID: "3"},
		{Type: contract.LineLeave, EventID: "3", Presence: &p},
		{Type: contract.LineCollisionClosed, EventID: "3", Collision: &c},
		{Type: contract.LineLeave, EventID: "3", Presence: &p},
	} {
		r.push(l)
	}
	got, left := r.newest("", 5)
	var s []string
	for _, l := range got {
		s = append(s, l.Type+"@"+l.EventID)
	}
	want := "registry_unreadable@3 collision_closed@3 leave@3 leave@3 collision_opened@2"
	if strings.Join(s, " ") != want || left != 2 {
		t.Errorf("got %q left %d, want %q left 2", strings.Join(s, " "), left, want)
	}
}

// TestTellerTellsTheStoresOutage: a roster dropped because the store (a
// NATS server) is unreachable comes back as store_reachable, one dropped
// because the folder is unreadable as registry_readable.
func TestTellerTellsTheStoresOutage(t *testing.T) {
	for _, code := range []string{contract.StoreUnreachable, contract.RegistryUnreadable} {
		var v View
		var tl Teller
		types := func(ev Event) string {
			var s []string
			for _, l := range tl.Tell(ev, v.Apply(ev), time.UnixMilli(1)) {
				s = append(s, l.Type)
			}
			return strings.Join(s, " ")
		}
		types(Event{ID: "1", Snapshot: &contract.PresencesResponse{}})
		if got := types(Event{ID: "2", Diff: &contract.Diff{Seq: 2, Error: code, Detail: "down"}}); got != code {
			t.Errorf("%s: the outage told as %q", code, got)
		}
		want := map[string]string{contract.StoreUnreachable: contract.LineStoreReachable, contract.RegistryUnreadable: contract.LineRegistryReadable}[code]
		if got := types(Event{ID: "3", Diff: &contract.Diff{Seq: 3}}); got != want {
			t.Errorf("%s: the recovery told as %q, want %q", code, got, want)
		}
	}
}
