package contract

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// TestDrillOrder: colliding first, then observed, then declared, then the
// rest; within a band the longest-running first, then agent id; at most
// DrillCap rows and the count left out. The page's rows (DrillRows, over
// the wire form) and the cockpit's (drillRecords, over the domain form)
// are the same rows.
func TestDrillOrder(t *testing.T) {
	const brain = "/srv/shop"
	rec := func(agent string, firstSeen int64, worktree string, mutation presencetest.Option) presence.Record {
		return presencetest.Rec(agent, brain, presencetest.Worktree(worktree), presencetest.At(firstSeen),
			presencetest.LastBeat(100), mutation)
	}
	observed, declared, none := presencetest.Observed(presencetest.T0), presencetest.Intent("mutate"), presencetest.NoMutation()
	tests := []struct {
		name     string
		live     []presence.Record
		wantRows []string
		wantMore int
	}{
		{"empty", nil, []string{}, 0},
		{
			name: "bands before age",
			live: []presence.Record{
				rec("idle-old", 1, "/w/1", none),
				rec("declared", 5, "/w/2", declared),
				rec("observed", 9, "/w/3", observed),
				rec("collider-b", 8, "/w/shared", declared),
				rec("collider-a", 7, "/w/shared", observed),
			},
			wantRows: []string{"collider-a", "collider-b", "observed", "declared", "idle-old"},
		},
		{
			name: "within a band the longest-running first, then agent id",
			live: []presence.Record{
				rec("c", 3, "/w/c", observed), rec("b", 2, "/w/b", observed), rec("a", 2, "/w/a", observed),
			},
			wantRows: []string{"a", "b", "c"},
		},
		{
			name:     "a record without first_seen_ms runs from its last beat, as the wire says",
			live:     []presence.Record{rec("unstamped", 0, "/w/u", none), rec("stamped", 50, "/w/s", none)},
			wantRows: []string{"stamped", "unstamped"},
		},
		{
			name: "the two colliding agents are shown though six others are older",
			live: func() []presence.Record {
				var rs []presence.Record
				for i := 0; i < 6; i++ {
					rs = append(rs, rec(fmt.Sprintf("old-%d", i), int64(i+1), fmt.Sprintf("/w/%d", i), observed))
				}
				return append(rs, rec("late-1", 50, "/w/late", declared), rec("late-2", 60, "/w/late", declared))
			}(),
			wantRows: []string{"late-1", "late-2", "old-0", "old-1", "old-2", "old-3"},
			wantMore: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := presence.Snapshot{AtMs: 100, Live: tt.live, Collisions: presencetest.CollisionsIn("", tt.live)}
			resp := FromSnapshot(snap, "")
			page, more := DrillRows(resp, Colliding(resp.Collisions))
			got := []string{}
			for _, p := range page {
				got = append(got, p.AgentID)
			}
			if !reflect.DeepEqual(got, tt.wantRows) || more != tt.wantMore {
				t.Errorf("DrillRows: got %v and %d more, want %v and %d more", got, more, tt.wantRows, tt.wantMore)
			}
			cockpit, cmore := drillRecords(snap)
			got = []string{}
			for _, r := range cockpit {
				got = append(got, r.AgentID)
			}
			if !reflect.DeepEqual(got, tt.wantRows) || cmore != tt.wantMore {
				t.Errorf("drillRecords: got %v and %d more, want %v and %d more", got, cmore, tt.wantRows, tt.wantMore)
			}
		})
	}
}

// TestDrillRowsPicksAsASortWould: the drill keeps the best DrillCap rows in
// one pass; it must pick exactly the rows, in exactly the order, a full
// sort by rank (colliding, observed, declared, the rest), first seen,
// agent and id would, for rosters shorter and longer than the cap.
func TestDrillRowsPicksAsASortWould(t *testing.T) {
	levels := []string{"observed", "declared", "none"}
	for _, n := range []int{0, 1, DrillCap - 1, DrillCap, DrillCap + 1, 200} {
		var d PresencesResponse
		for i := range n {
			d.Presences = append(d.Presences, Presence{
				PresenceID: fmt.Sprintf("prs_%012d", i), AgentID: fmt.Sprintf("agent-%d", (i*7)%13),
				MutationLevel: levels[(i*5)%3], FirstSeenMs: int64((i * 31) % 17),
			})
		}
		for i := 0; i+1 < n; i += 9 {
			d.Collisions = append(d.Collisions, Collision{A: Side{PresenceID: d.Presences[i].PresenceID}, B: Side{PresenceID: d.Presences[i+1].PresenceID}})
		}
		colliding := Colliding(d.Collisions)
		rank := func(p Presence) int {
			if colliding[p.PresenceID] {
				return 0
			}
			return map[string]int{"observed": 1, "declared": 2}[p.MutationLevel] + 3*btoi(p.MutationLevel == "none")
		}
		want := append([]Presence(nil), d.Presences...)
		sort.SliceStable(want, func(i, j int) bool {
			a, b := want[i], want[j]
			if rank(a) != rank(b) {
				return rank(a) < rank(b)
			}
			if a.FirstSeenMs != b.FirstSeenMs {
				return a.FirstSeenMs < b.FirstSeenMs
			}
			if a.AgentID != b.AgentID {
				return a.AgentID < b.AgentID
			}
			return a.PresenceID < b.PresenceID
		})
		if len(want) > DrillCap {
			want = want[:DrillCap]
		}
		got, more := DrillRows(d, colliding)
		if more != n-len(want) || len(got) != len(want) {
			t.Fatalf("n=%d: got %d rows and %d more, want %d and %d", n, len(got), more, len(want), n-len(want))
		}
		for i := range want {
			if got[i].PresenceID != want[i].PresenceID {
				t.Errorf("n=%d row %d: got %s, want %s", n, i, got[i].PresenceID, want[i].PresenceID)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestDrillRecordsEqualsDrillRows: the cockpit's pick over the domain
// records (colliding sides read through the collisions) is the page's pick
// over the wire form, on rosters with no, few and many collisions.
func TestDrillRecordsEqualsDrillRows(t *testing.T) {
	for _, n := range []int{0, 1, 5, 7, 60, 300, 2000} {
		for name, live := range map[string][]presence.Record{"spread": presencetest.BenchRoster(n), "dense": presencetest.DenseRoster(n)} {
			presence.SortRoster(live)
			snap := presence.Snapshot{AtMs: presencetest.T0, Live: live, Collisions: presencetest.CollisionsIn("", live)}
			resp := FromSnapshot(snap, "")
			page, more := DrillRows(resp, Colliding(resp.Collisions))
			cockpit, cmore := drillRecords(snap)
			var want, got []string
			for _, p := range page {
				want = append(want, p.PresenceID)
			}
			for _, r := range cockpit {
				got = append(got, r.PresenceID)
			}
			if !reflect.DeepEqual(got, want) || cmore != more {
				t.Errorf("%s n=%d (%d collisions): cockpit %v and %d more, page %v and %d more", name, n, len(snap.Collisions), got, cmore, want, more)
			}
		}
	}
}
