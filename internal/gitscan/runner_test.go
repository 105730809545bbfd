package gitscan_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
)

func TestNewRunnerFallbacks(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		path func(t *testing.T) string
		want gitscan.Code
	}{
		{"git missing", func(t *testing.T) string { return filepath.Join(t.TempDir(), "no-git-here") }, gitscan.GitMissing},
		{"git too old", func(t *testing.T) string {
			return fakeGit(t, `case " $* " in *" version "*) echo "git version 2.37.9"; exit 0;; esac`)
		}, gitscan.GitTooOld},
		{"not git at all", func(t *testing.T) string { return fakeGit(t, `exit 3`) }, gitscan.GitMissing},
		{"git new enough", func(t *testing.T) string { return "" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{Path: tt.path(t)})
			if got := gitscan.CodeOf(err); got != tt.want {
				t.Fatalf("code = %q, want %q (%v)", got, tt.want, err)
			}
			if err == nil {
				if v := r.Version(); v[0] < gitscan.MinVersion[0] || (v[0] == gitscan.MinVersion[0] && v[1] < gitscan.MinVersion[1]) {
					t.Errorf("version %v passed the check", v)
				}
			}
		})
	}
}

func TestChangesFallbacks(t *testing.T) {
	sc := newScratch(t)
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{})
	notRepo := t.TempDir()
	file := filepath.Join(t.TempDir(), "file")
	gittest.WriteFile(t, file, "x")
	for _, tc := range []struct {
		name, wt string
		want     gitscan.Code
	}{
		{"a worktree on another machine", "/no/such/worktree", gitscan.NotOnMachine},
		{"a file, not a directory", file, gitscan.NotOnMachine},
		{"a directory outside any repository", notRepo, gitscan.NotWorktree},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := g.Changes(ctx, tc.wt, gitscan.ChangesOptions{})
			if got := gitscan.CodeOf(err); got != tc.want {
				t.Fatalf("Changes: code %q, want %q (%v)", got, tc.want, err)
			}
			_, err = g.Snapshot(ctx, tc.wt, sc)
			if got := gitscan.CodeOf(err); got != tc.want {
				t.Fatalf("Snapshot: code %q, want %q (%v)", got, tc.want, err)
			}
		})
	}
}

func TestRunTimesOut(t *testing.T) {
	slow := fakeGit(t, `case " $* " in *" status "*) exec sleep 30;; esac`)
	g := newRunner(t, gitscan.RunnerConfig{Path: slow, Timeout: 200 * time.Millisecond})
	r := newRepo(t)
	a := r.worktree("a")
	start := time.Now()
	_, err := g.Changes(context.Background(), a, gitscan.ChangesOptions{})
	if got := gitscan.CodeOf(err); got != gitscan.Timeout {
		t.Fatalf("code = %q, want %q (%v)", got, gitscan.Timeout, err)
	}
	// Bounded work, not a measure of speed: the 30 s sleep was killed.
	if time.Since(start) > 20*time.Second {
		t.Fatalf("the timed-out git was not killed")
	}
}

