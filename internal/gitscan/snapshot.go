package gitscan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hall-dev/hall/internal/safefile"
)

// MaxIndexBytes bounds the index a snapshot copies: an 11,500-file
// repository's is about 1.5 MB.
const MaxIndexBytes = 64 << 20

// Snapshot is a worktree's working tree as git would commit it with
// everything added: tracked changes staged or not, and new files not
// ignored.
type Snapshot struct {
	Head   string // the worktree's HEAD when taken, the commit's parent; "" on a branch with no commit yet
	Tree   string // the working tree's tree id
	Commit string // a commit of Tree whose parent is Head: what merge-tree merges
	// Top and GitDir are the worktree's top directory and the
	// repository's common git directory, both absolute.
	Top, GitDir string
}

// snapshotEnv makes the snapshot commit's id depend on its tree and
// parent alone: a fixed author, committer and date, no signature
// (commit.gpgSign=false, gitenv.go). The
// same working tree on the same HEAD is the same commit, which is what the
// merge cache is keyed by.
var snapshotEnv = []string{
	"GIT_AUTHOR_NAME=hall", "GIT_AUTHOR_EMAIL=hall@localhost", "GIT_AUTHOR_DATE=@0 +0000",
	"GIT_COMMITTER_NAME=hall", "GIT_COMMITTER_EMAIL=hall@localhost", "GIT_COMMITTER_DATE=@0 +0000",
}

// Snapshot commits the worktree's working tree without touching it: the
// real index is copied into a temporary directory (the copy is what git
// add refreshes from, so only changed files are hashed: ~80 ms on 11,500
// files where an empty index takes ~600 ms), git add -A and git
// write-tree run on the copy (GIT_INDEX_FILE), and git commit-tree makes
// a commit of that tree on HEAD. The worktree, its index, its refs, its
// stash and its objects are left as they were: the new objects go into
// the scratch (into), the repository's read as alternates.
func (r *Runner) Snapshot(ctx context.Context, worktree string, into *Scratch) (Snapshot, error) {
	return r.snapshot(ctx, filepath.Clean(worktree), nil, into.envFor)
}

// SnapshotTreeInto is the first half of Snapshot, what must happen
// before the working tree may change, writing every new object into
// objects, an object directory the caller owns, with the repository's own
// objects as alternates (GIT_OBJECT_DIRECTORY,
// GIT_ALTERNATE_OBJECT_DIRECTORIES): nothing at all is written into the
// repository. Every file's content and the tree are written, HEAD read;
// the snapshot it answers has no Commit yet. Reading it back needs the
// same pair (ObjectsEnv).
func (r *Runner) SnapshotTreeInto(ctx context.Context, worktree, objects string) (Snapshot, error) {
	s, _, err := r.snapshotTree(ctx, filepath.Clean(worktree), nil, func(gitDir string) ([]string, error) { return ObjectsEnv(objects, gitDir), nil })
	return s, err
}

// CommitSnapshot is the second half: the commit of the snapshot's tree
// on its HEAD, written into objects (ObjectsEnv), the same commit
// Snapshot makes, from objects alone, whatever the working tree has
// become since.
func (r *Runner) CommitSnapshot(ctx context.Context, s Snapshot, objects string) (Snapshot, error) {
	return r.commitSnapshot(ctx, s, append(ObjectsEnv(objects, s.GitDir), snapshotEnv...))
}

// envFor is the environment that says where a snapshot of the
// repository at gitDir writes its objects.
type envFor func(gitDir string) ([]string, error)

