package natstest

import (
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections from a loopback port to a server, and can
// stop forwarding while keeping every connection open: what a client sees
// of a frozen server (SIGSTOP, a hung host, a black-holed route), which an
// in-process server cannot play.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	paused chan struct{} // closed on Resume; nil while forwarding
	conns  []net.Conn
	closed bool
	wg     sync.WaitGroup
}

// NewProxy listens on 127.0.0.1:0 and forwards to target (host:port) until
// the test ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	p, err := StartProxy(target)
	if err != nil {
		tb.Fatalf("proxy: %v", err)
	}
	tb.Cleanup(p.Close)
	return p
}

// StartProxy is NewProxy outside a test (the soak's frozen server): the
// caller closes it.
func StartProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy listen: %w", err)
	}
	p := &Proxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// URL is the proxy's client URL, nats://127.0.0.1:<port>.
func (p *Proxy) URL() string { return fmt.Sprintf("nats://%s", p.ln.Addr()) }

// Pause stops forwarding: bytes already read wait, nothing more is sent
// either way, and connections stay open (new ones are accepted, not
// forwarded).
func (p *Proxy) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused == nil {
		p.paused = make(chan struct{})
	}
}

// Resume forwards again, what waited first.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused != nil {
		close(p.paused)
		p.paused = nil
	}
}

// gate waits while the proxy is paused.
func (p *Proxy) gate() {
	p.mu.Lock()
	ch := p.paused
	p.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.gate()
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				return
			}
			p.mu.Lock()
			if p.closed {
				p.mu.Unlock()
				c.Close()
				s.Close()
				return
			}
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			p.wg.Add(2)
			go p.pipe(s, c)
			go p.pipe(c, s)
		}()
	}
}

// pipe copies from src to dst, holding each chunk while paused.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.gate()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				src.Close()
			}
			return
		}
	}
}

// Close stops listening, resumes what waits, closes every connection and
// waits for the forwarding to end.
func (p *Proxy) Close() {
	p.ln.Close()
	p.Resume()
	p.mu.Lock()
	p.closed = true
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
