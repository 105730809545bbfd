package recovery

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hall-dev/hall/internal/atomicfile"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/safefile"
)

// Every write a restore makes goes through an os.Root opened on the
// worktree (or --to DIR): no component of a path, however the directory
// changed since the snapshot, leads a write out of it. Beyond that, no
// write goes through a symbolic link at all, even one that stays inside
// (src -> lib would put src/app.go's bytes in lib/app.go): a file whose
// directory is a link, or not a directory, is refused by name, and the
// whole restore with it, before anything is written (issue 40).

// entry is one file of a snapshot's tree: its path (bytes, as git keeps
// it), mode, blob and, once asked for (sizes), the blob's size.
type entry struct {
	path string
	mode string // 100644, 100755, 120000
	blob string
	size int64
}

// link tells a symbolic link, whose blob is its target.
func (e entry) link() bool { return e.mode == "120000" }

// listTree lists the files of a tree at the paths (all of the tree's
// files under them), the paths taken literally (a name may begin with
// ':').
func (s *Store) listTree(ctx context.Context, snap Snapshot, tree string, paths []string) ([]entry, error) {
	if tree == "" {
		return nil, nil
	}
	args := append([]string{"--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", tree, "--"}, paths...)
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: snap.GitDir, Env: s.env(snap), Args: args})
	if err != nil {
		return nil, err
	}
	if out.Cut {
		return nil, errors.New("recovery: the tree's listing was cut at git's output bound; name fewer paths")
	}
	var list []entry
	for line := range bytes.SplitSeq(out.Stdout, []byte{0}) {
		meta, p, ok := bytes.Cut(line, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue // a submodule's commit: not a file to restore
		}
		list = append(list, entry{path: string(p), mode: f[0], blob: f[2]})
	}
	return list, nil
}

// listChanged lists the files of the snapshot's tree that differ from its
// HEAD and are not deleted: what a restore without paths writes, every
// one, whatever its record lists (at most MaxFiles, and names as JSON
// can hold them).
func (s *Store) listChanged(ctx context.Context, snap Snapshot) ([]entry, error) {
	base := snap.Head
	if base == "" {
		base = emptyTree(snap.Tree)
	}
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: snap.GitDir, Env: s.env(snap),
		Args: []string{"diff-tree", "-r", "-z", "--raw", "--no-renames", base, snap.Tree}})
	if err != nil {
		return nil, err
	}
	if out.Cut {
		return nil, errors.New("recovery: the snapshot's list of files was cut at git's output bound; name the paths to restore")
	}
	f := bytes.Split(out.Stdout, []byte{0})
	var list []entry
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(f[i]), ":"))
		if len(meta) < 5 || meta[4] == "" {
			break
		}
		if meta[4][0] == 'D' || meta[1] == "160000" {
			continue // gone in the snapshot, or a submodule's commit
		}
		list = append(list, entry{path: string(f[i+1]), mode: meta[1], blob: meta[3]})
	}
	return list, nil
}

// sizes fills in each entry's blob size (one git cat-file --batch-check):
// a blob is streamed to its file, and never more than its size.
func (s *Store) sizes(ctx context.Context, snap Snapshot, list []plan) error {
	if len(list) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, p := range list {
		in.WriteString(p.blob + "\n")
	}
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: snap.GitDir, Env: s.env(snap), Stdin: in.Bytes(),
		Args: []string{"cat-file", "--batch-check"}})
	if err != nil {
		return err
	}
	if out.Cut {
		return errors.New("recovery: the blobs' sizes were cut at git's output bound; name fewer paths")
	}
	size := map[string]int64{}
	for line := range strings.SplitSeq(string(out.Stdout), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[1] == "blob" {
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err == nil {
				size[f[0]] = n
			}
		}
	}
	for i := range list {
		n, ok := size[list[i].blob]
		if !ok {
			return fmt.Errorf("recovery: %s: blob %s is not in the store", list[i].path, list[i].blob)
		}
		list[i].size = n
	}
	return nil
}

// env reads a snapshot's objects beside its repository's.
func (s *Store) env(snap Snapshot) []string {
	return gitscan.ObjectsEnv(filepath.Join(s.dir, snap.ID, "objects"), snap.GitDir)
}

// maxLinkTarget bounds a symbolic link's target read from the store
// (Linux's PATH_MAX).
const maxLinkTarget = 4096

// linkTarget reads a symbolic link's target, its blob.
func (s *Store) linkTarget(ctx context.Context, snap Snapshot, p plan) (string, error) {
	if p.size > maxLinkTarget {
		return "", fmt.Errorf("a link target of %d bytes", p.size)
	}
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: snap.GitDir, Env: s.env(snap), Args: []string{"cat-file", "blob", p.blob}})
	if err != nil {
		return "", err
	}
	return string(out.Stdout), nil
}