// ObjectsEnv is the environment that makes git read and write objects in
// objects, the repository's (gitDir's) own read as alternates.
func ObjectsEnv(objects, gitDir string) []string {
	return []string{"GIT_OBJECT_DIRECTORY=" + objects, "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(gitDir, "objects")}
}

// SnapshotListed is Snapshot of the worktree a scan answered for, taken
// from the scan's list of its changed files: only the files not in a
// commit (staged, modified, untracked, deleted) are hashed into the
// copied index (git update-index), where git add -A would walk the whole
// tree and every directory for new files: on 10,000 files, most of a
// snapshot's cost. The commit is the same as Snapshot's when the list
// still holds; a file changed since the scan and not listed is left as
// the index has it, for the next scan (which a mutation asks for) to
// catch. Where the list cannot stand for the working tree (cut at its
// bound, HEAD moved since), the whole tree is snapshot as Snapshot does.
func (r *Runner) SnapshotListed(ctx context.Context, c Changes, into *Scratch) (Snapshot, error) {
	return r.snapshotListed(ctx, c, into.envFor)
}

// snapshotListed is SnapshotListed, its objects written as env says.
func (r *Runner) snapshotListed(ctx context.Context, c Changes, env envFor) (Snapshot, error) {
	l := &listed{head: c.Head}
	if !c.Complete() || c.Head == "" || len(c.States) != len(c.Files) {
		l = nil
	} else {
		for i, f := range c.Files {
			if c.States[i].Uncommitted() {
				// An untracked nested repository is listed as its
				// directory ("nested/"); update-index takes it by name.
				l.paths = append(l.paths, strings.TrimSuffix(f, "/")...)
				l.paths = append(l.paths, 0)
			}
		}
	}
	return r.snapshot(ctx, filepath.Clean(c.Worktree), l, env)
}

// listed is what a scan listed of a worktree, for a snapshot: the HEAD
// it saw and its uncommitted paths, each ended by a NUL (git update-index
// -z --stdin).
type listed struct {
	head  string
	paths []byte
}

// snapshot is Snapshot, from a scan's list where l is not nil, its
// objects written as objects says.
func (r *Runner) snapshot(ctx context.Context, wt string, l *listed, objects envFor) (Snapshot, error) {
	s, oe, err := r.snapshotTree(ctx, wt, l, objects)
	if err != nil {
		return Snapshot{}, err
	}
	return r.commitSnapshot(ctx, s, append(oe, snapshotEnv...))
}

// commitSnapshot makes the commit of s's tree on its HEAD (none: a
// root commit, on a branch with no commit yet) in the objects env names.
func (r *Runner) commitSnapshot(ctx context.Context, s Snapshot, env []string) (Snapshot, error) {
	commit := []string{"commit-tree", s.Tree, "-m", "hall: working tree snapshot"}
	if s.Head != "" {
		commit = append(commit, "-p", s.Head)
	}
	out, err := r.Run(ctx, Cmd{Dir: s.Top, Args: commit, Env: env})
	if err != nil {
		return Snapshot{}, err
	}
	s.Commit = strings.TrimSpace(string(out.Stdout))
	return s, nil
}

// snapshotTree is the part of snapshot before its commit: the copied
// index brought to the working tree, its tree written, HEAD read. It
// answers as well the environment that names the objects it wrote into.
func (r *Runner) snapshotTree(ctx context.Context, wt string, l *listed, objects envFor) (Snapshot, []string, error) {
	if err := isDir(wt); err != nil {
		return Snapshot{}, nil, err
	}
	where := []string{"rev-parse", "--path-format=absolute", "--git-path", "index", "--show-toplevel", "--git-common-dir", "--show-object-format"}
	out, err := r.Run(ctx, Cmd{Dir: wt, Args: append(where, "HEAD")})
	unborn := false
	if CodeOf(err) == Failed {
		// HEAD names no commit yet (a branch with no commit), or this is
		// no worktree: asked again without HEAD, git tells which.
		if out, err = r.Run(ctx, Cmd{Dir: wt, Args: where}); err != nil {
			if CodeOf(err) == Failed {
				return Snapshot{}, nil, &Error{Code: NotWorktree, Op: "git rev-parse", Err: err}
			}
			return Snapshot{}, nil, err
		}
		unborn = true
	}
	if err != nil {
		return Snapshot{}, nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out.Stdout), "\n"), "\n")
	if unborn {
		lines = append(lines, "")
	}
	if len(lines) != 5 {
		return Snapshot{}, nil, &Error{Code: Failed, Op: "git rev-parse", Err: errorf("%d lines, want 5", len(lines))}
	}
	realIndex, top, gitDir, format, head := lines[0], lines[1], lines[2], lines[3], lines[4]
	hashSize := 20
	if format == "sha256" {
		hashSize = 32
	}
	dir, err := os.MkdirTemp("", indexPrefix+"*")
	if err != nil {
		return Snapshot{}, nil, &Error{Code: Failed, Op: "temporary index", Err: err}
	}
	defer os.RemoveAll(dir)
	index := filepath.Join(dir, "index")
	if err := copyIndex(realIndex, index); err != nil {
		return Snapshot{}, nil, &Error{Code: Failed, Op: "copy index", Err: err}
	}
	env := append([]string{"GIT_INDEX_FILE=" + index}, snapshotEnv...)
	oe, err := objects(gitDir)
	if err != nil {
		return Snapshot{}, nil, &Error{Code: Failed, Op: "object directory", Err: err}
	}
	env = append(env, oe...)
	if l == nil || l.head != head {
		if hasGitlinks(index, hashSize) {
			// git add -A would run git status inside each submodule
			// (hasGitlinks): the paths to stage come from this runner's
			// own git status, which does not.
			if l, err = r.listUncommitted(ctx, wt, head); err != nil {
				return Snapshot{}, nil, err
			}
		}
	}
	if err := r.stage(ctx, wt, env, head, l); err != nil {
		return Snapshot{}, nil, err
	}
	out, err = r.Run(ctx, Cmd{Dir: wt, Args: []string{"write-tree"}, Env: env})
	if err != nil {
		return Snapshot{}, nil, err
	}
	return Snapshot{Head: head, Tree: strings.TrimSpace(string(out.Stdout)), Top: top, GitDir: gitDir}, oe, nil
}

