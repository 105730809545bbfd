//go:build unix

package sock

import (
	"errors"
	"net"
	"syscall"
)

// rawConn is conn's descriptor, for writes and peeks that never block; nil
// when conn has none.
func rawConn(conn net.Conn) syscall.RawConn {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// writeNow writes frames to raw as far as its socket buffer takes them,
// without waiting, and returns what is left: nothing when all went out.
// An error means the client is gone. Without a descriptor nothing is
// written: a flusher writes it all.
func writeNow(raw syscall.RawConn, frames [][]byte) (rest [][]byte, err error) {
	if raw == nil {
		return frames, nil
	}
	var werr error
	err = raw.Write(func(fd uintptr) bool {
		for len(frames) > 0 {
			n, e := syscall.Write(int(fd), frames[0])
			switch {
			case errors.Is(e, syscall.EINTR):
				continue
			case errors.Is(e, syscall.EAGAIN):
				return true // full: a flusher waits for room
			case e != nil:
				werr = e
				return true
			case n < len(frames[0]):
				frames[0] = frames[0][n:]
				return true
			}
			frames = frames[1:]
		}
		return true // never wait for readiness here
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return nil, err
	}
	return frames, nil
}

// peerGone reports whether the client closed its end of the connection,
// without blocking: a non-blocking receive answers EOF (gone), "would
// block" (alive and quiet) or data, which an event stream ignores and
// drains.
func peerGone(raw syscall.RawConn, buf []byte) bool {
	if raw == nil {
		return false
	}
	gone := false
	err := raw.Read(func(fd uintptr) bool {
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
