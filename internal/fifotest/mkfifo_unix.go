//go:build unix

package fifotest

import (
	"syscall"
	"testing"
)

func mkfifo(tb testing.TB, path string) {
	tb.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		tb.Fatal(err)
	}
}
