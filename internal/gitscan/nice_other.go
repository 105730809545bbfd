//go:build !linux

package gitscan

import "os/exec"

// startLowered starts cmd: lowering a child's priority is done on Linux
// only (nice_linux.go).
func startLowered(cmd *exec.Cmd, _ int, _ bool) error { return cmd.Start() }
