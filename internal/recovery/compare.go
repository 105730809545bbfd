package recovery

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
)

// MaxHashBytes bounds the bytes of worktree files one comparison (Diff)
// hashes: a read that names a 1 GiB file, or the whole tree, costs at
// most this much of the disk and the CPU, whatever it asks.
const MaxHashBytes = 64 << 20

// DiffNotCompared is a FileDiff's state for a file Diff did not hash:
// its size is the snapshot's and it changed since (see compare), but
// hashing it would take the call past MaxHashBytes.
const DiffNotCompared = "not_compared"

// notComparedNote is what a FileDiff in DiffNotCompared says.
var notComparedNote = fmt.Sprintf("not compared: too large to hash here (a comparison hashes at most %d MiB)", MaxHashBytes>>20)

// racyCompare is how close to the snapshot's time a file's change may be
// and still be hashed: a filesystem's clock tick, and the moments between
// the snapshot's time and git reading the file.
const racyCompare = 2 * time.Second

// compare tells how each planned file of a snapshot compares with the
// worktree now, hashing as little as it can:
//
//   - gone, or not a file or link: missing;
//   - a link: its target hashed (a few bytes);
//   - a regular file whose size differs from the snapshot's blob:
//     changed, unhashed;
//   - a regular file of the blob's size whose status and modification
//     times (ctime, mtime) are both older than the snapshot by over
//     racyCompare: same, unhashed. Nothing wrote it, renamed it or
//     changed its mode since before the snapshot read it (the ctime
//     cannot be set back by a program), so it holds what the snapshot
//     read. A snapshot whose time is ahead of this machine's clock (a
//     test's clock) never takes this shortcut;
//   - any other: hashed as git would (the blob's id), while the call has
//     hashed less than MaxHashBytes; past it, DiffNotCompared.
func (s *Store) compare(ctx context.Context, snap Snapshot, plans []plan) ([]FileDiff, error) {
	sizes, err := s.blobSizes(ctx, snap, plans)
	if err != nil {
		return nil, err
	}
	trust := !snap.Taken.After(time.Now())
	before := snap.Taken.Add(-racyCompare)
	budget := int64(MaxHashBytes)
	out := make([]FileDiff, 0, len(plans))
	for _, p := range plans {
		name := filepath.Join(snap.Worktree, filepath.FromSlash(p.path))
		link := p.e.mode == "120000"
		d := FileDiff{Path: p.path, State: DiffChanged}
		info, err := os.Lstat(name)
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !isNotDir(err):
			return nil, fmt.Errorf("recovery: %w", err)
		case err != nil, !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0:
			d.State = DiffMissing
		case info.Mode().IsRegular() && !link:
			size, known := sizes[p.e.blob]
			switch {
			case known && info.Size() != size:
				// changed, unhashed
			case known && trust && changedAt(info).Before(before):
				d.State = DiffSame
			case info.Size() > budget:
				d.State, d.Note = DiffNotCompared, notComparedNote
			default:
				budget -= info.Size()
				s.hashed.Add(info.Size())
				if d.State, err = s.hashState(name, p); err != nil {
					return nil, err
				}
			}
		default: // a link, or a file where the snapshot had a link: cheap to hash
			if d.State, err = s.hashState(name, p); err != nil {
				return nil, err
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// hashState hashes the file at name (onDisk) against the planned one.
func (s *Store) hashState(name string, p plan) (string, error) {
	now, link, err := onDisk(name, p.e.blob)
	switch {
	case err != nil:
		return "", fmt.Errorf("recovery: %w", err)
	case now == "":
		return DiffMissing, nil
	case now == p.e.blob && link == (p.e.mode == "120000"):
		return DiffSame, nil
	default:
		return DiffChanged, nil
	}
}

// changedAt is the later of a file's status change and modification
// times.
func changedAt(info fs.FileInfo) time.Time {
	t := info.ModTime()
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		if c := time.Unix(st.Ctim.Sec, st.Ctim.Nsec); c.After(t) {
			t = c
		}
	} else {
		return time.Now() // no ctime known: never trusted unhashed
	}
	return t
}

// isNotDir tells an error of a path whose parent is not a directory.
func isNotDir(err error) bool {
	return errors.Is(err, syscall.ENOTDIR)
}

// blobSizes are the sizes of the planned regular files' blobs in the
// snapshot (git cat-file --batch-check): one git, however many files.
func (s *Store) blobSizes(ctx context.Context, snap Snapshot, plans []plan) (map[string]int64, error) {
	var in bytes.Buffer
	for _, p := range plans {
		if p.e.mode != "120000" {
			in.WriteString(p.e.blob + "\n")
		}
	}
	sizes := map[string]int64{}
	if in.Len() == 0 {
		return sizes, nil
	}
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: snap.GitDir, Env: s.env(snap), Stdin: in.Bytes(),
		Args: []string{"cat-file", "--batch-check=%(objectname) %(objectsize)"}})
	if err != nil {
		return nil, fmt.Errorf("recovery: sizes of snapshot %s: %w", snap.ID, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out.Stdout))
	for sc.Scan() {
		id, size, ok := strings.Cut(sc.Text(), " ")
		if n, err := strconv.ParseInt(size, 10, 64); ok && err == nil {
			sizes[id] = n
		}
	}
	return sizes, nil
}
