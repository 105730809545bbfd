package main

import (
	"net"
	"net/http"
	"sync"
)

// freshConns tracks the server's connections that have not yet read a
// byte of a request (http.StateNew). http.Server.Shutdown waits up to five
// seconds for such a connection before it counts it idle, past the Hall's
// two-second grace: a client's transport that dialled a spare connection
// and never used it (an HTTP client does, when the request it dialled for
// is cancelled first) held every shutdown near an MCP session that way.
// At shutdown they are closed: no request is in flight on them, so nothing
// is cut short that a closed listener would not refuse anyway.
type freshConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// track is the server's ConnState hook.
func (f *freshConns) track(c net.Conn, st http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if st == http.StateNew {
		if f.conns == nil {
			f.conns = make(map[net.Conn]struct{})
		}
		f.conns[c] = struct{}{}
		return
	}
	delete(f.conns, c)
}

// close closes every connection still waiting for its first request. It
// runs from Shutdown (RegisterOnShutdown), once the listeners are closed.
func (f *freshConns) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		_ = c.Close()
	}
	clear(f.conns)
}
