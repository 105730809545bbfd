package contract

import (
	"fmt"
	"reflect"
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
	observed, declared, none := presencetest.Observed(1), presencetest.Intent("edit"), presencetest.NoMutation()
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
			name: "the two colliding agents are shown though six others are older",
			live: func() []presence.Record {
				var rs []presence.Record
				for i := 0; i < 6; i++ {
					rs = append(rs, rec(fmt.Sprintf("old-%d", i), int64(i), fmt.Sprintf("/w/%d", i), observed))
				}
				return append(rs, rec("late-1", 50, "/w/late", declared), rec("late-2", 60, "/w/late", declared))
			}(),
			wantRows: []string{"late-1", "late-2", "old-0", "old-1", "old-2", "old-3"},
			wantMore: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := presence.Snapshot{AtMs: 100, Live: tt.live, Collisions: presence.CollisionsIn("", tt.live)}
			page, more := DrillRows(FromSnapshot(snap, ""))
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
