package remotewatch_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/remotewatch"
)

// A branch pushed while the agent edits the same lines is a conflict,
// one on other lines of the same file a clean merge, one of other files
// no side at all; a force-push, a deletion and a merge into main move the
// answer; the person's repository is byte-identical throughout.
func TestPushedBranchesAreSides(t *testing.T) {
	for name, url := range map[string]func(string) string{
		"path":    nil,
		"file://": func(r string) string { return "file://" + r },
	} {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			ctx := context.Background()
			w := newWorld(t, url)
			// The agent's uncommitted edit of line 3.
			gittest.WriteFile(t, filepath.Join(w.work, "src/cart.go"), lines(20, "mine", 3))
			before := gittest.GitDirPrint(t, filepath.Join(w.work, ".git"))

			w.push(t, "same-lines", "src/cart.go", lines(20, "theirs", 3), false)
			w.push(t, "other-lines", "src/cart.go", lines(20, "theirs", 15), false)
			w.push(t, "other-file", "README", "shop!\n", false)

			wa, _ := newWatcher(t, remotewatch.Config{})
			wa.Track([]string{w.work})
			wa.Look(ctx)

			rs := wa.Remotes()
			if len(rs) != 1 || rs[0].Err != "" || rs[0].Default != "main" {
				t.Fatalf("remotes: got %+v, want one, healthy, default main", rs)
			}
			if got := len(rs[0].Branches); got != 3 {
				t.Fatalf("active branches: got %d, want 3 (%+v)", got, rs[0].Branches)
			}
			ps := wa.Pushed(w.work)
			if got, want := branchNames(ps), []string{"other-lines", "same-lines"}; !slices.Equal(got, want) {
				t.Fatalf("pushed sides: got %v, want %v", got, want)
			}
			same, _ := find(ps, "same-lines")
			if !same.Predicted || !same.Conflict || !slices.Equal(same.Conflicts, []string{"src/cart.go"}) {
				t.Errorf("same lines: got %+v, want a predicted conflict on src/cart.go", same)
			}
			if same.Branch.Author != "hall" || same.Branch.Commit != gittest.Git(t, w.remote, "rev-parse", "refs/heads/same-lines") || same.Branch.CommittedMs == 0 {
				t.Errorf("same lines: branch %+v, want the tip, its author and time as git has them", same.Branch)
			}
			other, _ := find(ps, "other-lines")
			if !other.Predicted || other.Conflict {
				t.Errorf("other lines: got %+v, want a predicted clean merge", other)
			}
			// The store is a partial clone: other-file's README, which no
			// prediction needed, was never fetched.
			store := remotewatch.StoreDir(wa.Root(), rs[0].Identity)
			readme := gittest.Git(t, w.remote, "rev-parse", "refs/heads/other-file:README")
			if missing := gittest.Git(t, store, "rev-list", "--objects", "--missing=print", "--all"); !strings.Contains(missing, "?"+readme) {
				t.Errorf("the store holds other-file's README %s, want it left on the remote:\n%s", readme, missing)
			}
			if !slices.Equal(same.Files, []string{"src/cart.go"}) || same.FilesTotal != 1 {
				t.Errorf("files: got %v (%d), want src/cart.go", same.Files, same.FilesTotal)
			}

			// A force-push that leaves cart.go alone: no longer a side.
			w.push(t, "same-lines", "README", "forced\n", true)
			// A deleted branch: gone.
			gittest.Git(t, w.mate, "push", "-q", "origin", "--delete", "other-lines")
			// A branch merged into main: not active.
			gittest.Git(t, w.mate, "checkout", "-q", "main")
			gittest.Git(t, w.mate, "merge", "-q", "--ff-only", "origin/other-file")
			gittest.Git(t, w.mate, "push", "-q", "origin", "main")
			wa.Look(ctx)
			if got := wa.Pushed(w.work); len(got) != 0 {
				t.Errorf("after force-push, delete and merge: got %v, want no pushed side", branchNames(got))
			}
			rs = wa.Remotes()
			var names []string
			for _, b := range rs[0].Branches {
				names = append(names, b.Name)
			}
			if want := []string{"same-lines"}; !slices.Equal(names, want) {
				t.Errorf("active after: got %v, want %v (other-lines deleted, other-file merged)", names, want)
			}

			if after := gittest.GitDirPrint(t, filepath.Join(w.work, ".git")); after != before {
				t.Errorf("the person's repository changed:\nbefore\n%s\nafter\n%s", before, after)
			}
			if _, err := os.Stat(filepath.Join(w.work, ".git", "FETCH_HEAD")); err == nil {
				t.Error("FETCH_HEAD written into the person's repository")
			}
		})
	}
}

// An idle watch asks ls-remote once a look and fetches nothing.
func TestIdleWatchFetchesNothing(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	w := newWorld(t, nil)
	w.push(t, "feat", "src/cart.go", lines(20, "x", 1), false)
	wa, _ := newWatcher(t, remotewatch.Config{})
	wa.Track([]string{w.work})
	wa.Look(ctx)
	first := wa.Stats()
	wa.Look(ctx)
	wa.Look(ctx)
	got := wa.Stats()
	if got.Looks != first.Looks+2 || got.Fetches != first.Fetches {
		t.Errorf("two idle looks: got %+v after %+v, want two more looks and no fetch", got, first)
	}
	w.push(t, "feat", "src/cart.go", lines(20, "y", 1), true)
	wa.Look(ctx)
	if got2 := wa.Stats(); got2.Fetches != got.Fetches+1 {
		t.Errorf("a moved tip: got %d fetches, want %d", got2.Fetches, got.Fetches+1)
	}
}

