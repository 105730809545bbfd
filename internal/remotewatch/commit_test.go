package remotewatch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/remotewatch"
)

// TestCommitsFindOrFetch: a commit the teammate has not pushed is not
// found (nor fetched again within the retry, once pushed); with the
// retry passed it is fetched into the store of the person's remote, the
// one the watch keeps. The person's clone never changes and never gets
// the commit.
func TestCommitsFindOrFetch(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	w := newWorld(t, nil)
	gittest.Git(t, w.mate, "checkout", "-q", "-b", "wip")
	gittest.WriteFile(t, filepath.Join(w.mate, "src/cart.go"), lines(20, "theirs", 3))
	gittest.CommitAll(t, w.mate, "wip")
	head := strings.TrimSpace(gittest.Git(t, w.mate, "rev-parse", "HEAD"))
	before := gittest.GitDirPrint(t, filepath.Join(w.work, ".git"))
	run, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(gittest.TempDir(t), "remotes")
	patient, eager := remotewatch.NewCommits(run, root, time.Hour), remotewatch.NewCommits(run, root, time.Nanosecond)

	if _, ok, err := patient.Find(ctx, w.work, head); ok || err != nil {
		t.Fatalf("not pushed: got %v %v, want not found", ok, err)
	}
	gittest.Git(t, w.mate, "push", "-q", "origin", "wip")
	if _, ok, err := patient.Find(ctx, w.work, head); ok || err != nil {
		t.Fatalf("pushed, within the retry: got %v %v, want not fetched again", ok, err)
	}
	st, ok, err := eager.Find(ctx, w.work, head)
	if !ok || err != nil {
		t.Fatalf("pushed: got %v %v, want fetched", ok, err)
	}
	if dir, _ := os.ReadDir(root); len(dir) != 1 || filepath.Join(root, dir[0].Name()) != st.Dir {
		t.Errorf("store %s: want the one store under %s", st.Dir, root)
	}
	if out := gittest.Git(t, st.Dir, "for-each-ref"); strings.Contains(out, head) {
		t.Errorf("the store names the commit in a ref: %s", out)
	}
	if _, ok, err := patient.Find(ctx, w.work, head); !ok || err != nil {
		t.Errorf("in the store: got %v %v, want found", ok, err)
	}
	if _, _, err := patient.Find(ctx, w.work, "--upload-pack=x"); err == nil {
		t.Error("an id that is no object id was taken")
	}
	if after := gittest.GitDirPrint(t, filepath.Join(w.work, ".git")); after != before {
		t.Errorf("the person's repository changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// TestCommitsFallBackToBranches: a server that hands out no commit by its
// id (protocol v0, no uploadpack.allow*SHA1InWant) refuses the fetch of a
// commit that is no branch's tip; Commits then fetches the remote's
// branches, as the watch does, and finds it there.
func TestCommitsFallBackToBranches(t *testing.T) {
	global := isolate(t)
	if err := os.WriteFile(global, []byte("[protocol]\n\tversion = 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w := newWorld(t, nil)
	gittest.Git(t, w.remote, "config", "uploadpack.allowAnySHA1InWant", "false")
	gittest.Git(t, w.mate, "checkout", "-q", "-b", "wip")
	gittest.WriteFile(t, filepath.Join(w.mate, "src/cart.go"), lines(20, "theirs", 3))
	gittest.CommitAll(t, w.mate, "wip one")
	gittest.WriteFile(t, filepath.Join(w.mate, "README"), "shop, again\n")
	gittest.CommitAll(t, w.mate, "wip two")
	gittest.Git(t, w.mate, "push", "-q", "origin", "wip")
	inner := strings.TrimSpace(gittest.Git(t, w.mate, "rev-parse", "HEAD~1"))
	run, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	st, ok, err := remotewatch.NewCommits(run, filepath.Join(gittest.TempDir(t), "remotes"), 0).Find(ctx, w.work, inner)
	if !ok || err != nil {
		t.Fatalf("got %v %v, want found", ok, err)
	}
	if out := gittest.Git(t, st.Dir, "for-each-ref", "--format=%(refname)"); !strings.Contains(out, "refs/heads/wip") {
		t.Errorf("the store's branches %q: want wip fetched", out)
	}
}