// streamBlob writes a blob's content to w as git reads it, never more
// than its size, never held in memory whole.
func (s *Store) streamBlob(ctx context.Context, snap Snapshot, p plan, w io.Writer) error {
	bw := &boundedWriter{w: w, left: p.size}
	if _, err := s.run.Run(ctx, gitscan.Cmd{Dir: snap.GitDir, Env: s.env(snap), Args: []string{"cat-file", "blob", p.blob}, Stdout: bw}); err != nil {
		return err
	}
	if bw.left != 0 {
		return fmt.Errorf("blob %s: %d bytes short of its size %d", p.blob, bw.left, p.size)
	}
	return nil
}

// boundedWriter passes at most left bytes on to w.
type boundedWriter struct {
	w    io.Writer
	left int64
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > b.left {
		return 0, errors.New("a blob longer than its size")
	}
	n, err := b.w.Write(p)
	b.left -= int64(n)
	return n, err
}

// blobID is git's id of content as a blob, in the hash the id beside it
// uses (40 hex digits SHA-1, 64 SHA-256).
func blobID(content []byte, like string) string {
	h := newBlobHash(like, int64(len(content)))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// newBlobHash is git's blob hash for size bytes of content to come,
// its header written.
func newBlobHash(like string, size int64) hash.Hash {
	var h hash.Hash = sha1.New()
	if len(like) == 64 {
		h = sha256.New()
	}
	h.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	return h
}

// The kinds of thing a file's path holds now.
type diskKind uint8

const (
	diskAbsent  diskKind = iota // nothing (or its directory is not there)
	diskRegular                 // a regular file
	diskLink                    // a symbolic link
	diskOther                   // a directory, a FIFO, a socket, a device
)

// onDisk is what a file's path beneath a root holds now.
type onDisk struct {
	kind diskKind
	id   string      // diskRegular, diskLink: its content's blob id
	perm fs.FileMode // diskRegular: its permission bits
	what string      // diskOther: what it is ("a FIFO")
	dir  bool        // diskOther: a directory
	// blocked says why no write reaches the path: a directory above it
	// is a symbolic link, or not a directory.
	blocked string
}

// look reads what the path p (a clean relative path) holds beneath root,
// hashing a regular file's or link's content as a blob like the id like.
// A nil root (the directory is gone) holds nothing.
func look(root *os.Root, p, like string) (onDisk, error) {
	d, _, err := lookStat(root, p, like)
	if err != nil || d.kind != diskRegular {
		return d, err
	}
	return hashRegular(root, p, like)
}

// lookStat is look without reading a regular file: for one, it answers
// kind diskRegular (no id yet) and the file's Lstat.
func lookStat(root *os.Root, p, like string) (onDisk, fs.FileInfo, error) {
	if root == nil {
		return onDisk{}, nil, nil
	}
	comps := strings.Split(p, "/")
	for i := 1; i < len(comps); i++ {
		dir := strings.Join(comps[:i], "/")
		info, err := root.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return onDisk{}, nil, nil
		case err != nil:
			return onDisk{}, nil, err
		case info.Mode()&fs.ModeSymlink != 0:
			return onDisk{blocked: dir + " is a symbolic link, and a restore never writes through one"}, nil, nil
		case !info.IsDir():
			return onDisk{blocked: dir + " is " + safefile.Kind(info.Mode()) + ", not a directory"}, nil, nil
		}
	}
	info, err := root.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return onDisk{}, nil, nil
	case err != nil:
		return onDisk{}, nil, err
	case info.Mode()&fs.ModeSymlink != 0:
		t, err := root.Readlink(p)
		if err != nil {
			return onDisk{}, nil, err
		}
		return onDisk{kind: diskLink, id: blobID([]byte(t), like)}, info, nil
	case info.Mode().IsRegular():
		return onDisk{kind: diskRegular, perm: info.Mode().Perm()}, info, nil
	default:
		return onDisk{kind: diskOther, what: safefile.Kind(info.Mode()), dir: info.IsDir()}, info, nil
	}
}

