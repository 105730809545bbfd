//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// subscribeEpoll is the subscribe role as a lean client: raw sockets and
// one epoll loop read every stream, the way an event-driven load
// generator (wrk, say) does, so that on the two cores it shares with the
// Hall it costs one read a message rather than a goroutine waking up and
// two reads through net/http's layers. It speaks just enough HTTP/1.1: a
// GET, a 200 head, then the event stream to the connection's end.
func subscribeEpoll(ctx context.Context, o options) (subscribeResult, error) {
	u, err := url.Parse(o.url)
	if err != nil {
		return subscribeResult{}, fmt.Errorf("subscribe: %w", err)
	}
	addr, err := net.ResolveTCPAddr("tcp4", u.Host)
	if err != nil {
		return subscribeResult{}, fmt.Errorf("subscribe: %w", err)
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return subscribeResult{}, fmt.Errorf("subscribe: epoll: %w", err)
	}
	defer unix.Close(epfd)

	req := []byte("GET /api/presences/stream HTTP/1.1\r\nHost: " + u.Host + "\r\nAccept: text/event-stream\r\n\r\n")
	streams := make(map[int32]*rawStream, o.subs)
	defer func() {
		for fd := range streams {
			unix.Close(int(fd))
		}
	}()
	for i := 0; i < o.subs; i++ {
		fd, err := dialRaw(addr, req)
		if err != nil {
			return subscribeResult{}, fmt.Errorf("subscribe: stream %d: %w", i, err)
		}
		streams[int32(fd)] = &rawStream{}
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)}
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return subscribeResult{}, fmt.Errorf("subscribe: epoll add: %w", err)
		}
	}

	var (
		lats           []time.Duration
		readyN, doneN  int
		open           = len(streams)
		announced      bool
		events         = make([]unix.EpollEvent, 512)
		buf            = make([]byte, 256<<10)
		deadline       = time.Now().Add(o.duration)
		marker         = []byte(`"agent_id":"` + probePrefix)
		snapshotMarker = []byte("event: snapshot")
	)
	for doneN < open && time.Now().Before(deadline) && ctx.Err() == nil {
		n, err := unix.EpollWait(epfd, events, 200)
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return subscribeResult{}, fmt.Errorf("subscribe: epoll wait: %w", err)
		}
		for _, ev := range events[:n] {
			st := streams[ev.Fd]
			if st == nil || st.closed {
				continue
			}
			for {
				k, err := unix.Read(int(ev.Fd), buf)
				if errors.Is(err, unix.EINTR) {
					continue
				}
				if errors.Is(err, unix.EAGAIN) {
					break
				}
				now := time.Now()
				if err != nil || k == 0 {
					st.closed = true
					open--
					unix.EpollCtl(epfd, unix.EPOLL_CTL_DEL, int(ev.Fd), nil)
					if !st.ready {
						readyN++ // a failed stream does not hold the others up
					}
					break
				}
				wasReady := st.ready
				for _, at := range st.feed(buf[:k], marker, snapshotMarker) {
					lats = append(lats, now.Sub(time.Unix(0, at)))
				}
				if st.ready && !wasReady {
					readyN++
				}
				if st.seen >= o.probes && !st.done {
					st.done = true
					doneN++
				}
				if k < len(buf) {
					break // drained: the next read would say EAGAIN
				}
			}
		}
		if !announced && readyN == len(streams) {
			announced = true
			fmt.Fprintln(os.Stdout, "ready")
		}
	}
	res := subscribeResult{Samples: len(lats)}
	for _, st := range streams {
		if st.status == 200 {
			res.Connected++
			res.Missed += max(o.probes-st.seen, 0)
		}
	}
	if res.Connected == 0 {
		return res, errors.New("subscribe: no stream was answered 200")
	}
	res.P50Ms, res.P99Ms, res.MaxMs = pct(lats, 0.5), pct(lats, 0.99), pct(lats, 1)
	return res, nil
}

// dialRaw connects a blocking socket, sends req, and leaves the socket
// non-blocking for the epoll loop.
func dialRaw(addr *net.TCPAddr, req []byte) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	sa := &unix.SockaddrInet4{Port: addr.Port}
	copy(sa.Addr[:], addr.IP.To4())
	if err := unix.Connect(fd, sa); err != nil {
		unix.Close(fd)
		return -1, err
	}
	for rest := req; len(rest) > 0; {
		n, err := unix.Write(fd, rest)
		if err != nil {
			unix.Close(fd)
			return -1, err
		}
		rest = rest[n:]
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// rawStream is one stream's reading state. Only a short tail of what was
// read is kept, so a marker split between two reads is still found, and
// a large snapshot costs no memory.
type rawStream struct {
	head   []byte // the response head, until its blank line
	status int
	tail   []byte
	ready  bool // the snapshot event arrived
	seen   int  // probe joins seen
	done   bool
	closed bool
}

// feed takes the next bytes read and returns the write times (Unix ns)
// of the probes they complete.
func (s *rawStream) feed(b, marker, snapshot []byte) []int64 {
	if s.status == 0 {
		s.head = append(s.head, b...)
		i := bytes.Index(s.head, []byte("\r\n\r\n"))
		if i < 0 {
			return nil
		}
		s.status = 1
		if f := bytes.Fields(s.head[:i]); len(f) >= 2 {
			if code, err := strconv.Atoi(string(f[1])); err == nil {
				s.status = code
			}
		}
		b = s.head[i+4:]
		s.head = nil
	}
	data := append(s.tail, b...)
	var probes []int64
	if !s.ready && bytes.Contains(data, snapshot) {
		s.ready = true
	}
	scanned := 0
	for {
		k := bytes.Index(data[scanned:], marker)
		if k < 0 {
			break
		}
		start := scanned + k + len(marker)
		end := bytes.IndexByte(data[start:], '"')
		if end < 0 {
			scanned += k // incomplete: keep it for the next read
			break
		}
		if ns, err := strconv.ParseInt(string(data[start:start+end]), 10, 64); err == nil && s.ready {
			probes = append(probes, ns)
			s.seen++
		}
		scanned = start + end
	}
	// Keep what a marker split by the next read could start in.
	keep := max(len(data)-64, scanned)
	s.tail = append(s.tail[:0], data[keep:]...)
	return probes
}
