//go:build !unix

package main

// openFileLimit is unknown here: --max-streams defaults to the measured
// bound.
func openFileLimit() (int, bool) { return 0, false }
