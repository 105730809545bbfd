package dirstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// LockName is the advisory lock file a Hall holds in the registry root.
const LockName = "hall.lock"

// Lock is a Hall's hold on a registry folder: flock(2) on
// <registry root>/hall.lock, held while the Lock is open and let go by the
// kernel when the process ends however it ends, so a crashed Hall never
// leaves a folder locked. The file holds a note saying who holds it.
//
// The lock is advisory and only tells: two Halls serving one folder both
// work (each reads the other's writes, and writes of one presence meet by
// presence.Merge), but each keeps its own throttle and its own boot
// reclaim, which is rarely what was meant. The second one to start warns,
// naming the first (see TryLock); a viewer Hall started on purpose beside
// another is welcome to ignore it.
type Lock struct{ f *os.File }

// TryLock takes the lock on registryRoot's folder, without waiting, and
// writes note into the lock file. When another process holds it, it
// returns a nil Lock and what that holder wrote (its note, or "" when it
// wrote none yet). An error means the lock could not be tried at all (the
// root cannot be written): the caller goes on without it.
func TryLock(registryRoot, note string) (*Lock, string, error) {
	p := filepath.Join(registryRoot, LockName)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, "", fmt.Errorf("open %s: %w", p, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			held, _ := io.ReadAll(io.LimitReader(f, 1024))
			return nil, strings.TrimSpace(string(held)), nil
		}
		return nil, "", fmt.Errorf("lock %s: %w", p, err)
	}
	l := &Lock{f: f}
	if err := l.SetNote(note); err != nil {
		l.Close()
		return nil, "", err
	}
	return l, "", nil
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