// hashRegular hashes the regular file at p beneath root as a blob like
// the id like. Opened without blocking and checked regular once open
// (package safefile): the file may be swapped for a FIFO since an
// Lstat. Hashed as it streams: a file of any size costs no memory.
func hashRegular(root *os.Root, p, like string) (onDisk, error) {
	f, err := safefile.OpenIn(root, p)
	if errors.Is(err, fs.ErrNotExist) {
		return onDisk{}, nil
	}
	if errors.Is(err, safefile.ErrNotRegular) {
		return onDisk{kind: diskOther, what: "not a regular file"}, nil
	}
	if err != nil {
		return onDisk{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return onDisk{}, err
	}
	h := newBlobHash(like, st.Size())
	if _, err := io.Copy(h, io.LimitReader(f, st.Size())); err != nil {
		return onDisk{}, fmt.Errorf("read %s: %w", p, err)
	}
	return onDisk{kind: diskRegular, id: hex.EncodeToString(h.Sum(nil)), perm: st.Mode().Perm()}, nil
}

// same tells whether the path holds the entry's content, as a file or a
// link as the entry is.
func (d onDisk) same(e entry) bool {
	return d.id == e.blob && (d.kind == diskLink) == e.link() && d.kind != diskOther
}

// plan is one file Restore would write, and what its path holds now.
type plan struct {
	entry
	mode fs.FileMode
	now  onDisk
}

// openRoot opens dir as the root every read and write of a restore
// stays beneath; nil when dir is not there and create is false.
func openRoot(dir string, create bool) (*os.Root, error) {
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("recovery: %w", err)
		}
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) && !create {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("recovery: %w", err)
	}
	return root, nil
}

// Restore writes a snapshot's files back: byte-identical, with their
// mode (as on disk when taken) and symlink targets, each through a
// temporary file and a rename in its directory, every write beneath the
// worktree (or opt.To) and none through a symbolic link. The user's
// index, refs and stash are never touched. All or nothing: every file's
// path is looked at before anything is written, and the restore is
// refused, nothing written, when one is blocked (*BlockedError: a
// directory above it is a link or not a directory) or, into the
// worktree, changed (*ChangedError: neither the snapshot's content nor
// its HEAD's; a FIFO, a socket or a directory in its place) unless
// opt.Force. An entry of the snapshot's tree whose path is not a clean
// relative path is never written: listed in Refused, the rest restored.
// Should a write fail (a full disk), the files written before it are in
// the result beside the error.
func (s *Store) Restore(ctx context.Context, id string, opt RestoreOptions) (RestoreResult, error) {
	snap, err := s.Get(ctx, id)
	if err != nil {
		return RestoreResult{}, err
	}
	plans, refused, err := s.plan(ctx, snap, opt.Paths)
	if err != nil {
		return RestoreResult{}, err
	}
	res := RestoreResult{Dir: snap.Worktree, Refused: refused}
	if opt.To != "" {
		res.Dir = filepath.Clean(opt.To)
	}
	if len(plans) == 0 {
		return res, nil
	}
	root, err := openRoot(res.Dir, true)
	if err != nil {
		return RestoreResult{}, err
	}
	defer root.Close()
	head := map[string]string{}
	if opt.To == "" && !opt.Force && snap.Head != "" {
		ps := make([]string, len(plans))
		for i, p := range plans {
			ps[i] = p.path
		}
		list, err := s.listTree(ctx, snap, snap.Head, ps)
		if err != nil {
			return RestoreResult{}, err
		}
		for _, e := range list {
			head[e.path] = e.blob
		}
	}
	var write []plan
	var changed []string
	var blocked []Refusal
	for _, p := range plans {
		now, err := look(root, p.path, p.blob)
		if err != nil {
			return RestoreResult{}, fmt.Errorf("recovery: %w", err)
		}
		p.now = now
		switch {
		case now.blocked != "":
			blocked = append(blocked, Refusal{Path: p.path, Why: now.blocked})
			continue
		case now.same(p.entry) && (now.kind == diskLink || now.perm == p.mode):
			res.Unchanged = append(res.Unchanged, p.path)
			continue
		case now.kind == diskOther && !opt.Force:
			changed = append(changed, p.path)
			continue
		case now.kind == diskOther && now.dir:
			if empty, err := emptyDir(root, p.path); err != nil || !empty {
				blocked = append(blocked, Refusal{Path: p.path, Why: "a directory with files in it is there"})
				continue
			}
		case now.kind != diskAbsent && opt.To == "" && !opt.Force && head[p.path] != now.id && !now.same(p.entry):
			changed = append(changed, p.path)
			continue
		}
		write = append(write, p)
	}
	if len(blocked) > 0 {
		return RestoreResult{Dir: res.Dir, Refused: refused}, &BlockedError{Files: blocked}
	}
	if len(changed) > 0 {
		return RestoreResult{Dir: res.Dir, Refused: refused}, &ChangedError{Paths: changed}
	}
	if err := s.sizes(ctx, snap, write); err != nil {
		return RestoreResult{Dir: res.Dir, Refused: refused}, err
	}
	for _, p := range write {
		if err := s.write(ctx, snap, root, p); err != nil {
			return res, fmt.Errorf("recovery: %s: %w", p.path, err)
		}
		res.Restored = append(res.Restored, p.path)
	}
	return res, nil
}

