package gitscan

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestSlowDue: the slow rescan takes, at each tick, the worktrees due
// (last whole scan a period ago or more, or never; a scoped scan since
// does not count), the longest waiting first,
// at most a slowSlices-th of those tracked and at most the rate's share
// of a tick: 50 worktrees due at once are rescanned five a tick (three at
// the default rate), not fifty.
func TestSlowDue(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	const slow = 30 * time.Second
	ago := func(d time.Duration) *tracked {
		return &tracked{state: scanState{last: now.Add(-d), lastWhole: now.Add(-d)}}
	}
	scopedSince := &tracked{state: scanState{last: now.Add(-time.Second), lastWhole: now.Add(-slow)}}
	fifty := map[string]*tracked{}
	for i := range 50 {
		fifty[fmt.Sprintf("/w/%02d", i)] = ago(slow + time.Duration(i)*time.Second)
	}
	tests := []struct {
		name  string
		trees map[string]*tracked
		limit int
		want  []string
	}{
		{"none tracked", map[string]*tracked{}, 3, nil},
		{"scanned within the period", map[string]*tracked{"/w/a": ago(slow - time.Second)}, 3, nil},
		{"one due", map[string]*tracked{"/w/a": ago(slow), "/w/b": ago(time.Second)}, 3, []string{"/w/a"}},
		{"never scanned is due first", map[string]*tracked{"/w/a": ago(slow), "/w/b": {}}, 3, []string{"/w/b"}},
		{"a scoped scan since the whole one does not count", map[string]*tracked{"/w/a": scopedSince, "/w/b": ago(time.Second)}, 3, []string{"/w/a"}},
		{"fifty due: a tenth, the longest waiting", fifty, 10, []string{"/w/49", "/w/48", "/w/47", "/w/46", "/w/45"}},
		{"fifty due: the rate's limit", fifty, 3, []string{"/w/49", "/w/48", "/w/47"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := slowDue(tt.trees, now, slow, tt.limit); !slices.Equal(got, tt.want) {
				t.Errorf("slowDue = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSlowPace: the slow rescan ticks ten times a period, starting at
// most the rate's rescans a tick, one at least.
func TestSlowPace(t *testing.T) {
	for _, tt := range []struct {
		slow    time.Duration
		rate    float64
		every   time.Duration
		perTick int
	}{
		{DefaultSlow, DefaultSlowRate, 3 * time.Second, 3},
		{time.Minute, 2, 6 * time.Second, 12},
		{200 * time.Millisecond, DefaultSlowRate, 20 * time.Millisecond, 1},
		{DefaultSlow, 0.1, 3 * time.Second, 1},
		{time.Microsecond, 1, time.Millisecond, 1},
	} {
		every, perTick := slowPace(tt.slow, tt.rate)
		if every != tt.every || perTick != tt.perTick {
			t.Errorf("slowPace(%s, %v) = %s, %d; want %s, %d", tt.slow, tt.rate, every, perTick, tt.every, tt.perTick)
		}
	}
}
