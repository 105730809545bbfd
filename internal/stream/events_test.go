package stream_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
)

// TestHubEvents: the hub tells its own diffs as lines, newest first: joins,
// a collision opening, then closing with how long it lasted, and a leave;
// beats that only update are left out; the history keeps Events lines and
// says how many matching lines a limit left out.
func TestHubEvents(t *testing.T) {
	th := newTestHall(t, stream.Config{Events: 8})
	shop, docs := "/srv/events/shop", "/srv/events/docs"
	wt := shop + "-wt"
	th.beat(t, presence.Beat{AgentID: "a", Brain: shop, Worktree: wt, Tool: "Edit"})
	th.beat(t, presence.Beat{AgentID: "a", Brain: shop, Worktree: wt, Tool: "Read"}) // an update only
	th.beat(t, presence.Beat{AgentID: "b", Brain: shop, Worktree: wt, Tool: "Write"})
	cid := presence.ID("a", shop) + "~" + presence.ID("b", shop)
	if presence.ID("b", shop) < presence.ID("a", shop) {
		cid = presence.ID("b", shop) + "~" + presence.ID("a", shop)
	}
	opened := th.hub.CollisionsOpened([]string{cid, "prs_000000000000~prs_111111111111"})
	if o, ok := opened[cid]; !ok || !o.Seen || o.AtMs == 0 || len(opened) != 1 {
		t.Fatalf("CollisionsOpened: got %+v", opened)
	}
	th.beat(t, presence.Beat{AgentID: "b", Brain: shop, Worktree: shop + "-elsewhere", Tool: "Write"})
	th.beat(t, presence.Beat{AgentID: "c", Brain: docs})

	lines, left := th.hub.Events("", 100)
	var got []string
	for _, l := range lines {
		got = append(got, l.Type)
	}
	want := "join collision_closed collision_opened join join"
	if strings.Join(got, " ") != want || left != 0 {
		t.Fatalf("events: got %q (left %d), want %q", strings.Join(got, " "), left, want)
	}
	closed := lines[1]
	if closed.Collision.CollisionID != cid || closed.OpenedAtMs != opened[cid].AtMs || closed.LastedMs == nil || *closed.LastedMs < 0 || closed.AtMs < closed.OpenedAtMs {
		t.Errorf("collision_closed: got %+v, want the opening's time and how long it lasted", closed)
	}
	if lines[0].Presence.AgentID != "c" || lines[0].EventID == "" || lines[0].Seq == 0 {
		t.Errorf("newest line: got %+v", lines[0])
	}

	shopLines, _ := th.hub.Events(shop, 100)
	if len(shopLines) != 4 {
		t.Errorf("shop's events: got %d, want 4", len(shopLines))
	}
	few, left := th.hub.Events(shop, 1)
	if len(few) != 1 || left != 3 {
		t.Errorf("limit 1: got %d left %d, want 1 left 3", len(few), left)
	}

	for i := 0; i < 20; i++ {
		th.beat(t, presence.Beat{AgentID: fmt.Sprintf("z-%02d", i), Brain: docs})
	}
	all, left := th.hub.Events("", 100)
	if len(all) != 8 || left != 0 || all[0].Presence.AgentID != "z-19" {
		t.Errorf("bounded history: got %d lines (left %d), newest %+v; want the last 8", len(all), left, all[0].Presence)
	}
}
