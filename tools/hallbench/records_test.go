package main

import (
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/presence"
)

// TestBenchRosterCollides: the synthetic roster collides as a kept one
// does under m1nd's exact-entry rule: most by a shared worktree, a few by a
// file several agents declare, not every mutating pair of a brain by an
// entry all of them declare (go.mod in every record made 4,108 at 1,000
// presences). docs/performance.md quotes the figure at 1,000.
func TestBenchRosterCollides(t *testing.T) {
	now := time.UnixMilli(1_800_000_000_000)
	tests := []struct {
		n, brains            int
		worktree, workingSet int
	}{
		{100, 50, 16, 0},
		{1000, 50, 166, 99},
		{95, 10, 14, 3},
	}
	for _, tt := range tests {
		rs := make([]presence.Record, tt.n)
		for i := range rs {
			rs[i] = benchRecord(i, tt.brains, now.UnixMilli())
		}
		cs, tally := presence.CollisionsWithin("", rs, now, presence.CollisionBound{Max: tt.n * tt.n})
		by := map[presence.Clause]int{}
		for _, c := range cs {
			for _, cl := range c.Clauses {
				by[cl]++
			}
		}
		if got, want := by[presence.ClauseWorktree], tt.worktree; got != want {
			t.Errorf("%d presences over %d brains: %d collisions by worktree, want %d", tt.n, tt.brains, got, want)
		}
		if got, want := by[presence.ClauseWorkingSet], tt.workingSet; got != want {
			t.Errorf("%d presences over %d brains: %d collisions by working set, want %d", tt.n, tt.brains, got, want)
		}
		if tally.Pairs != len(cs) {
			t.Errorf("%d presences: %d pairs counted, %d listed", tt.n, tally.Pairs, len(cs))
		}
	}
}
