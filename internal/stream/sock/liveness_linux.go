//go:build linux

package sock

import (
	"errors"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// liveness watches the hijacked streams for clients that went away with
// one epoll set and one goroutine, where net/http would keep a reader
// goroutine per stream: a client's hang-up wakes the loop, and an idle
// Hall holding ten thousand streams does no work for them.
type liveness struct {
	mu   sync.Mutex
	epfd int  // the epoll set, while open
	open bool // between Start and the pool's close
	byFD map[int32]*Stream
	fdOf map[*Stream]int32
}

// hangupEvents wake the loop once for a client that closed or reset its
// end; the loop re-arms a stream that turns out alive.
const hangupEvents = unix.EPOLLRDHUP | unix.EPOLLHUP | unix.EPOLLERR | unix.EPOLLONESHOT

// liveWait bounds one wait, so the loop sees the pool close.
const liveWait = 250 * time.Millisecond

// watchConn adds s to the set, unless it has ended: its descriptor,
// closed, could by now name another stream's socket.
func (p *Pool) watchConn(s *Stream) {
	if s.raw == nil {
		return
	}
	l := &p.live
	l.mu.Lock()
	defer l.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !l.open || s.ended {
		return
	}
	_ = s.raw.Control(func(fd uintptr) {
		ev := unix.EpollEvent{Events: hangupEvents, Fd: int32(fd)}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, int(fd), &ev); err == nil {
			l.byFD[int32(fd)], l.fdOf[s] = s, int32(fd)
		}
	})
}

// unwatchLocked takes s out of the set; the caller holds the set's lock.
// It runs before s's connection closes, so the descriptor cannot yet name
// another stream's socket.
func (p *Pool) unwatchLocked(s *Stream) {
	l := &p.live
	fd, ok := l.fdOf[s]
	if !ok {
		return
	}
	delete(l.fdOf, s)
	delete(l.byFD, fd)
	if l.open {
		_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, int(fd), nil)
	}
}

// openLiveness makes the epoll set; Start calls it before any stream can be
// watched. Without it (it failed), a gone client is noticed when a
// write to it fails, within a heartbeat.
func (p *Pool) openLiveness() {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		p.log.Error("stream socket: cannot watch for clients leaving; they are noticed when a write fails", "err", err)
		return
	}
	l := &p.live
	l.mu.Lock()
	l.epfd, l.open = epfd, true
	l.byFD, l.fdOf = map[int32]*Stream{}, map[*Stream]int32{}
	l.mu.Unlock()
}

// liveLoop waits for hang-ups and ends those streams, until the pool closes;
// then it closes the set.
func (p *Pool) liveLoop() {
	defer close(p.liveDone)
	l := &p.live
	l.mu.Lock()
	epfd, open := l.epfd, l.open
	l.mu.Unlock()
	if !open {
		<-p.stop
		return
	}
	defer func() {
		l.mu.Lock()
		l.open = false
		_ = unix.Close(l.epfd)
		l.epfd, l.byFD, l.fdOf = -1, nil, nil
		l.mu.Unlock()
	}()

	events := make([]unix.EpollEvent, 256)
	buf := make([]byte, 512)
	var hung []*Stream
	for {
		select {
		case <-p.stop:
			return
		default:
		}
		n, err := unix.EpollWait(epfd, events, int(liveWait.Milliseconds()))
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			p.log.Error("stream socket: watching for clients leaving failed", "err", err)
			<-p.stop
			return
		}
		l.mu.Lock()
		for _, ev := range events[:n] {
			if s, ok := l.byFD[ev.Fd]; ok {
				hung = append(hung, s)
			}
		}
		l.mu.Unlock()
		for _, s := range hung {
			if peerGone(s.raw, buf) {
				p.gone(s)
				continue
			}
			p.rearm(s) // a spurious wake-up, or the client sent data: still there
		}
		clear(hung)
		hung = hung[:0]
	}
}

// rearm watches s again after a wake-up that was not a hang-up.
func (p *Pool) rearm(s *Stream) {
	l := &p.live
	l.mu.Lock()
	defer l.mu.Unlock()
	if fd, ok := l.fdOf[s]; ok && l.open {
		ev := unix.EpollEvent{Events: hangupEvents, Fd: fd}
		_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, int(fd), &ev)
	}
}
