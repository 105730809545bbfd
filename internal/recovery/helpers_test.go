package recovery_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/recovery"
)

// git runs the real git in dir with a fixed identity.
func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	full := append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgSign=false"}, args...)
	out, err := exec.Command("git", full...).CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// sh runs a shell command line in dir.
func sh(tb testing.TB, dir, line string) {
	tb.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("%s: %v\n%s", line, err, out)
	}
}

func write(tb testing.TB, name, content string, perm fs.FileMode) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), perm); err != nil {
		tb.Fatal(err)
	}
	if err := os.Chmod(name, perm); err != nil { // past the umask
		tb.Fatal(err)
	}
}

// newRepo is a repository with a commit on main (a file, an executable,
// a symlink, a directory of two files, an ignore rule), a branch "other"
// that changes a.txt, and a stash; linked adds a worktree on branch wt
// and returns it as the worktree to work in.
func newRepo(tb testing.TB, linked bool) (main, wt string) {
	tb.Helper()
	dir := tb.TempDir()
	main = filepath.Join(dir, "main")
	if out, err := exec.Command("git", "init", "-q", "-b", "main", main).CombinedOutput(); err != nil {
		tb.Fatalf("git init: %v\n%s", err, out)
	}
	write(tb, filepath.Join(main, "a.txt"), "a one\na two\n", 0o644)
	write(tb, filepath.Join(main, "b.txt"), "b one\n", 0o644)
	write(tb, filepath.Join(main, "run.sh"), "#!/bin/sh\necho run\n", 0o755)
	write(tb, filepath.Join(main, "dir", "x.txt"), "x\n", 0o644)
	write(tb, filepath.Join(main, "dir", "y.txt"), "y\n", 0o644)
	write(tb, filepath.Join(main, ".gitignore"), "*.log\n", 0o644)
	if err := os.Symlink("a.txt", filepath.Join(main, "link")); err != nil {
		tb.Fatal(err)
	}
	git(tb, main, "add", "-A")
	git(tb, main, "commit", "-q", "-m", "init")
	git(tb, main, "branch", "other")
	git(tb, main, "checkout", "-q", "other")
	write(tb, filepath.Join(main, "a.txt"), "a on other\n", 0o644)
	git(tb, main, "commit", "-q", "-am", "other")
	git(tb, main, "checkout", "-q", "main")
	write(tb, filepath.Join(main, "b.txt"), "stashed\n", 0o644)
	git(tb, main, "stash", "-q")
	if !linked {
		return main, main
	}
	wt = filepath.Join(dir, "wt")
	git(tb, main, "worktree", "add", "-q", "-b", "wt", wt, "main")
	return main, wt
}

// fingerprint is every file under the repository's git directory (its
// worktrees' admin directories included): path, mode, modification time
// and content hash, and the refs and stash as git lists them. An
// object's own modification time is left out (see below).
func fingerprint(tb testing.TB, main string) string {
	tb.Helper()
	var lines []string
	gitDir := filepath.Join(main, ".git")
	err := filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(gitDir, p)
		line := fmt.Sprintf("%s %v", rel, info.Mode())
		// git freshens (sets the modification time of) an object it was
		// asked to write and found among the alternates, the only mark a
		// snapshot leaves: every other time, each directory's and the
		// index's included, must stay.
		if !info.Mode().IsRegular() || !strings.HasPrefix(rel, "objects"+string(filepath.Separator)) {
			line += fmt.Sprintf(" %d", info.ModTime().UnixNano())
		}
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(lines)
	refs := git(tb, main, "for-each-ref")
	stash := git(tb, main, "stash", "list")
	return strings.Join(lines, "\n") + "\n--refs\n" + refs + "--stash\n" + stash
}

// state is what a test compares of a file: content (or link target),
// mode, whether it is a link; "absent" when not there.
func state(tb testing.TB, name string) string {
	tb.Helper()
	info, err := os.Lstat(name)
	if os.IsNotExist(err) {
		return "absent"
	}
	if err != nil {
		tb.Fatal(err)
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		t, err := os.Readlink(name)
		if err != nil {
			tb.Fatal(err)
		}
		return "link -> " + t
	}
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return fmt.Sprintf("%v %q", info.Mode(), b)
}

func newRunner(tb testing.TB) *gitscan.Runner {
	tb.Helper()
	r, err := gitscan.NewRunner(context.Background(), gitscan.RunnerConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// clock is a settable clock for the store.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func openStore(tb testing.TB, lim recovery.Limits, now func() time.Time) *recovery.Store {
	tb.Helper()
	s, err := recovery.Open(context.Background(), filepath.Join(tb.TempDir(), "recovery"), newRunner(tb), lim, now)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