// stage brings the copied index to the working tree: the listed paths
// alone where a scan's list stands for it (git update-index: --remove, a
// listed path gone from disk leaves the index; --replace, a file where a
// directory was or the other way round), else every path (git add -A).
// A path git cannot add (an untracked nested repository with no commit,
// a FIFO where a tracked file was) fails either way.
func (r *Runner) stage(ctx context.Context, wt string, env []string, head string, l *listed) error {
	if l != nil && l.head == head {
		if len(l.paths) == 0 {
			return nil
		}
		_, err := r.Run(ctx, Cmd{Dir: wt, Args: []string{"update-index", "--add", "--remove", "--replace", "-z", "--stdin"}, Env: env, Stdin: l.paths})
		return err
	}
	_, err := r.Run(ctx, Cmd{Dir: wt, Args: []string{"add", "-A"}, Env: env})
	return err
}

// listUncommitted lists the worktree's uncommitted paths as a scan would
// (git status), for stage: what git add -A would stage, taken path by
// path. A list cut at git's output bound cannot stand for the worktree.
func (r *Runner) listUncommitted(ctx context.Context, wt, head string) (*listed, error) {
	entries, cut, err := r.status(ctx, wt, nil)
	if err != nil {
		return nil, err
	}
	if cut {
		return nil, &Error{Code: Failed, Op: "git status", Err: errorf("the worktree's changes are over git's output bound; with submodules, git add -A is not run")}
	}
	l := &listed{head: head}
	for _, e := range entries {
		l.paths = append(l.paths, strings.TrimSuffix(e.path, "/")...)
		l.paths = append(l.paths, 0)
	}
	return l, nil
}

// copyIndex copies the worktree's index, a regular file of at most
// MaxIndexBytes, opened without waiting (a FIFO put in its place would
// block an open) and checked once open. A missing index (nothing staged
// ever) leaves no copy: git add then starts from an empty one.
func copyIndex(src, dst string) error {
	// Opened as every file a request can lead the Hall to (package
	// safefile): git's index is never a link, so a final symlink is
	// refused too.
	f, err := safefile.Open(src, safefile.NoFollow)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", src, err)
	}
	if info.Size() > MaxIndexBytes {
		return fmt.Errorf("%s is %d bytes, over %d", src, info.Size(), MaxIndexBytes)
	}
	w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(w, io.LimitReader(f, MaxIndexBytes+1))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > MaxIndexBytes {
		err = fmt.Errorf("%s grew over %d bytes", src, MaxIndexBytes)
	}
	if err != nil {
		return err
	}
	// The copy keeps the index's modification time: git tells a file
	// changed within the same tick as the index was written ("racily
	// clean") by comparing the entry's time with the index file's. A copy
	// stamped now would make such an entry look clean by its stat data,
	// and a same-size edit would be left out of the snapshot.
	return os.Chtimes(dst, info.ModTime(), info.ModTime())
}
