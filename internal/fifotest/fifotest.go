// Package fifotest makes the FIFOs the tests of hostile files put where a
// regular file belongs (a record, git's index, an agent's settings): a
// FIFO's plain open waits for a writer for ever, which the Hall must never
// do. Windows has no FIFO: there a test that needs one is skipped, as the
// file it stands for cannot exist.
package fifotest

import "testing"

// Make makes a FIFO at path, or fails tb.
func Make(tb testing.TB, path string) {
	tb.Helper()
	mkfifo(tb, path)
}
