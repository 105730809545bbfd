package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The overlap scenario's repository: generated Go-like files in nested
// directories (pkgNN/subNN/fileNNN.go), committed once, and its
// worktrees. Generated rather than a copy of GOROOT/src: the same tree on
// every machine and Go version, and the bench knows each file's lines, so
// it writes two sides' changes that git merges cleanly or not, as it
// means to.

// fileLines is each generated file's length in lines.
const fileLines = 30

// repoFileRel is file i's path in the repository: 20 files a directory,
// 20 directories a package.
func repoFileRel(i int) string {
	return fmt.Sprintf("pkg%02d/sub%02d/file%03d.go", i/400, i/20%20, i%20)
}

// fileContent is file i's lines with the lines in edits replaced (line
// numbers from 0).
func fileContent(i int, edits map[int]string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "package sub%02d\n\n", i/20%20)
	for l := 2; l < fileLines; l++ {
		if e, ok := edits[l]; ok {
			b.WriteString(e)
			b.WriteByte('\n')
			continue
		}
		fmt.Fprintf(&b, "func f%03d_%02d() int { return %d }\n", i%1000, l, i*fileLines+l)
	}
	return []byte(b.String())
}

// git runs git in dir with a fixed identity, as the bench's own hand.
func git(ctx context.Context, dir string, args ...string) error {
	_, err := gitOut(ctx, dir, nil, args...)
	return err
}

// gitOut is git with stdin (nil: none), answering its standard output
// with the last newline trimmed.
func gitOut(ctx context.Context, dir string, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "user.name=hallbench", "-c", "user.email=bench@localhost", "-c", "commit.gpgSign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s in %s: %v\n%s%s", strings.Join(args, " "), dir, err, out.Bytes(), errOut.Bytes())
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// makeRepo writes files generated files into dir, a new repository on
// branch main, and commits them.
func makeRepo(ctx context.Context, dir string, files int) error {
	if err := git(ctx, "", "init", "-q", "-b", "main", dir); err != nil {
		return err
	}
	for i := range files {
		p := filepath.Join(dir, repoFileRel(i))
		if i%20 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(p, fileContent(i, nil), 0o644); err != nil {
			return err
		}
	}
	if err := git(ctx, dir, "add", "-A"); err != nil {
		return err
	}
	// gc.auto=0: a commit of this many loose objects would start a
	// detached `git gc --auto`, a repack that overlaps the first rounds
	// measured on the repository.
	return git(ctx, dir, "-c", "gc.auto=0", "commit", "-q", "-m", "generated")
}

// addWorktrees adds worktrees from..to-1 of repo (wt-NNN beside it, each
// on its own branch) and returns their paths. A checkout writes its
// files and its index within one second, which leaves every entry racily
// clean: each git status would then read all the files' contents. A
// worktree in use has had its index refreshed since (the agent's own git
// status, add or commit), so the bench refreshes each one a second later,
// as internal/gitscan's benchmarks do.
func addWorktrees(ctx context.Context, repo string, from, to int) ([]string, error) {
	var wts []string
	for i := from; i < to; i++ {
		wt := filepath.Join(filepath.Dir(repo), fmt.Sprintf("wt-%03d", i))
		if err := git(ctx, repo, "worktree", "add", "-q", "-b", fmt.Sprintf("agent-%03d", i), wt); err != nil {
			return nil, err
		}
		wts = append(wts, wt)
	}
	time.Sleep(1100 * time.Millisecond)
	for _, wt := range wts {
		if err := git(ctx, wt, "update-index", "-q", "--refresh"); err != nil {
			return nil, err
		}
	}
	return wts, nil
}

// addClones makes clones from..to-1 of repo (clone-NNN/shop beside it,
// each on a branch of its own, its origin repo), as a team's clones of
// one repository on one machine (issue #43): one repository identity,
// file://<repo>, and as many brains. Refreshed a second later, as
// addWorktrees does.
func addClones(ctx context.Context, repo string, from, to int) ([]string, error) {
	var clones []string
	for i := from; i < to; i++ {
		c := filepath.Join(filepath.Dir(repo), fmt.Sprintf("clone-%03d", i), "shop")
		if err := git(ctx, "", "clone", "-q", repo, c); err != nil {
			return nil, err
		}
		if err := git(ctx, c, "checkout", "-q", "-b", fmt.Sprintf("agent-%03d", i)); err != nil {
			return nil, err
		}
		clones = append(clones, c)
	}
	time.Sleep(1100 * time.Millisecond)
	for _, c := range clones {
		if err := git(ctx, c, "update-index", "-q", "--refresh"); err != nil {
			return nil, err
		}
	}
	return clones, nil
}
