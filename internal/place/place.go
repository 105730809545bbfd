// Package place says where a session works: the directory it runs in (its
// caller root), the git worktree holding that directory, and the brain (the
// repository's main worktree, so every worktree of one repository shares one
// brain). It reads git's own files (.git, gitdir, commondir) and never runs
// git: a hook that fires on every tool call must not start a process, and
// the Hall derives the same answer from a payload's cwd as the CLI does.
//
// Every file it reads is named by whoever chose the directory (a hook
// payload's cwd, an MCP client's roots): each is opened through package
// safefile (never waiting on a FIFO, only a regular file, a few KiB at
// most), and Complete bounds the whole lookup: a directory longer than
// presence.MaxPathLen is never walked, a lookup past its deadline or past
// MaxLookups at once answers "outside git". The beat still goes; only the
// worktree and brain are the caller root's own.
//
// It knows nothing of the Hall's records or wire types.
package place

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/safefile"
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
//
// The lookup is bounded (Finder.Locate, with the process's Finder): past
// ctx's end, LookupDeadline, or MaxLookups lookups at once, CallerRoot
// counts as outside git. A CallerRoot longer than presence.MaxPathLen is
// not looked at: it is kept as given, the brain with it, for the beat's
// own check to refuse.
func (p Place) Complete(ctx context.Context) Place {
	return lookups.Complete(ctx, p)
}

// Complete is Place.Complete with f's bounds.
func (f *Finder) Complete(ctx context.Context, p Place) Place {
	if p.CallerRoot == "" {
		return p
	}
	if tooLong(p.CallerRoot) {
		if p.Brain == "" {
			p.Brain = p.CallerRoot
		}
		return p
	}
	if abs, err := filepath.Abs(p.CallerRoot); err == nil {
		p.CallerRoot = abs
	}
	repo := f.Locate(ctx, p.CallerRoot)
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

// tooLong reports whether dir is past the domain's path limit: walking it
// costs a stat and a join a level, so the check comes before any of it.
func tooLong(dir string) bool { return len(dir) > presence.MaxPathLen }

// Locate finds the git worktree holding dir and its repository's main
// worktree, as `git rev-parse --show-toplevel --git-common-dir` would,
// reading the files alone. Outside git, or when git's files make no sense,
// both are empty. Symlinks in dir are resolved first, as git's own working
// directory is physical. A dir longer than presence.MaxPathLen is outside
// git. Locate itself has no deadline: Finder.Locate bounds it.
func Locate(dir string) Repo {
	if tooLong(dir) {
		return Repo{}
	}
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

// isGitDir reports whether dir looks like a git directory: it has a HEAD
// that is a regular file, or a symlink into refs/ (git once wrote HEAD as
// one, and git itself accepts no other link). HEAD is looked at (lstat,
// readlink), never opened: a FIFO or a device named HEAD is no git
// directory, and costs nothing.
func isGitDir(dir string) bool {
	head := filepath.Join(dir, "HEAD")
	fi, err := os.Lstat(head)
	switch {
	case err != nil:
		return false
	case fi.Mode().IsRegular():
		return true
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(head)
		return err == nil && strings.HasPrefix(target, "refs/")
	}
	return false
}

// readGitdirFile reads a ".git" file ("gitdir: <path>", the path relative
// to the worktree when not absolute), as a linked worktree or a submodule
// has.
func readGitdirFile(top, file string) (string, bool) {
	b, ok := readSmall(file, safefile.Follow)
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
	b, ok := readSmall(filepath.Join(gitdir, "commondir"), safefile.NoFollow)
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

// readSmall reads one of git's one-line files: a regular file only, of at
// most maxGitFile bytes. links is safefile.Follow for a worktree's ".git"
// (a layout may link it) and NoFollow for the files git alone writes
// inside a git directory (commondir).
func readSmall(name string, links safefile.Links) ([]byte, bool) {
	b, err := safefile.ReadFile(name, maxGitFile, links)
	if err != nil || len(b) == 0 {
		return nil, false
	}
	return b, true
}
