//go:build !unix

package autostart

import (
	"errors"
	"syscall"
)

const exeSuffix = ".exe"

func detached() *syscall.SysProcAttr { return nil }

// tryLock: no Hall is started on this system (the Hall serves on unix).
func tryLock(string) (func(), bool, error) {
	return nil, false, errors.New("no Hall is started on this system: run hall serve")
}
