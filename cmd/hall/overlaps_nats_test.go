package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
	"github.com/hall-dev/hall/internal/presence"
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

// TestNATSOverlapGitFromTheRecord: two sessions in two real worktrees of
// one repository, on two Halls sharing a NATS store, changed
// src/checkout/cart.go differently; no hook observed a file. While one
// Hall's git sees both worktrees, it predicts the merge: conflict. Then
// A's worktree is no longer on this machine (moved away, as if on
// another host) and a second Hall starts: its git cannot see A's
// worktree, yet it finds the path overlap from the git answer A's
// record carries (changed, written by the Hall that took A's beats),
// says so on A's side (git "record"), and gives no merge (unknown,
// basis paths).
func TestNATSOverlapGitFromTheRecord(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	repo := hooktest.GitRepo(t)
	wt1 := filepath.Join(filepath.Dir(repo.Main), "shop-wt1")
	gittest.Git(t, repo.Main, "worktree", "add", "-q", wt1, "-b", "wt1")
	gittest.WriteFile(t, filepath.Join(wt1, "src", "checkout", "cart.go"), "package checkout\n\n// A's total\n")
	gittest.WriteFile(t, filepath.Join(repo.Worktree, "src", "checkout", "cart.go"), "package checkout\n\n// B's total\n")
	const brain, cart = "/srv/shop", "src/checkout/cart.go"
	onA, onB := beatOf("claude-a", brain, wt1), beatOf("claude-b", brain, repo.Worktree)
	idA, idB := presence.ID("claude-a", brain), presence.ID("claude-b", brain)

	// One Hall sees both worktrees: git's verdict, and both records
	// carry git's list (the beats after a scan).
	hallA := MustOpenHall(t, Config{Store: srv.URL(), TTL: time.Minute, GitInterval: 10 * time.Millisecond})
	setA := schematest.FromHall(t, hallA.URL(), schematest.Strict)
	var o contract.Overlap
	eventually.True(t, natsWait, "a conflict at the Hall that sees both, both records carrying git's list", func() bool {
		beatHall(t, hallA.URL(), onA)
		beatHall(t, hallA.URL(), onB)
		r := rosterOverlaps(t, setA, hallA)
		carried := 0
		for _, p := range r.Presences {
			if slices.Equal(p.Changed, []string{cart}) && p.ChangedTotal == 1 && p.ChangedAtMs > 0 {
				carried++
			}
		}
		if len(r.Overlaps) == 1 {
			o = r.Overlaps[0]
		}
		return carried == 2 && len(r.Overlaps) == 1 && o.Verdict == contract.VerdictConflict
	})
	if o.Merge != contract.MergeConflict || o.Basis != contract.BasisGit || o.A.Git != contract.GitOK || o.B.Git != contract.GitOK {
		t.Errorf("at the Hall that sees both: %+v, want merge conflict, basis git, git ok on both sides", o)
	}

	// A's worktree leaves this machine; a Hall starting now never saw it.
	if err := os.Rename(wt1, wt1+".elsewhere"); err != nil {
		t.Fatal(err)
	}
	hallB := MustOpenHall(t, Config{Store: srv.URL(), TTL: time.Minute, GitInterval: 10 * time.Millisecond})
	setB := schematest.FromHall(t, hallB.URL(), schematest.Strict)
	eventually.True(t, natsWait, "the overlap at the Hall that cannot see A's worktree", func() bool {
		beatHall(t, hallB.URL(), onB)
		r := rosterOverlaps(t, setB, hallB)
		if len(r.Overlaps) != 1 {
			return false
		}
		o = r.Overlaps[0]
		return o.A.Git != "not_scanned" && o.B.Git != "not_scanned"
	})
	sides := map[string]contract.OverlapSide{o.A.PresenceID: o.A, o.B.PresenceID: o.B}
	if sides[idA].Git != contract.GitRecord || sides[idB].Git != contract.GitOK || sides[idB].Branch != "wt2" {
		t.Errorf("sides %+v, want A's git record (its worktree not here), B's ok on wt2", sides)
	}
	if o.Verdict != contract.VerdictOverlap || o.Merge != contract.MergeUnknown || o.Basis != contract.BasisPaths || len(o.Conflicts) != 0 {
		t.Errorf("got verdict %s merge %s basis %s conflicts %v; want overlap, unknown, paths, none: no git here sees both", o.Verdict, o.Merge, o.Basis, o.Conflicts)
	}
	if len(o.Files) != 1 || o.Files[0].Path != cart || o.FilesTotal != 1 ||
		!slices.Equal(o.Files[0].A, []string{"git"}) || !slices.Equal(o.Files[0].B, []string{"git"}) {
		t.Errorf("files %+v, want %s shown by git on both sides", o.Files, cart)
	}
	var north contract.NorthResponse
	if err := json.Unmarshal(getChecked(t, setB, hallB.URL(), "/api/north?presence_id="+idA, "north"), &north); err != nil {
		t.Fatal(err)
	}
	if len(north.Overlaps) != 1 || north.OverlapsTotal != 1 || north.Overlaps[0].Partner(idA).Git != contract.GitOK {
		t.Errorf("north of A at the far Hall: %+v", north)
	}
}
