//go:build unix

package stream

import (
	"errors"
	"net"
	"syscall"
)

// peerGone reports whether the client closed its end of conn, without
// blocking: a non-blocking receive answers EOF (gone), "would block" (alive
// and quiet) or data, which an event stream ignores and drains.
func peerGone(conn net.Conn, buf []byte) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	gone := false
	err = raw.Read(func(fd uintptr) bool {
		for {
			n, _, err := syscall.Recvfrom(int(fd), buf, syscall.MSG_DONTWAIT)
			switch {
			case n > 0:
				continue // a client has nothing to say on an event stream
			case err == nil: // n == 0: an orderly close
				gone = true
			case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EINTR):
			default: // reset, or anything else: the peer is gone
				gone = true
			}
			return true // never wait for readiness: this is a peek
		}
	})
	return gone || err != nil
}
