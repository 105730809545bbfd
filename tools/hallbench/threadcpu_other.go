//go:build !linux

package main

import "time"

// threadCPU has no per-thread clock here: the in-process figures give the
// wall clock alone.
func threadCPU() (time.Duration, bool) { return 0, false }
