//go:build unix && !linux

package gitscan

import "os/exec"

// waitGroup waits for git, then kills what it left in its process group.
func waitGroup(cmd *exec.Cmd) error {
	err := cmd.Wait()
	_ = killGroup(cmd)
	return err
}