// emptyDir tells whether the directory p beneath root holds nothing.
func emptyDir(root *os.Root, p string) (bool, error) {
	d, err := root.Open(p)
	if err != nil {
		return false, err
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return len(names) == 0, err
}

// plan lists the files a restore of paths writes: the snapshot's tree's
// files at those paths, or every file that differs from its HEAD and is
// not deleted; and, apart, the entries no restore writes (checkName).
func (s *Store) plan(ctx context.Context, snap Snapshot, paths []string) ([]plan, []Refusal, error) {
	var want []string
	for _, p := range paths {
		p = path.Clean(filepath.ToSlash(p))
		if p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
			return nil, nil, fmt.Errorf("recovery: %q is outside the worktree", p)
		}
		want = append(want, p)
	}
	var list []entry
	var err error
	if len(want) == 0 {
		list, err = s.listChanged(ctx, snap)
	} else {
		list, err = s.listTree(ctx, snap, snap.Tree, want)
		if err == nil && len(list) == 0 {
			err = fmt.Errorf("recovery: snapshot %s holds no file at %s", snap.ID, joinBounded(want, 10))
		}
	}
	if err != nil {
		return nil, nil, err
	}
	mode := map[string]fs.FileMode{}
	for _, f := range snap.Files {
		mode[f.Path] = fs.FileMode(f.Mode)
	}
	var plans []plan
	var refused []Refusal
	for _, e := range list {
		if err := checkName(e.path); err != nil {
			refused = append(refused, Refusal{Path: e.path, Why: err.Error()})
			continue
		}
		m, ok := mode[e.path]
		if !ok || m == 0 {
			m = 0o644
			if e.mode == "100755" {
				m = 0o755
			}
		}
		plans = append(plans, plan{entry: e, mode: m})
	}
	slices.SortFunc(plans, func(a, b plan) int { return strings.Compare(a.path, b.path) })
	return plans, refused, nil
}

// write writes one file of the snapshot beneath root, atomically and
// durably (atomicfile): into a temporary file (or link) beside it, then
// renamed over whatever is there (an empty directory removed first).
func (s *Store) write(ctx context.Context, snap Snapshot, root *os.Root, p plan) error {
	dir := path.Dir(p.path)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	o := atomicfile.Options{Root: root, Perm: p.mode}
	if p.now.kind == diskOther && p.now.dir {
		o.Before = func(fs.FileInfo) error { return root.Remove(p.path) }
	}
	if p.link() {
		target, err := s.linkTarget(ctx, snap, p)
		if err != nil {
			return err
		}
		return atomicfile.Symlink(target, p.path, o)
	}
	return atomicfile.Write(p.path, func(w io.Writer) error { return s.streamBlob(ctx, snap, p, w) }, o)
}

// Diff compares a snapshot's files (those at paths, or every one that
// differs from its HEAD and is not deleted) with the worktree now,
// hashing as little as it can and at most MaxHashBytes (compare). A
// path that is not a file now (a FIFO, a directory) or that no write
// reaches (under a symbolic link) is changed; an entry no restore writes
// is refused.
func (s *Store) Diff(ctx context.Context, id string, paths []string) ([]FileDiff, error) {
	snap, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	plans, refused, err := s.plan(ctx, snap, paths)
	if err != nil {
		return nil, err
	}
	root, err := openRoot(snap.Worktree, false)
	if err != nil {
		return nil, err
	}
	if root != nil {
		defer root.Close()
	}
	if err := s.sizes(ctx, snap, plans); err != nil {
		return nil, err
	}
	out, err := s.compare(snap, root, plans) // hashing as little as it can, bounded (compare.go)
	if err != nil {
		return nil, err
	}
	for _, r := range refused {
		out = append(out, FileDiff{Path: r.Path, State: DiffRefused, Why: r.Why})
	}
	return out, nil
}

// BlockedError is Restore's refusal of files no write may reach: a
// directory above one is a symbolic link (which may lead out of the
// worktree) or not a directory. Nothing was written; --force does not
// change it, --to DIR writes elsewhere.
type BlockedError struct {
	Files []Refusal
}

func (e *BlockedError) Error() string {
	parts := make([]string, 0, min(len(e.Files), 10)+1)
	for i, f := range e.Files {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Files)-10))
			break
		}
		parts = append(parts, f.Path+" ("+f.Why+")")
	}
	return "nothing restored: " + strings.Join(parts, ", ") + "; --to DIR writes the files elsewhere"
}
