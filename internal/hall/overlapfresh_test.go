package hall_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// TestOverlapSeenBeforeTheNextScan: two worktrees of one clone, scanned
// by the real scanner while nothing had changed; then an agent in each
// changes src/cart.go and the hooks see it, after that scan. The overlap
// is listed at once on the observed files, before git's next scan (an
// hour away here, two seconds at most in a Hall), as it is for another
// host's side whose record carries an older scan (docs/worktrees.md,
// several machines). A touch seen before the scan that git does not list
// (reverted since) counts for nothing, as before.
//
// The local side's git answer carried no scan time, so every observed
// file git did not list yet was dropped: the overlap waited for the
// scan, up to the scanner's interval after the second side's beat
// (hallbench's machines scenario: ~1 s at its p50 on the Hall that took
// the beat).
func TestOverlapSeenBeforeTheNextScan(t *testing.T) {
	s := newShop(t)
	sc := quietScanner(t)
	wts := []string{s.main, s.wt2}
	sc.Track(wts)
	var scanned time.Time
	eventually.True(t, 30*time.Second, "both worktrees scanned", func() bool {
		scanned = time.Time{}
		for _, wt := range wts {
			res, ok := sc.Result(wt)
			if !ok || res.Err != nil {
				return false
			}
			if res.ScannedAt.After(scanned) {
				scanned = res.ScannedAt
			}
		}
		return true
	})
	for _, wt := range wts {
		gittest.WriteFile(t, filepath.Join(wt, "src", "cart.go"), "package src\n\n// "+filepath.Base(wt)+"\n")
	}
	f := &hall.OverlapFinder{Git: sc}
	for _, tc := range []struct {
		name    string
		touched time.Time
		want    int
	}{
		{"touched after the scan", scanned.Add(time.Millisecond), 1},
		{"touched before the scan, not listed", scanned.Add(-time.Second), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var live []presence.Record
			for i, wt := range wts {
				r := presencetest.Rec([]string{"ana", "bob"}[i], s.main, presencetest.Worktree(wt))
				r.Touched = []presence.Touch{{Path: filepath.Join(wt, "src", "cart.go"), AtMs: tc.touched.UnixMilli()}}
				live = append(live, r)
			}
			got, _ := f.Overlaps(t.Context(), live)
			if len(got) != tc.want {
				t.Fatalf("got %d overlaps %+v, want %d", len(got), got, tc.want)
			}
			if tc.want == 0 {
				return
			}
			o := got[0]
			if len(o.Files) != 1 || o.Files[0].Path != "src/cart.go" || !slices.Equal(o.Files[0].A, []string{"observed"}) || !slices.Equal(o.Files[0].B, []string{"observed"}) {
				t.Errorf("files %+v, want src/cart.go observed on both sides (git has not scanned it yet)", o.Files)
			}
			if o.A.Git != "" || o.B.Git != "" {
				t.Errorf("sides' git %q / %q, want git's answer on both (empty)", o.A.Git, o.B.Git)
			}
		})
	}
}
