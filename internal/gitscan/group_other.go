//go:build !unix

package gitscan

import "os/exec"

// ownGroup leaves cmd as it is where process groups are not unix's: the
// context's cancel kills git alone.
func ownGroup(*exec.Cmd) {}

// waitGroup waits for git.
func waitGroup(cmd *exec.Cmd) error { return cmd.Wait() }
