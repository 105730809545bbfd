package gitscan

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestSlowDue: the slow rescan takes, at each tick, the worktrees due
// (last scan a period ago or more, or never), the longest waiting first,
// at most a slowSlices-th of those tracked: 50 worktrees due at once are
// rescanned five a tick, not fifty.
func TestSlowDue(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	const slow = 30 * time.Second
	ago := func(d time.Duration) *tracked { return &tracked{last: now.Add(-d)} }
	fifty := map[string]*tracked{}
	for i := range 50 {
		fifty[fmt.Sprintf("/w/%02d", i)] = ago(slow + time.Duration(i)*time.Second)
	}
	tests := []struct {
		name  string
		trees map[string]*tracked
		want  []string
	}{
		{"none tracked", map[string]*tracked{}, nil},
		{"scanned within the period", map[string]*tracked{"/w/a": ago(slow - time.Second)}, nil},
		{"one due", map[string]*tracked{"/w/a": ago(slow), "/w/b": ago(time.Second)}, []string{"/w/a"}},
		{"never scanned is due first", map[string]*tracked{"/w/a": ago(slow), "/w/b": {}}, []string{"/w/b"}},
		{"fifty due: a tenth, the longest waiting", fifty, []string{"/w/49", "/w/48", "/w/47", "/w/46", "/w/45"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := slowDue(tt.trees, now, slow); !slices.Equal(got, tt.want) {
				t.Errorf("slowDue = %v, want %v", got, tt.want)
			}
		})
	}
}
