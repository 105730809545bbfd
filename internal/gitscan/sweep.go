package gitscan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/filelock"
)

// The temporary folders this package makes, by the start of their names
// (os.MkdirTemp): a scanner's scratch, held by its lock for the scanner's
// life, and a snapshot's copied index, which lives one snapshot.
const (
	scratchPrefix = "hall-scratch-"
	indexPrefix   = "hall-gitscan-"
)

// Ages past which SweepTemp takes a folder for a dead process's: a
// scratch's lock file is written just after it is taken (so one younger
// may be a scanner starting, its lock not yet taken), and a snapshot's
// index lives a few git processes, each bounded by its timeout.
const (
	scratchLockGrace = time.Minute
	indexMaxAge      = time.Hour
)

// SweepTemp removes from dir (the system's temporary folder) what a
// process killed without warning (kill -9, a crash, the power) left
// behind: scratches (hall-scratch-*) whose lock no process holds, and
// snapshot indexes (hall-gitscan-*) older than an hour. A scratch without
// a lock file (an older Hall's, or one being made) is left alone. It
// answers the folders it removed.
func SweepTemp(dir string, now time.Time) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), scratchPrefix):
			if !deadScratch(p, now) {
				continue
			}
		case strings.HasPrefix(e.Name(), indexPrefix):
			info, err := e.Info()
			if err != nil || now.Sub(info.ModTime()) < indexMaxAge {
				continue
			}
		default:
			continue
		}
		if os.RemoveAll(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// deadScratch reports whether the scratch at p was left by a process
// that is gone: its lock file is older than scratchLockGrace and no
// process holds it.
func deadScratch(p string, now time.Time) bool {
	info, err := os.Lstat(filepath.Join(p, filelock.Name))
	if errors.Is(err, fs.ErrNotExist) || err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) < scratchLockGrace {
		return false
	}
	l, _, err := filelock.TryLock(p, "swept")
	if err != nil || l == nil {
		return false // held: its scanner lives
	}
	_ = l.Close()
	return true
}
