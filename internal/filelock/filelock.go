// Package filelock is an advisory lock a process holds on a folder: flock(2)
// on a file in it (LockFileEx on Windows), let go by the kernel when the
// process ends however it ends, with a note in the file saying who holds
// it. The registry folder's lock (dirstore) and the git scanner's scratch
// folders (gitscan) both use it; it knows nothing of either. TryFile is
// the same lock on a file a caller opened (recovery's snapshot locks).
package filelock

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hall-dev/hall/internal/safefile"
)

// Name is the lock file's name in the folder it locks.
const Name = "hall.lock"

// Lock is a hold on a folder: flock(2) on <folder>/hall.lock, held while
// the Lock is open and let go by the kernel when the process ends however
// it ends, so a crashed process never leaves a folder locked. The file
// holds a note saying who holds it. The lock is advisory: it only tells.
type Lock struct{ f *os.File }

// TryLock takes the lock on dir, without waiting, and writes note into
// the lock file. When another process holds it, it returns a nil Lock and
// what that holder wrote (its note, or "" when it wrote none yet). An
// error means the lock could not be tried at all (the folder cannot be
// written): the caller goes on without it.
func TryLock(dir, note string) (*Lock, string, error) {
	p := filepath.Join(dir, Name)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|safefile.ONoFollow|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, "", fmt.Errorf("open %s: %w", p, err)
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, "", fmt.Errorf("lock %s: %w", p, safefile.ErrNotRegular)
	}
	held, err := TryFile(f, Exclusive)
	if err != nil {
		f.Close()
		return nil, "", fmt.Errorf("lock %s: %w", p, err)
	}
	if held {
		defer f.Close()
		note, _ := io.ReadAll(io.LimitReader(f, 1024))
		return nil, strings.TrimSpace(string(note)), nil
	}
	l := &Lock{f: f}
	if err := l.SetNote(note); err != nil {
		l.Close()
		return nil, "", err
	}
	return l, "", nil
}

// Mode is a lock's kind: one holder, or many readers.
type Mode bool

const (
	// Exclusive excludes every other holder.
	Exclusive Mode = true
	// Shared excludes only an exclusive holder.
	Shared Mode = false
)

// TryFile takes the advisory lock of the open file f, without waiting:
// held is true when another holder's lock excludes it. The lock goes with
// f's close, or with the process. On unix it is flock(2), one per open
// file; on Windows LockFileEx on one byte far past any note the file
// holds (Windows locks are mandatory for the bytes they cover, so a
// lock on the note would keep the others from reading who holds it).
func TryFile(f *os.File, mode Mode) (held bool, err error) {
	return tryFile(f, mode)
}

// SetNote replaces what the lock file says of its holder.
func (l *Lock) SetNote(note string) error {
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("write %s: %w", l.f.Name(), err)
	}
	if _, err := l.f.WriteAt([]byte(note+"\n"), 0); err != nil {
		return fmt.Errorf("write %s: %w", l.f.Name(), err)
	}
	return nil
}

// Close lets the lock go. The file stays, saying who held it last; an
// unheld lock file means nothing.
func (l *Lock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