func TestChangesListsWhatChanged(t *testing.T) {
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{})
	r := newRepo(t)
	a := r.worktree("a")
	gittest.WriteFile(t, filepath.Join(a, "committed.txt"), "c\n")
	gittest.Git(t, a, "add", "committed.txt")
	gittest.Git(t, a, "commit", "-q", "-m", "c")
	gittest.WriteFile(t, filepath.Join(a, "staged.txt"), "s\n")
	gittest.Git(t, a, "add", "staged.txt")
	gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{3: "unstaged"}))
	gittest.WriteFile(t, filepath.Join(a, "deep", "dir", "untracked.go"), "u\n")
	gittest.WriteFile(t, filepath.Join(a, "ignored.log"), "i\n")
	gittest.Git(t, a, "mv", "lib/a.go", "lib/moved.go")
	// The main worktree moves on: its commits are not a's changes.
	gittest.WriteFile(t, filepath.Join(r.main, "main-only.txt"), "m\n")
	gittest.Git(t, r.main, "add", "main-only.txt")
	gittest.Git(t, r.main, "commit", "-q", "-m", "main moves on")

	c, err := g.Changes(ctx, filepath.Join(a, "deep"), gitscan.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"committed.txt", "deep/dir/untracked.go", "f.txt", "lib/a.go", "lib/moved.go", "staged.txt"}
	if strings.Join(c.Files, " ") != strings.Join(want, " ") || c.Total != len(want) {
		t.Errorf("files = %v (total %d), want %v", c.Files, c.Total, want)
	}
	if c.Branch != "a" || c.Base != "refs/heads/main" || c.Root != a {
		t.Errorf("branch %q, base %q, root %q; want a, refs/heads/main, %s", c.Branch, c.Base, c.Root, a)
	}
	if c.CommonDir != filepath.Join(r.main, ".git") {
		t.Errorf("common dir %q, want %s", c.CommonDir, filepath.Join(r.main, ".git"))
	}

	// Bounded: MaxFiles lists the first, Total counts all.
	c, err = g.Changes(ctx, a, gitscan.ChangesOptions{MaxFiles: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 2 || c.Total != len(want) {
		t.Errorf("MaxFiles 2: listed %d of %d, want 2 of %d", len(c.Files), c.Total, len(want))
	}

	// The base overridden, and origin/HEAD preferred where set.
	gittest.Git(t, r.main, "update-ref", "refs/remotes/origin/trunk", "HEAD~1")
	gittest.Git(t, r.main, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
	// A runner keeps a worktree's default base for a while (a new
	// origin/HEAD shows within baseTTL): a new one asks.
	g = newRunner(t, gitscan.RunnerConfig{})
	c, err = g.Changes(ctx, a, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Base != "refs/remotes/origin/trunk" {
		t.Errorf("base with origin/HEAD set = %q, want refs/remotes/origin/trunk", c.Base)
	}
	c, err = g.Changes(ctx, a, gitscan.ChangesOptions{Base: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Base != "a" || c.MergeBase != c.Head {
		t.Errorf("base a: base %q, merge base %q, head %q", c.Base, c.MergeBase, c.Head)
	}
}

// TestChangesStates: each listed file carries how it differs, read from
// the same status and diff runs, with the real git: one case a file.
func TestChangesStates(t *testing.T) {
	ctx := context.Background()
	g := newRunner(t, gitscan.RunnerConfig{})
	r := newRepo(t)
	a := r.worktree("a")
	gittest.WriteFile(t, filepath.Join(a, "lib", "b.go"), "package lib\n")
	gittest.WriteFile(t, filepath.Join(a, "lib", "c.go"), "package lib\n")
	gittest.WriteFile(t, filepath.Join(a, "lib", "d.go"), "package lib\n")
	gittest.Git(t, a, "add", "-A")
	gittest.Git(t, a, "commit", "-q", "-m", "three files on the branch")
	gittest.WriteFile(t, filepath.Join(a, "lib", "c.go"), "package lib\n\n// more\n")         // committed, then modified
	gittest.WriteFile(t, filepath.Join(a, "f.txt"), lines(20, map[int]string{3: "unstaged"})) // modified
	gittest.WriteFile(t, filepath.Join(a, "staged.txt"), "s\n")
	gittest.Git(t, a, "add", "staged.txt") // staged, new
	gittest.WriteFile(t, filepath.Join(a, "both.txt"), "1\n")
	gittest.Git(t, a, "add", "both.txt")
	gittest.WriteFile(t, filepath.Join(a, "both.txt"), "2\n") // staged, then modified again
	gittest.WriteFile(t, filepath.Join(a, "new", "untracked.go"), "u\n")
	if err := os.Remove(filepath.Join(a, ".gitignore")); err != nil { // deleted, not staged
		t.Fatal(err)
	}
	gittest.Git(t, a, "rm", "-q", "lib/d.go")           // committed on the branch, then deleted and staged
	gittest.Git(t, a, "mv", "lib/a.go", "lib/moved.go") // --no-renames: a deletion and an addition

	c, err := g.Changes(ctx, a, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]gitscan.FileState{
		".gitignore":       gitscan.Modified,
		"both.txt":         gitscan.Staged | gitscan.Modified,
		"f.txt":            gitscan.Modified,
		"lib/a.go":         gitscan.Staged,
		"lib/b.go":         gitscan.Committed,
		"lib/c.go":         gitscan.Committed | gitscan.Modified,
		"lib/d.go":         gitscan.Committed | gitscan.Staged,
		"lib/moved.go":     gitscan.Staged,
		"new/untracked.go": gitscan.Untracked,
		"staged.txt":       gitscan.Staged,
	}
	if len(c.States) != len(c.Files) || len(c.Files) != len(want) || !c.Complete() {
		t.Fatalf("%d files, %d states, complete %v: %v %v; want %d files", len(c.Files), len(c.States), c.Complete(), c.Files, c.States, len(want))
	}
	for path, st := range want {
		got, ok := c.StateOf(path)
		if !ok || got != st {
			t.Errorf("%s: got %v (listed %v), want %v", path, got, ok, st)
		}
		if got.Uncommitted() != (st != gitscan.Committed) {
			t.Errorf("%s: uncommitted %v, want %v", path, got.Uncommitted(), st != gitscan.Committed)
		}
	}
	if st, ok := c.StateOf("lib/unchanged.go"); ok {
		t.Errorf("an unlisted path: got %v, want not listed", st)
	}

	// Bounded as Files are: the states of the files listed, no more.
	c, err = g.Changes(ctx, a, gitscan.ChangesOptions{MaxFiles: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 3 || len(c.States) != 3 || c.Total != len(want) || c.Complete() {
		t.Errorf("MaxFiles 3: %d files, %d states of %d, complete %v; want 3, 3 of %d, incomplete", len(c.Files), len(c.States), c.Total, c.Complete(), len(want))
	}
	if st, _ := c.StateOf("both.txt"); st != gitscan.Staged|gitscan.Modified {
		t.Errorf("MaxFiles 3: both.txt is %v, want staged+modified", st)
	}
}

// TestFingerprintSeesAnIndexRefresh holds the fingerprint the scenarios
// rely on to what it must catch: a plain git status, without
// GIT_OPTIONAL_LOCKS=0, rewrites an index whose stat data went stale; the
// runner's does not.
func TestFingerprintSeesAnIndexRefresh(t *testing.T) {
	sc := newScratch(t)
	g := newRunner(t, gitscan.RunnerConfig{})
	r := newRepo(t)
	a := r.worktree("a")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(a, "f.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	before := r.fingerprint(a)
	if _, err := g.Changes(context.Background(), a, gitscan.ChangesOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Snapshot(context.Background(), a, sc); err != nil {
		t.Fatal(err)
	}
	if r.fingerprint(a) != before {
		t.Fatal("the runner's status or snapshot changed the worktree or its index")
	}
	gittest.Git(t, a, "status", "--porcelain")
	if r.fingerprint(a) == before {
		t.Fatal("a plain git status refreshed the index and the fingerprint did not see it")
	}
}

func TestOutputIsBounded(t *testing.T) {
	g := newRunner(t, gitscan.RunnerConfig{MaxOutput: 500})
	r := newRepo(t)
	a := r.worktree("a")
	for i := range 50 {
		gittest.WriteFile(t, filepath.Join(a, "many", strings.Repeat("x", 10)+string(rune('a'+i%26))+string(rune('a'+i/26))), "x\n")
	}
	c, err := g.Changes(context.Background(), a, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Cut || len(c.Files) >= 50 {
		t.Fatalf("cut %v with %d files listed: want the output cut short", c.Cut, len(c.Files))
	}
	for _, f := range c.Files {
		if _, err := os.Stat(filepath.Join(a, f)); err != nil {
			t.Errorf("listed %q, a part of a path: %v", f, err)
		}
	}
}

// TestRunnerIgnoresAnInheritedRepository: a Hall started from a git hook
// inherits GIT_DIR and GIT_INDEX_FILE; the runner's git must still read
// the worktree it was pointed at, and never write that index.
func TestRunnerIgnoresAnInheritedRepository(t *testing.T) {
	sc := newScratch(t)
	other := newRepo(t)
	index := filepath.Join(other.main, ".git", "index")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	r := newRepo(t)
	a := r.worktree("a")
	t.Setenv("GIT_DIR", filepath.Join(other.main, ".git"))
	t.Setenv("GIT_INDEX_FILE", index)
	t.Setenv("GIT_WORK_TREE", other.main)
	g := newRunner(t, gitscan.RunnerConfig{})
	gittest.WriteFile(t, filepath.Join(a, "mine.go"), "package mine\n")
	c, err := g.Changes(context.Background(), a, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Root != a || strings.Join(c.Files, " ") != "mine.go" {
		t.Fatalf("root %s, files %v: want %s, [mine.go]", c.Root, c.Files, a)
	}
	if _, err := g.Snapshot(context.Background(), a, sc); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(index); string(after) != string(before) {
		t.Fatal("the inherited GIT_INDEX_FILE was written")
	}
}

// TestRunHoldsGitToOneThread: every git the runner starts reads the
// settings that keep it to one thread, whatever the repository's own
// config says; and the runner runs DefaultMaxProcs() at once unless told.
func TestRunHoldsGitToOneThread(t *testing.T) {
	r := newRepo(t)
	gittest.Git(t, r.main, "config", "core.preloadIndex", "true")
	gittest.Git(t, r.main, "config", "index.threads", "8")
	g := newRunner(t, gitscan.RunnerConfig{})
	for key, want := range map[string]string{"core.preloadIndex": "false", "index.threads": "1"} {
		out, err := g.Run(context.Background(), gitscan.Cmd{Dir: r.main, Args: []string{"config", "--get", key}})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out.Stdout)); got != want {
			t.Errorf("git config --get %s under the runner = %q, want %q", key, got, want)
		}
	}
	if g.MaxProcs() != gitscan.DefaultMaxProcs() || gitscan.DefaultMaxProcs() != max(1, runtime.NumCPU()/2) {
		t.Errorf("MaxProcs %d, DefaultMaxProcs %d on %d cores: want half the cores, one at least", g.MaxProcs(), gitscan.DefaultMaxProcs(), runtime.NumCPU())
	}
	if n := newRunner(t, gitscan.RunnerConfig{MaxProcs: 3}).MaxProcs(); n != 3 {
		t.Errorf("MaxProcs told 3: %d", n)
	}
}
