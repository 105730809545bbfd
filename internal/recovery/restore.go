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

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/safefile"
)

// entry is one file of a tree: its mode and blob.
type entry struct {
	mode string // 100644, 100755, 120000
	blob string
}

// tree lists the files of a tree at the paths (all of the tree's files
// under them).
func (s *Store) tree(ctx context.Context, snap Snapshot, tree string, paths []string) (map[string]entry, error) {
	if tree == "" {
		return map[string]entry{}, nil
	}
	args := append([]string{"ls-tree", "-r", "-z", "--full-tree", tree, "--"}, paths...)
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: snap.GitDir, Env: s.env(snap), Args: args})
	if err != nil {
		return nil, err
	}
	if out.Cut {
		return nil, errors.New("recovery: the tree's listing was cut at git's output bound; name fewer paths")
	}
	m := map[string]entry{}
	for _, line := range bytes.Split(out.Stdout, []byte{0}) {
		meta, p, ok := strings.Cut(string(line), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue // a submodule's commit: not a file to restore
		}
		m[p] = entry{mode: f[0], blob: f[2]}
	}
	return m, nil
}

// env reads a snapshot's objects beside its repository's.
func (s *Store) env(snap Snapshot) []string {
	return gitscan.ObjectsEnv(filepath.Join(s.dir, snap.ID, "objects"), snap.GitDir)
}

// blob reads one blob's content.
func (s *Store) blob(ctx context.Context, snap Snapshot, id string) ([]byte, error) {
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: snap.GitDir, Env: s.env(snap), Args: []string{"cat-file", "blob", id}})
	if err != nil {
		return nil, err
	}
	if out.Cut {
		return nil, fmt.Errorf("recovery: blob %s is over git's output bound", id)
	}
	return out.Stdout, nil
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

// onDisk is a file as it is now: its blob id and whether it is a link;
// "" when it is not there (or is a directory).
func onDisk(name, like string) (id string, link bool, err error) {
	info, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
		return "", false, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory") {
			return "", false, nil
		}
		return "", false, err
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(name)
		if err != nil {
			return "", false, err
		}
		return blobID([]byte(t), like), true, nil
	case info.Mode().IsRegular():
		// Opened without blocking and checked regular once open (package
		// safefile): the file may be swapped for a FIFO since the Lstat.
		// Hashed as it streams: a file of any size costs no memory.
		f, err := safefile.Open(name, safefile.NoFollow)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, safefile.ErrNotRegular) {
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return "", false, err
		}
		h := newBlobHash(like, st.Size())
		if _, err := io.Copy(h, io.LimitReader(f, st.Size())); err != nil {
			return "", false, fmt.Errorf("read %s: %w", name, err)
		}
		return hex.EncodeToString(h.Sum(nil)), false, nil
	default:
		return "", false, nil
	}
}

// plan is one file Restore would write.
type plan struct {
	path string
	e    entry
	mode fs.FileMode
}

