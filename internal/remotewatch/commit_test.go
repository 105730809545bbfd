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
	before := repoPrint(t, filepath.Join(w.work, ".git"))
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
	if after := repoPrint(t, filepath.Join(w.work, ".git")); after != before {
		t.Errorf("the person's repository changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}
