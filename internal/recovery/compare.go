package recovery

import (
	"fmt"
	"io/fs"
	"os"
	"time"
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

// compare tells how each planned file of a snapshot (its sizes known)
// compares with the worktree beneath root now, hashing as little as it
// can:
//
//   - gone: missing; under a symbolic link or not a directory, or not a
//     file or link now (a FIFO, a directory): changed, why says;
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
func (s *Store) compare(snap Snapshot, root *os.Root, plans []plan) ([]FileDiff, error) {
	trust := !snap.Taken.After(time.Now())
	before := snap.Taken.Add(-racyCompare)
	budget := int64(MaxHashBytes)
	out := make([]FileDiff, 0, len(plans))
	for _, p := range plans {
		d := FileDiff{Path: p.path, State: DiffChanged}
		now, info, err := lookStat(root, p.path, p.blob)
		if err != nil {
			return nil, fmt.Errorf("recovery: %w", err)
		}
		if now.kind == diskRegular && !p.link() {
			switch {
			case info.Size() != p.size:
				out = append(out, d) // changed, unhashed
				continue
			case trust && changedAt(info).Before(before):
				d.State = DiffSame
				out = append(out, d)
				continue
			case info.Size() > budget:
				d.State, d.Note = DiffNotCompared, notComparedNote
				out = append(out, d)
				continue
			}
			budget -= info.Size()
			s.hashed.Add(info.Size())
		}
		if now.kind == diskRegular {
			if now, err = hashRegular(root, p.path, p.blob); err != nil {
				return nil, fmt.Errorf("recovery: %w", err)
			}
		}
		switch {
		case now.blocked != "":
			d.Why = now.blocked
		case now.kind == diskOther:
			d.Why = now.what + " is there"
		case now.kind == diskAbsent:
			d.State = DiffMissing
		case now.same(p.entry):
			d.State = DiffSame
		}
		out = append(out, d)
	}
	return out, nil
}

// changedAt is the later of a file's status change and modification
// times.
func changedAt(info fs.FileInfo) time.Time {
	t := info.ModTime()
	c, ok := statusChanged(info)
	if !ok {
		return time.Now() // no ctime known (Windows): never trusted unhashed
	}
	if c.After(t) {
		t = c
	}
	return t
}