// Restore writes a snapshot's files back: byte-identical, with their
// mode (as on disk when taken) and symlink targets, each through a
// temporary file and a rename in its directory. The user's index, refs
// and stash are never touched. Into the worktree, a file that is now
// neither the snapshot's content nor its HEAD's (someone wrote to it
// since) is refused, all of them together before anything is written
// (*ChangedError), unless opt.Force.
func (s *Store) Restore(ctx context.Context, id string, opt RestoreOptions) (RestoreResult, error) {
	snap, err := s.Get(ctx, id)
	if err != nil {
		return RestoreResult{}, err
	}
	plans, err := s.plan(ctx, snap, opt.Paths)
	if err != nil {
		return RestoreResult{}, err
	}
	res := RestoreResult{Dir: snap.Worktree}
	if opt.To != "" {
		res.Dir = filepath.Clean(opt.To)
	}
	var head map[string]entry
	if opt.To == "" && !opt.Force && snap.Head != "" {
		ps := make([]string, len(plans))
		for i, p := range plans {
			ps[i] = p.path
		}
		if head, err = s.tree(ctx, snap, snap.Head, ps); err != nil {
			return RestoreResult{}, err
		}
	}
	var write []plan
	var refused []string
	for _, p := range plans {
		name := filepath.Join(res.Dir, filepath.FromSlash(p.path))
		now, link, err := onDisk(name, p.e.blob)
		if err != nil {
			return RestoreResult{}, fmt.Errorf("recovery: %w", err)
		}
		if now == p.e.blob && link == (p.e.mode == "120000") {
			if info, err := os.Lstat(name); err == nil && (link || info.Mode().Perm() == p.mode) {
				res.Unchanged = append(res.Unchanged, p.path)
				continue
			}
		}
		if now != "" && opt.To == "" && !opt.Force {
			if h, ok := head[p.path]; !ok || h.blob != now {
				refused = append(refused, p.path)
				continue
			}
		}
		write = append(write, p)
	}
	if len(refused) > 0 {
		return RestoreResult{Dir: res.Dir}, &ChangedError{Paths: refused}
	}
	for _, p := range write {
		if err := s.write(ctx, snap, res.Dir, p); err != nil {
			return res, err
		}
		res.Restored = append(res.Restored, p.path)
	}
	return res, nil
}

// plan lists the files a restore of paths writes: the snapshot's tree's
// files at those paths, or every file it lists as not deleted.
func (s *Store) plan(ctx context.Context, snap Snapshot, paths []string) ([]plan, error) {
	mode := map[string]fs.FileMode{}
	for _, f := range snap.Files {
		mode[f.Path] = fs.FileMode(f.Mode)
	}
	var want []string
	for _, p := range paths {
		p = path.Clean(filepath.ToSlash(p))
		if p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
			return nil, fmt.Errorf("recovery: %q is outside the worktree", p)
		}
		want = append(want, p)
	}
	if len(paths) == 0 {
		for _, f := range snap.Files {
			if f.State != StateDeleted {
				want = append(want, f.Path)
			}
		}
		if len(want) == 0 {
			return nil, nil
		}
	}
	tree, err := s.tree(ctx, snap, snap.Tree, want)
	if err != nil {
		return nil, err
	}
	if len(tree) == 0 {
		return nil, fmt.Errorf("recovery: snapshot %s holds no file at %s", snap.ID, joinBounded(want, 10))
	}
	var plans []plan
	for p, e := range tree {
		m, ok := mode[p]
		if !ok || m == 0 {
			m = 0o644
			if e.mode == "100755" {
				m = 0o755
			}
		}
		plans = append(plans, plan{path: p, e: e, mode: m})
	}
	slicesSortPlans(plans)
	return plans, nil
}

// write writes one file of the snapshot under dir.
func (s *Store) write(ctx context.Context, snap Snapshot, dir string, p plan) error {
	b, err := s.blob(ctx, snap, p.e.blob)
	if err != nil {
		return fmt.Errorf("recovery: %s: %w", p.path, err)
	}
	name := filepath.Join(dir, filepath.FromSlash(p.path))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("recovery: %w", err)
	}
	if p.e.mode != "120000" {
		return writeAtomic(name, b, p.mode)
	}
	tmp := filepath.Join(filepath.Dir(name), ".hall-restore-"+p.e.blob[:12])
	os.Remove(tmp)
	if err := os.Symlink(string(b), tmp); err != nil {
		return fmt.Errorf("recovery: %s: %w", p.path, err)
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("recovery: %s: %w", p.path, err)
	}
	return nil
}

// Diff compares a snapshot's files (those at paths, or those it lists
// as not deleted) with the worktree now, hashing at most MaxHashBytes of
// them (compare).
func (s *Store) Diff(ctx context.Context, id string, paths []string) ([]FileDiff, error) {
	snap, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	plans, err := s.plan(ctx, snap, paths)
	if err != nil {
		return nil, err
	}
	return s.compare(ctx, snap, plans) // hashing as little as it can, bounded (compare.go)
}

func slicesSortPlans(p []plan) {
	slices.SortFunc(p, func(a, b plan) int { return strings.Compare(a.path, b.path) })
}
