//go:build windows

package autostart

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

const exeSuffix = ".exe"

// Win32 values the syscall package does not name (hall-hook links the
// standard library only, so not golang.org/x/sys/windows either).
const (
	// connRefused is WSAECONNREFUSED: what a refused dial wraps on
	// Windows (ECONNREFUSED there is Go's own invented number).
	connRefused = syscall.Errno(10061)
	// errSharingViolation is ERROR_SHARING_VIOLATION: another process
	// has the file open and shares it with none.
	errSharingViolation = syscall.Errno(32)
	// detachedProcess is DETACHED_PROCESS: no console, so closing the
	// agent's console window does not end the Hall.
	detachedProcess = 0x00000008
)

// runnable: Windows runs a file by its name (.exe), not a mode bit.
func runnable(fs.FileMode) bool { return true }

// detached starts the Hall with no console and in a process group of its
// own, so the agent's Ctrl+C is not the Hall's. What it cannot do: leave
// a job object the agent runs its hooks in and that kills its processes
// when it closes (breaking away fails when the job forbids it); a Hall
// ended so is started again by the next hook.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: detachedProcess | syscall.CREATE_NEW_PROCESS_GROUP, HideWindow: true}
}

// tryLock opens name shared with no other opener: while this process
// holds it open, every other open fails (ERROR_SHARING_VIOLATION), and
// Windows closes it when the process ends however it ends. held is true
// when another process has it.
func tryLock(name string) (unlock func(), held bool, err error) {
	p, err := syscall.UTF16PtrFromString(name)
	if err != nil {
		return nil, false, fmt.Errorf("autostart lock %s: %w", name, err)
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil, syscall.OPEN_ALWAYS,
		syscall.FILE_ATTRIBUTE_NORMAL|syscall.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if errors.Is(err, errSharingViolation) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("autostart lock %s: %w", name, err)
	}
	return func() { syscall.CloseHandle(h) }, false, nil
}
