//go:build !unix

package sock

import (
	"net"
	"syscall"
)

// rawConn has no use here: every write goes through a flusher.
func rawConn(net.Conn) syscall.RawConn { return nil }

// writeNow cannot write without blocking here: a flusher writes it all.
func writeNow(_ syscall.RawConn, frames [][]byte) ([][]byte, error) { return frames, nil }

// peerGone cannot peek without blocking here: a gone client is noticed
// when a write to it fails (within a heartbeat).
func peerGone(syscall.RawConn, []byte) bool { return false }
