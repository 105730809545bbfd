package recovery

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hall-dev/hall/internal/filelock"
	"github.com/hall-dev/hall/internal/safefile"
)

// A snapshot Take answered for is finished in the background; a Hall
// killed in between (kill -9, a crash, the machine's power) leaves its
// directory, <id>.tmp, holding every object and a first record. The Hall
// taking it holds an advisory lock on <id>.taking (filelock.TryFile) until its
// record is in place: the kernel lets go of the lock when the process
// dies, however it dies. So whoever opens the store next (a Hall, hall
// restore) knows at once that a locked one is still being finished and
// an unlocked one is an orphan, finishes the orphans, and lists them
// (issue 40). A snapshot left without a lock file (by a Hall from before
// the lock) is taken for an orphan once older than orphanAfter.

// takingSuffix names a snapshot's lock while it is being finished.
const takingSuffix = ".taking"

// orphanAfter is how long a snapshot Take answered for, with no lock to
// tell, may stay unfinished before another store finishes it: its Hall
// stopped first.
const orphanAfter = 2 * FinishBudget

// holdTaking takes the lock of the snapshot id while it is finished;
// release lets go of it, its file removed.
func (s *Store) holdTaking(id string) (release func(), err error) {
	name := filepath.Join(s.dir, id+takingSuffix)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	if held, err := filelock.TryFile(f, filelock.Exclusive); err != nil || held {
		f.Close()
		if err == nil {
			err = fmt.Errorf("lock %s: held by another", name)
		}
		return nil, err
	}
	return func() {
		os.Remove(name) // before the lock goes: a store that sees it free sees the snapshot finished
		f.Close()
	}, nil
}

// The answers of taker.
type takerState uint8

const (
	takerUnknown takerState = iota // no lock file: a Hall from before the lock, or it just finished
	takerAlive                     // the lock is held: being finished
	takerGone                      // the lock is free: its Hall died before finishing it
)

// taker tells whether the Hall that took the snapshot id is finishing it.
func (s *Store) taker(id string) takerState {
	f, err := os.OpenFile(filepath.Join(s.dir, id+takingSuffix), os.O_RDONLY|syscall.O_CLOEXEC|safefile.ONoFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return takerUnknown
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return takerUnknown
	}
	if held, err := filelock.TryFile(f, filelock.Shared); err != nil || held {
		return takerAlive
	}
	return takerGone // the lock goes with f's close
}

// finishOrphans finishes every snapshot a dead Hall left unfinished:
// its lock free, or, with no lock, older than orphanAfter. Open calls it,
// whatever its limits (NoPrune too): a snapshot finished is not a
// snapshot dropped. A lock left with no snapshot is removed.
func (s *Store) finishOrphans(ctx context.Context) {
	if s.run == nil {
		return
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	now := s.now()
	for _, e := range entries {
		name := e.Name()
		if id, ok := strings.CutSuffix(name, takingSuffix); ok && validID(id) {
			if _, err := os.Lstat(filepath.Join(s.dir, id+".tmp")); errors.Is(err, fs.ErrNotExist) && s.taker(id) == takerGone {
				os.Remove(filepath.Join(s.dir, name))
			}
			continue
		}
		id, ok := strings.CutSuffix(name, ".tmp")
		if !ok || !validID(id) {
			continue
		}
		switch s.taker(id) {
		case takerGone:
		case takerUnknown:
			if info, err := e.Info(); err != nil || now.Sub(info.ModTime()) <= orphanAfter {
				continue
			}
		default:
			continue
		}
		if s.finishOrphan(ctx, name) {
			os.Remove(filepath.Join(s.dir, id+takingSuffix))
		}
	}
}

// finishOrphan finishes a snapshot a Hall took and stopped before
// recording (name, a directory <id>.tmp holding the record Take wrote
// first): it is claimed by a rename, so that two stores never finish it
// both, then finished as Take would have. It tells whether name was
// such a snapshot, finished or not. One its Hall still holds the lock of
// is left to it.
func (s *Store) finishOrphan(ctx context.Context, name string) bool {
	id, ok := strings.CutSuffix(name, ".tmp")
	if !ok || !validID(id) || s.run == nil {
		return false
	}
	s.mu.Lock()
	_, mine := s.pending[id]
	s.mu.Unlock()
	if mine || s.taker(id) == takerAlive {
		return false
	}
	b, err := os.ReadFile(filepath.Join(s.dir, name, recordName))
	if err != nil {
		return false
	}
	var snap Snapshot
	if err := json.Unmarshal(b, &snap); err != nil || snap.ID != id || snap.Tree == "" {
		return false
	}
	claimed := filepath.Join(s.dir, id+"."+strings.ToLower(rand.Text()[:8])+".tmp")
	if err := os.Rename(filepath.Join(s.dir, name), claimed); err != nil {
		return true // another store claimed it first
	}
	_, _ = s.finish(ctx, claimed, snap, nil, true)
	return true
}
