//go:build unix

package autostart

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

const exeSuffix = ""

// connRefused is what a refused dial wraps.
const connRefused = syscall.ECONNREFUSED

// runnable: a program has an execute bit.
func runnable(m fs.FileMode) bool { return m.Perm()&0o111 != 0 }

// detached puts the started Hall in a session of its own: the agent that
// ran the hook, its terminal and its process group may end; the Hall
// lives on until its idle stop.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// tryLock takes an exclusive flock on name without waiting; held is true
// when another process has it.
func tryLock(name string) (unlock func(), held bool, err error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("autostart lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("autostart lock %s: %w", name, err)
	}
	return func() { f.Close() }, false, nil
}
