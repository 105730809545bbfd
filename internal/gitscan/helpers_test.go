package gitscan_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
)

// repo is a real git repository in a temp directory: its main worktree
// (the brain) on branch main, with a stash, an ignored file and one
// commit of a 20-line file and a small package.
type repo struct {
	tb   testing.TB
	dir  string
	main string
}

func newRepo(tb testing.TB) *repo {
	tb.Helper()
	dir := tb.TempDir()
	r := &repo{tb: tb, dir: dir, main: filepath.Join(dir, "main")}
	gittest.Init(tb, r.main)
	gittest.WriteFile(tb, filepath.Join(r.main, "f.txt"), lines(20, nil))
	gittest.WriteFile(tb, filepath.Join(r.main, "lib", "a.go"), "package lib\n\nfunc A() int { return 1 }\n")
	gittest.WriteFile(tb, filepath.Join(r.main, ".gitignore"), "*.log\n")
	gittest.Git(tb, r.main, "add", "-A")
	gittest.Git(tb, r.main, "commit", "-q", "-m", "init")
	// A stash the scans must leave as it is.
	gittest.WriteFile(tb, filepath.Join(r.main, "f.txt"), lines(20, map[int]string{1: "stashed"}))
	gittest.Git(tb, r.main, "stash", "-q")
	return r
}

// worktree adds a worktree on a new branch from main.
func (r *repo) worktree(name string) string {
	r.tb.Helper()
	p := filepath.Join(r.dir, name)
	gittest.Worktree(r.tb, r.main, p, name, "main")
	return p
}

// lines is a file of n numbered lines, some replaced (by line number).
func lines(n int, replace map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := replace[i]; ok {
			fmt.Fprintln(&b, s)
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// fingerprint hashes what a scan must never change: every file of the
// worktrees (content and mode) and every file of the repository's git
// directory but its object store (index, refs, stash, logs, HEADs,
// config), with the indexes' modification times, so even a rewrite of an
// index with the same bytes shows. New loose objects are allowed.
func (r *repo) fingerprint(worktrees ...string) string {
	r.tb.Helper()
	h := sha256.New()
	walk := func(root string, skip func(rel string, d fs.DirEntry) bool) {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if skip(rel, d) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00%s\x00%v\x00", root, rel, info.Mode())
			if d.Type().IsRegular() {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				h.Write(b)
				if d.Name() == "index" {
					fmt.Fprintf(h, "\x00%d", info.ModTime().UnixNano())
				}
			}
			return nil
		})
		if err != nil {
			r.tb.Fatalf("fingerprint %s: %v", root, err)
		}
	}
	// The objects too: the scanner writes its snapshots and merges into
	// a scratch of its own (Scratch), never into the repository.
	walk(filepath.Join(r.main, ".git"), func(rel string, d fs.DirEntry) bool { return false })
	for _, wt := range append([]string{r.main}, worktrees...) {
		walk(wt, func(rel string, d fs.DirEntry) bool { return rel == ".git" && d.IsDir() })
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func newRunner(tb testing.TB, cfg gitscan.RunnerConfig) *gitscan.Runner {
	tb.Helper()
	r, err := gitscan.NewRunner(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("NewRunner: %v", err)
	}
	return r
}

// fakeGit writes a shell script standing in for git: body runs first,
// then the real git with the same arguments.
func fakeGit(tb testing.TB, body string) string {
	tb.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		tb.Skip("no git on PATH")
	}
	p := filepath.Join(tb.TempDir(), "git")
	script := "#!/bin/sh\n" + body + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		tb.Fatal(err)
	}
	return p
}

// newScratch is a scratch object store in a temp directory of the test's.
func newScratch(tb testing.TB) *gitscan.Scratch {
	tb.Helper()
	s, err := gitscan.NewScratch(filepath.Join(tb.TempDir(), "scratch"), 0)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// sgit runs git in dir reading the scratch's objects beside the
// repository's, as the scanner does: where a snapshot's objects are.
func sgit(tb testing.TB, sc *gitscan.Scratch, dir string, args ...string) string {
	tb.Helper()
	env, err := sc.Env(gittest.Git(tb, dir, "rev-parse", "--path-format=absolute", "--git-common-dir"))
	if err != nil {
		tb.Fatal(err)
	}
	cmd := gittest.Command(context.Background(), dir, args...)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}
