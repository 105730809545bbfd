//go:build !linux

package gitscan

import "os/exec"

// startNiced starts cmd: lowering a child's priority is done on Linux
// only (nice_linux.go).
func startNiced(cmd *exec.Cmd, _ int) error { return cmd.Start() }
