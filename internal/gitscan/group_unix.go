//go:build unix

package gitscan

import (
	"os/exec"
	"syscall"
)

// ownGroup has cmd start in a process group of its own, whose id is its
// pid, so killGroup reaches every process git starts (a hook, a filter,
// an fsmonitor) that did not leave the group.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills the process group cmd leads, every process of it.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
