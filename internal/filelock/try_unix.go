//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// tryFile is TryFile by flock(2).
func tryFile(f *os.File, mode Mode) (bool, error) {
	how := syscall.LOCK_SH
	if mode == Exclusive {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