// At most MaxBranches active branches, newest first, the rest counted;
// the worktree's own upstream branch is never a side.
func TestBoundAndOwnUpstream(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	w := newWorld(t, nil)
	for _, b := range []string{"b1", "b2", "b3", "b4"} {
		w.push(t, b, "src/cart.go", lines(20, b, 1), false)
	}
	// The person's worktree works on b4, its upstream.
	gittest.Git(t, w.work, "fetch", "-q")
	gittest.Git(t, w.work, "checkout", "-q", "-b", "b4", "--track", "origin/b4")
	gittest.WriteFile(t, filepath.Join(w.work, "src/cart.go"), lines(20, "mine", 1))
	wa, _ := newWatcher(t, remotewatch.Config{MaxBranches: 3})
	wa.Track([]string{w.work})
	wa.Look(ctx)
	rs := wa.Remotes()
	if len(rs) != 1 || len(rs[0].Branches) != 3 || rs[0].Omitted != 1 {
		t.Fatalf("bound: got %+v, want 3 branches and 1 omitted", rs)
	}
	got := branchNames(wa.Pushed(w.work))
	if slices.Contains(got, "b4") {
		t.Errorf("pushed sides: got %v, want the worktree's own upstream b4 left out", got)
	}
	if len(got) == 0 {
		t.Errorf("pushed sides: got none, want the other active branches")
	}
}

// A remote that cannot be reached says so, with backoff, and answers
// nothing pushed.
func TestUnreachableRemote(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	w := newWorld(t, nil)
	if err := os.RemoveAll(w.remote); err != nil {
		t.Fatal(err)
	}
	wa, _ := newWatcher(t, remotewatch.Config{})
	wa.Track([]string{w.work})
	wa.Look(ctx)
	rs := wa.Remotes()
	if len(rs) != 1 || rs[0].Err == "" || !rs[0].LastGood.IsZero() || rs[0].FailingSince.IsZero() {
		t.Fatalf("remotes: got %+v, want one failing, never good", rs)
	}
	if got := wa.Stats().Failures; got != 1 {
		t.Errorf("failures: got %d, want 1", got)
	}
}

// The default branch moving past a worktree's HEAD is a side too: its new
// tip against the worktree's uncommitted work.
func TestDefaultBranchMoving(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	w := newWorld(t, nil)
	gittest.WriteFile(t, filepath.Join(w.work, "src/cart.go"), lines(20, "mine", 3))
	wa, _ := newWatcher(t, remotewatch.Config{})
	wa.Track([]string{w.work})
	wa.Look(ctx)
	if got := wa.Pushed(w.work); len(got) != 0 {
		t.Fatalf("main where the worktree is: got %v, want no side", branchNames(got))
	}

	// A teammate pushes to main a change of the same line.
	gittest.Git(t, w.mate, "checkout", "-q", "main")
	gittest.WriteFile(t, filepath.Join(w.mate, "src/cart.go"), lines(20, "theirs", 3))
	gittest.CommitAll(t, w.mate, "main moves")
	gittest.Git(t, w.mate, "push", "-q", "origin", "main")
	tip := gittest.Git(t, w.mate, "rev-parse", "HEAD")
	wa.Look(ctx)
	ps := wa.Pushed(w.work)
	if len(ps) != 1 || !ps[0].Default || ps[0].Branch.Name != "main" || ps[0].Branch.Commit != tip || !ps[0].Predicted || !ps[0].Conflict ||
		!slices.Equal(ps[0].Files, []string{"src/cart.go"}) {
		t.Fatalf("main moved over the same line: got %+v, want main at %s, a predicted conflict in src/cart.go", ps, tip)
	}

	// The person pulls it in and edits another line: no side.
	gittest.Git(t, w.work, "checkout", "--", "src/cart.go")
	gittest.Git(t, w.work, "pull", "-q", "--ff-only")
	gittest.WriteFile(t, filepath.Join(w.work, "src/cart.go"), lines(20, "mine", 10))
	wa.Look(ctx)
	if got := wa.Pushed(w.work); len(got) != 0 {
		t.Errorf("after the pull: got %+v, want no side", got)
	}
}

// Run looks at a remote again at each interval (a fake clock moves it):
// a branch pushed between two looks is found at the next.
func TestRunLooksEachInterval(t *testing.T) {
	isolate(t)
	w := newWorld(t, nil)
	gittest.WriteFile(t, filepath.Join(w.work, "src/cart.go"), lines(20, "mine", 3))
	clock := clockwork.NewFakeClock()
	wa, _ := newWatcher(t, remotewatch.Config{Clock: clock, Interval: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = wa.Run(ctx)
	}()
	defer func() { cancel(); <-done }()
	wa.Track([]string{w.work})
	eventually.True(t, 30*time.Second, "the first look done", func() bool {
		rs := wa.Remotes()
		return len(rs) == 1 && !rs[0].LastGood.IsZero()
	})

	w.push(t, "feat", "src/cart.go", lines(20, "theirs", 3), false)
	if got := wa.Pushed(w.work); len(got) != 0 {
		t.Fatalf("before the next look: got %v, want nothing yet", branchNames(got))
	}
	eventually.True(t, 30*time.Second, "the pushed branch found at the next interval", func() bool {
		clock.Advance(time.Minute)
		return len(wa.Pushed(w.work)) == 1
	})
	if got := wa.Pushed(w.work)[0]; got.Branch.Name != "feat" || !got.Conflict {
		t.Errorf("got %+v, want feat, a conflict", got)
	}
}
