//go:build unix

package main

import "syscall"

// openFileLimit is the descriptors this process may open (the soft
// RLIMIT_NOFILE, which the Go runtime raises to the hard limit at start).
func openFileLimit() (int, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0, false
	}
	return int(rl.Cur), true
}
