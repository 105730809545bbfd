package contract

import (
	"strings"
	"testing"
)

// TestOverlapLineSaysWhatGitSaid: the line's last clause is git's
// answer as it stands: a conflict predicted, a clean merge, no answer
// yet (a side not scanned), or no answer possible here (a side git
// cannot see) — never one said for another.
func TestOverlapLineSaysWhatGitSaid(t *testing.T) {
	side := func(id, git string) OverlapSide {
		return OverlapSide{PresenceID: id, AgentID: "agent-" + id, Worktree: "/repo/wt-" + id, Git: git}
	}
	far := func(id string) OverlapSide {
		s := side(id, GitRecord)
		s.Host = "bob-laptop"
		return s
	}
	files := []OverlapFile{{Path: "a.go"}}
	cases := []struct {
		name string
		o    Overlap
		want string
	}{
		{"conflict predicted", Overlap{Verdict: VerdictConflict, Merge: MergeConflict, Basis: BasisGit, A: side("p1", GitOK), B: side("p2", GitOK), Files: files, Conflicts: []string{"a.go"}},
			"; git predicts the merge conflicts in a.go"},
		{"clean merge", Overlap{Verdict: VerdictOverlap, Merge: MergeClean, Basis: BasisGit, A: side("p1", GitOK), B: side("p2", GitOK), Files: files},
			"; git predicts a clean merge for now"},
		{"not predicted yet", Overlap{Verdict: VerdictOverlap, Merge: MergeUnknown, Basis: BasisGit, A: side("p1", GitOK), B: side("p2", GitOK), Files: files},
			"changed a.go"},
		{"a side not scanned yet", Overlap{Verdict: VerdictOverlap, Merge: MergeUnknown, Basis: BasisPaths, A: side("p1", GitOK), B: side("p2", GitNotScanned), Files: files},
			"; git has not answered for both worktrees yet: no merge prediction so far"},
		{"both not scanned yet", Overlap{Verdict: VerdictOverlap, Merge: MergeUnknown, Basis: BasisPaths, A: side("p1", GitNotScanned), B: side("p2", GitNotScanned), Files: files},
			"; git has not answered for both worktrees yet: no merge prediction so far"},
		{"another host's worktree", Overlap{Verdict: VerdictOverlap, Merge: MergeUnknown, Basis: BasisPaths, A: side("p1", GitNotScanned), B: side("p2", "worktree_not_here"), Files: files},
			"; git cannot see both worktrees here: no merge prediction"},
		{"git's answer from the record", Overlap{Verdict: VerdictOverlap, Merge: MergeUnknown, Basis: BasisPaths, A: side("p1", GitOK), B: side("p2", GitRecord), Files: files},
			"; git cannot see both worktrees here: no merge prediction"},
		{"across hosts, a conflict by the other host's git", Overlap{Verdict: VerdictConflict, Merge: MergeConflict, Basis: BasisGit, A: side("p1", GitOK), B: far("p2"), Files: files, Conflicts: []string{"a.go"}, Across: AcrossHost, MergeHost: "bob-laptop"},
			"agent-p2 on bob-laptop in /repo/wt-p2 changed a.go; git on bob-laptop predicts the merge conflicts in a.go"},
		{"across hosts, clean by this host's git", Overlap{Verdict: VerdictOverlap, Merge: MergeClean, Basis: BasisGit, A: side("p1", GitOK), B: far("p2"), Files: files, Across: AcrossHost, MergeHost: "ana-desk"},
			"; git on ana-desk predicts a clean merge for now"},
		{"across hosts, paths only", Overlap{Verdict: VerdictOverlap, Merge: MergeUnknown, Basis: BasisPaths, A: side("p1", GitOK), B: far("p2"), Files: files, Across: AcrossHost, MergeReason: MergeReasonPathsOnly},
			"agent-p2 on bob-laptop in /repo/wt-p2 changed a.go; no merge prediction: this Hall shares paths only (--share-changes=paths)"},
		{"across hosts, a base not pushed", Overlap{Verdict: VerdictOverlap, Merge: MergeUnknown, Basis: BasisPaths, A: side("p1", GitOK), B: far("p2"), Files: files, Across: AcrossHost, MergeReason: MergeReasonBaseNotHere},
			"; no merge prediction: the other side's base commit is neither among this repository's objects nor fetched from its remote (not pushed yet)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := OverlapLine("p1", c.o); !strings.HasSuffix(got, c.want) {
				t.Errorf("%q\nwant it to end %q", got, c.want)
			}
		})
	}
}

// TestOverlapShortNamesTheOtherHost: MCP's short line names the other
// side's host when it is on another.
func TestOverlapShortNamesTheOtherHost(t *testing.T) {
	o := Overlap{Verdict: VerdictConflict, Across: AcrossHost, FilesTotal: 1, Files: []OverlapFile{{Path: "src/cart.go"}},
		A: OverlapSide{PresenceID: "p1", AgentID: "claude-a", Worktree: "/home/ana/shop"},
		B: OverlapSide{PresenceID: "p2", AgentID: "claude-b", Worktree: "/home/bob/shop", Host: "bob-laptop"}}
	if got, want := OverlapShort("p1", o), "conflict: claude-b (p2) on bob-laptop in /home/bob/shop changed src/cart.go"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := OverlapShort("p2", o); !strings.HasPrefix(got, "conflict: claude-a (p1) in /home/ana/shop (another host) changed") {
		t.Errorf("from the far side: %q", got)
	}
}
