package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
)

// TestOverlapAcrossHostsBaseFetched: bob committed notes.txt, pushed it
// to the team's remote as a branch of its own, and edits line 5 of
// src/checkout/cart.go uncommitted, as ana does. Ana's clone never
// fetched bob's HEAD; alpha, watching ana's remote, fetches that commit
// into its own store of the remote (<registry-root>/remotes) and predicts
// the conflict with its git, which bravo reads. Ana's clone is byte for
// byte as it was (no ref, no FETCH_HEAD, no object of bob's).
//
// Before, alpha looked in ana's objects only: base_not_here.
func TestOverlapAcrossHostsBaseFetched(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	ana, bob := teamClones(t)
	gittest.WriteFile(t, filepath.Join(bob, "notes.txt"), "bob's notes\n")
	gittest.Git(t, bob, "add", "notes.txt")
	gittest.Git(t, bob, "commit", "-q", "-m", "bob's notes")
	gittest.Git(t, bob, "push", "-q", "origin", "HEAD:refs/heads/bob-notes")
	gittest.WriteFile(t, filepath.Join(ana, "src", "checkout", "cart.go"), cart(map[int]string{5: "// ana's line 5"}))
	gittest.WriteFile(t, filepath.Join(bob, "src", "checkout", "cart.go"), cart(map[int]string{5: "// bob's line 5"}))
	anaBefore := cloneFingerprint(t, ana)
	alphaRoot := t.TempDir()
	alpha := MustOpenHall(t, Config{Store: srv.URL(), TTL: time.Minute, GitInterval: 10 * time.Millisecond, HostName: "alpha", ShareChanges: "content",
		RegistryRoot: alphaRoot, RemoteInterval: time.Hour, RemoteActiveDays: 14, RemoteMaxBranches: 200})
	bravo := hostHall(t, srv.URL(), "bravo", "content")
	beats := func() {
		beatHall(t, alpha.URL(), editBeat("claude-ana", ana))
		beatHall(t, bravo.URL(), editBeat("claude-bob", bob))
	}
	for _, m := range []*Main{alpha, bravo} {
		o := overlapAt(t, m, beats, "a conflict predicted on a fetched base", func(o contract.Overlap) bool {
			return o.Merge != contract.MergeUnknown || o.MergeReason == contract.MergeReasonBaseNotHere
		})
		if o.Merge != contract.MergeConflict || o.MergeHost != "alpha" || o.Across != contract.AcrossHost {
			t.Errorf("at %s: merge %q reason %q by %q across %q; want a conflict predicted by git on alpha", m.Config.HostName, o.Merge, o.MergeReason, o.MergeHost, o.Across)
		}
	}
	if stores, _ := os.ReadDir(filepath.Join(alphaRoot, remotesDir)); len(stores) == 0 {
		t.Error("alpha keeps no store of the remote")
	}
	if cloneFingerprint(t, ana) != anaBefore {
		t.Error("ana's clone changed under the Halls")
	}
}
