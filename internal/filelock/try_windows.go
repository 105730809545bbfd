//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockedByte is the offset of the one byte LockFileEx locks: far past any
// note, and past the end of the file is allowed.
const lockedByte = 1 << 62

// tryFile is TryFile by LockFileEx, without waiting.
func tryFile(f *os.File, mode Mode) (bool, error) {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if mode == Exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	ol := windows.Overlapped{Offset: uint32(lockedByte & 0xffffffff), OffsetHigh: uint32(lockedByte >> 32)}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return true, nil
	}
	return false, err
}
