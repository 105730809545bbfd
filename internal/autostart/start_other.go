//go:build !unix && !windows

package autostart

import (
	"errors"
	"io/fs"
	"syscall"
)

const exeSuffix = ".exe"

func detached() *syscall.SysProcAttr { return nil }

// tryLock: no Hall is started on this system (the Hall serves on unix).
func tryLock(string) (func(), bool, error) {
	return nil, false, errors.New("no Hall is started on this system: run hall serve")
}

// connRefused is what a refused dial wraps.
const connRefused = syscall.ECONNREFUSED

// runnable: a regular file is taken as a program.
func runnable(fs.FileMode) bool { return true }
