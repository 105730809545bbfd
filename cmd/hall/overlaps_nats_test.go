package main

import (
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// TestNATSOverlapAcrossHosts: two Halls on one NATS store stand for two
// hosts; a session on each, in its own host's worktree of one repository,
// changed src/a.go. Both Halls find the path overlap (the hooks' observed
// files), with no verdict of git's: neither Hall's git sees the other
// host's worktree (nor, here, its own: the folders are not on this
// machine), so the overlap says basis paths, merge unknown, and why on
// each side. B's stream subscriber sees it open.
func TestNATSOverlapAcrossHosts(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	a, b := natsHall(t, srv.URL()), natsHall(t, srv.URL())
	fb := streamtest.Follow(t, streamURL(b, ""), "")
	fb.Until(t, "B's connect snapshot", func(stream.Change) bool { return true })

	const brain = "/srv/shop"
	onA := beatOf("claude-a", brain, "/hosta/shop-wt1")
	onA.Tool, onA.Touched = "Edit", []string{"/hosta/shop-wt1/src/a.go"}
	onB := beatOf("claude-b", brain, "/hostb/shop-wt2")
	onB.Tool, onB.Touched = "Edit", []string{"/hostb/shop-wt2/src/a.go", "/hostb/shop-wt2/src/b.go"}
	beatHall(t, a.URL(), onA)
	beatHall(t, b.URL(), onB)

	fb.Until(t, "the overlap to open at B's subscriber", func(c stream.Change) bool { return len(c.OverlapsOpened) == 1 })
	for _, m := range []*Main{a, b} {
		var o contract.Overlap
		// Listed first with a side not_scanned, until the scanner has
		// looked for each worktree.
		eventually.True(t, natsWait, "the overlap listed, both worktrees looked for, at "+m.URL(), func() bool {
			r := contractNow(t, m.URL()+"/api/presences")
			if len(r.Overlaps) == 1 {
				o = r.Overlaps[0]
			}
			return len(r.Overlaps) == 1 && r.OverlapsTotal == 1 && o.A.Git != "not_scanned" && o.B.Git != "not_scanned"
		})
		if o.Verdict != contract.VerdictOverlap || o.Merge != contract.MergeUnknown || o.Basis != contract.BasisPaths ||
			o.A.Git != "worktree_not_here" || o.B.Git != "worktree_not_here" {
			t.Errorf("at %s: %+v, want verdict overlap, merge unknown, basis paths, worktree_not_here on both sides", m.URL(), o)
		}
		if len(o.Files) != 1 || o.Files[0].Path != "src/a.go" || o.FilesTotal != 1 {
			t.Errorf("at %s: files %+v, want src/a.go only", m.URL(), o.Files)
		}
	}
}
