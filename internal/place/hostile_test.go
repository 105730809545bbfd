package place

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/fifotest"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/presence"
)

// hangBound is how long a lookup may take before the test calls it hung: a
// failure detector for the old plain open (which waited for ever), never a
// measure of speed.
const hangBound = 10 * time.Second

// locateWithin runs Locate(dir) and fails the test if it has not answered
// within hangBound.
func locateWithin(t *testing.T, dir string) Repo {
	t.Helper()
	got := make(chan Repo, 1)
	go func() { got <- Locate(dir) }()
	select {
	case r := <-got:
		return r
	case <-time.After(hangBound):
		t.Fatalf("Locate(%s) still reading after %s: it opened a file that blocks", dir, hangBound)
		return Repo{}
	}
}

// heldPipe is a pipe whose write end stays open for the test: a read of
// its read end through /proc/self/fd waits for ever, as a hook's stdin
// does while the agent holds it.
func heldPipe(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return "/proc/self/fd/" + strconv.Itoa(int(r.Fd()))
}

// TestLocateHostileGitFiles puts a FIFO, a symlink to a FIFO, a symlink to
// a held pipe (/proc/self/fd/N, as /proc/self/fd/0 is a hook's stdin), a
// device and an oversized file at every git file Locate reads or looks
// at (.git, a worktree's gitdir file and its HEAD, commondir, a .git
// folder's HEAD): Locate answers, and answers as if the file were absent
// or broken.
func TestLocateHostileGitFiles(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fifo := func(p string) {
		fifotest.Make(t, p)
	}
	link := func(target string) func(string) {
		return func(p string) {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	aside := filepath.Join(root, "aside-fifo")
	fifo(aside)
	variants := map[string]func(p string){
		"fifo":            fifo,
		"link to fifo":    link(aside),
		"link to pipe fd": func(p string) { link(heldPipe(t))(p) },
		"device":          link("/dev/zero"),
		"oversized": func(p string) {
			if err := os.WriteFile(p, []byte(strings.Repeat("x", maxGitFile+1)), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	}
	// Each layout builds a repository in dir with its hostile file made by
	// bad, and says what Locate answers then.
	layouts := []struct {
		file  string
		build func(dir string, bad func(string)) Repo
	}{
		{".git folder's HEAD", func(dir string, bad func(string)) Repo {
			mkdir(t, filepath.Join(dir, ".git"))
			bad(filepath.Join(dir, ".git", "HEAD"))
			return Repo{} // not a git directory
		}},
		{".git folder's commondir", func(dir string, bad func(string)) Repo {
			mkdir(t, filepath.Join(dir, ".git"))
			gittest.WriteFile(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
			bad(filepath.Join(dir, ".git", "commondir"))
			return Repo{Top: dir, Main: dir} // commondir unread: the folder is its own
		}},
		{".git file", func(dir string, bad func(string)) Repo {
			bad(filepath.Join(dir, ".git"))
			return Repo{} // neither folder nor gitdir file: the walk goes on up, outside git
		}},
		{"gitdir's HEAD", func(dir string, bad func(string)) Repo {
			gd := mkdir(t, filepath.Join(dir, "gd"))
			gittest.WriteFile(t, filepath.Join(dir, ".git"), "gitdir: gd\n")
			bad(filepath.Join(gd, "HEAD"))
			return Repo{}
		}},
		{"gitdir's commondir", func(dir string, bad func(string)) Repo {
			gd := mkdir(t, filepath.Join(dir, "gd"))
			gittest.WriteFile(t, filepath.Join(dir, ".git"), "gitdir: gd\n")
			gittest.WriteFile(t, filepath.Join(gd, "HEAD"), "ref: refs/heads/main\n")
			bad(filepath.Join(gd, "commondir"))
			return Repo{Top: dir, Main: dir}
		}},
	}
	// git's own link HEAD (to refs/) still makes a git directory.
	legacy := mkdir(t, filepath.Join(root, "legacy", ".git"))
	if err := os.Symlink("refs/heads/main", filepath.Join(legacy, "HEAD")); err != nil {
		t.Fatal(err)
	}
	if got, want := locateWithin(t, filepath.Dir(legacy)), (Repo{Top: filepath.Dir(legacy), Main: filepath.Dir(legacy)}); got != want {
		t.Errorf("HEAD a symlink to refs/heads/main: Locate = %+v, want %+v", got, want)
	}
	n := 0
	for _, l := range layouts {
		for name, bad := range variants {
			if strings.HasSuffix(l.file, "HEAD") && name == "oversized" {
				continue // HEAD is looked at, never read: its size is git's business
			}
			n++
			dir := mkdir(t, filepath.Join(root, strconv.Itoa(n)))
			want := l.build(dir, bad)
			if got := locateWithin(t, mkdir(t, filepath.Join(dir, "src"))); got != want {
				t.Errorf("%s is a %s: Locate = %+v, want %+v", l.file, name, got, want)
			}
		}
	}
}

// TestCompleteLongCallerRootCostsNothing: a caller root past the domain's
// limit is not walked (the walk costs a join and a stat a level: 200 KB of
// "/a" took 42 s of a core). Counted in allocations, not time.
func TestCompleteLongCallerRootCostsNothing(t *testing.T) {
	long := strings.Repeat("/a", 100_000)
	var got Place
	allocs := testing.AllocsPerRun(3, func() {
		got = Place{CallerRoot: long}.Complete(context.Background())
	})
	if allocs > 2 {
		t.Errorf("Complete of a %d-byte caller root: %v allocations, want at most 2 (no walk)", len(long), allocs)
	}
	if got.Worktree != "" || got.Brain != long || got.CallerRoot != long {
		t.Errorf("Complete of a long caller root: got worktree %q, brain %d bytes, want no worktree and the caller root as brain (for the beat's check to refuse)", got.Worktree, len(got.Brain))
	}
	if len(long) <= presence.MaxPathLen {
		t.Fatal("the test's caller root must be past the limit")
	}
}

// TestFinderBounds: a lookup that outlives its deadline answers "outside
// git" and keeps its slot until it ends; past the cap a lookup that gets
// no slot by its deadline answers "outside git" without starting; a freed
// slot serves again.
func TestFinderBounds(t *testing.T) {
	f := NewFinder(1, time.Hour)
	var calls atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	f.locate = func(dir string) Repo {
		calls.Add(1)
		started <- struct{}{}
		<-release
		return Repo{Top: dir, Main: dir}
	}
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan Repo, 1)
	go func() { first <- f.Locate(ctx, "/hung") }()
	<-started
	cancel()
	if got := <-first; got != (Repo{}) {
		t.Errorf("a lookup past its deadline: got %+v, want outside git", got)
	}
	// Past the cap a lookup waits for a slot until its deadline (here the
	// caller's, ended quickly: its length is not what is tested).
	short, stop := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer stop()
	if got := f.Locate(short, "/next"); got != (Repo{}) || calls.Load() != 1 {
		t.Errorf("a lookup past the cap: got %+v after %d lookups started, want outside git and 1 started", got, calls.Load())
	}
	close(release)
	f.locate = func(dir string) Repo { return Repo{Top: dir, Main: dir} }
	eventually.True(t, hangBound, "the slot freed once the hung lookup ended", func() bool {
		return f.Locate(context.Background(), "/s") == Repo{Top: "/s", Main: "/s"}
	})
	none, stopNone := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer stopNone()
	if got := NewFinder(0, time.Hour).Locate(none, "/s"); got != (Repo{}) {
		t.Errorf("a finder with no slots: got %+v, want outside git", got)
	}
}
