package gitscan

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitGroup waits for git to end, then kills what it left in its process
// group (nothing the Hall asks git for runs on after it) before reaping
// it: git is still a zombie then, so its group's id cannot have been
// given to another process, and a child that kept git's output pipes
// open no longer holds Wait up.
func waitGroup(cmd *exec.Cmd) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	_ = killGroup(cmd)
	return cmd.Wait()
}
