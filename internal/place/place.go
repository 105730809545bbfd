// Package place says where a session works: the directory it runs in (its
// caller root), the git worktree holding that directory, and the brain (the
// repository's main worktree, so every worktree of one repository shares one
// brain). It reads git's own files (.git, gitdir, commondir) and never runs
// git: a hook that fires on every tool call must not start a process, and
// the Hall derives the same answer from a payload's cwd as the CLI does.
//
// It knows nothing of the Hall's records or wire types.
package place

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Place is where a session works. Empty fields are unknown.
type Place struct {
	CallerRoot string // the session's working directory
	Worktree   string // the top level of the git worktree holding CallerRoot
	Brain      string // the repository's main worktree; CallerRoot outside git
}

// Complete fills what p leaves empty, deriving from CallerRoot: the worktree
// is its git top level, the brain its repository's main worktree (else the
// worktree, else the caller root itself). A relative CallerRoot is made
// absolute against this process's directory. Fields already set are kept.
func (p Place) Complete() Place {
	if p.CallerRoot == "" {
		return p
	}
	if abs, err := filepath.Abs(p.CallerRoot); err == nil {
		p.CallerRoot = abs
	}
	repo := Locate(p.CallerRoot)
	if p.Worktree == "" {
		p.Worktree = repo.Top
	}
	if p.Brain == "" {
		switch {
		case repo.Main != "":
			p.Brain = repo.Main
		case repo.Top != "":
			p.Brain = repo.Top
		default:
			p.Brain = p.CallerRoot
		}
	}
	if abs, err := filepath.Abs(p.Brain); err == nil {
		p.Brain = abs
	}
	return p
}

// Repo is what git's files say about a directory.
type Repo struct {
	Top  string // the top level of the worktree holding the directory
	Main string // the main worktree of its repository (Top for a bare repository's worktree or a submodule)
}

// maxGitFile bounds what is read of a .git or commondir file: both hold a
// single path.
const maxGitFile = 4096

// Locate finds the git worktree holding dir and its repository's main
// worktree, as `git rev-parse --show-toplevel --git-common-dir` would,
// reading the files alone. Outside git, or when git's files make no sense,
// both are empty. Symlinks in dir are resolved first, as git's own working
// directory is physical.
func Locate(dir string) Repo {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	dir = filepath.Clean(dir)
	for d := dir; ; {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			switch {
			case fi.IsDir():
				if !isGitDir(dotgit) {
					return Repo{}
				}
				return Repo{Top: d, Main: mainOf(d, commonDir(dotgit))}
			case fi.Mode().IsRegular():
				gitdir, ok := readGitdirFile(d, dotgit)
				if !ok {
					return Repo{}
				}
				return Repo{Top: d, Main: mainOf(d, commonDir(gitdir))}
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Repo{}
		}
		d = parent
	}
}

// isGitDir reports whether dir looks like a git directory: it has a HEAD.
func isGitDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil
}

// readGitdirFile reads a ".git" file ("gitdir: <path>", the path relative
// to the worktree when not absolute), as a linked worktree or a submodule
// has.
func readGitdirFile(top, file string) (string, bool) {
	b, ok := readSmall(file)
	if !ok {
		return "", false
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	rest, found := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	if !found {
		return "", false
	}
	gitdir := strings.TrimSpace(rest)
	if gitdir == "" {
		return "", false
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(top, gitdir)
	}
	gitdir = filepath.Clean(gitdir)
	if !isGitDir(gitdir) {
		return "", false
	}
	return gitdir, true
}

// commonDir is the repository's common directory for a git directory: the
// one its "commondir" file names (relative to it), else itself.
func commonDir(gitdir string) string {
	b, ok := readSmall(filepath.Join(gitdir, "commondir"))
	if !ok {
		return gitdir
	}
	c := strings.TrimSpace(string(b))
	if c == "" {
		return gitdir
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitdir, c)
	}
	return filepath.Clean(c)
}

// mainOf names the main worktree: the folder holding the common directory
// when that is a ".git" folder, else (a bare repository, a submodule) the
// worktree itself, as git's own answer leads the Hall to.
func mainOf(top, common string) string {
	if filepath.Base(common) == ".git" {
		return filepath.Dir(common)
	}
	return top
}

func readSmall(name string) ([]byte, bool) {
	f, err := os.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxGitFile))
	if err != nil || len(b) == 0 {
		return nil, false
	}
	return b, true
}
