// Package natstest starts real NATS servers with JetStream inside the test
// process, on loopback, with their storage in the test's temp directory: a
// single server, a server on a port chosen in advance (to start it after a
// client already dials it), a clustered set for failover tests, and a
// Proxy that plays a frozen server.
//
// It is a helper for tests only (and for hallbench's soak, which pauses
// its Proxy); nothing in the Hall's binary imports it, so the server code
// never ships in the hall binary.
package natstest

import (
	"fmt"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// readyWait bounds how long a server may take to accept clients; generous,
// because CI machines are small and busy.
const readyWait = 20 * time.Second

// Server is one in-process NATS server with JetStream.
type Server struct {
	*server.Server
	Port int
}

// URL is the server's client URL, nats://127.0.0.1:<port>.
func (s *Server) URL() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.Port) }

// RunServer starts a standalone JetStream server on 127.0.0.1:port (0 picks
// a free one) and shuts it down when the test ends.
func RunServer(tb testing.TB, port int) *Server {
	tb.Helper()
	return RunServerAt(tb, port, tb.TempDir())
}

// RunServerAt is RunServer with JetStream storage in dir, so a test can
// stop a server and start another on the same port and the same data, as
// a restarted server would come back.
func RunServerAt(tb testing.TB, port int, dir string) *Server {
	tb.Helper()
	if port == 0 {
		port = -1
	}
	opts := baseOptions(tb, "solo", port)
	opts.StoreDir = dir
	return start(tb, opts)
}

// FreePort returns a loopback TCP port that was free a moment ago, for a
// server a test starts later on a port its client already dials.
func FreePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("pick a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// RunCluster starts n clustered JetStream servers routed to each other and
// waits until their meta group has a leader, so streams with n replicas can
// be created at once. Each shuts down when the test ends (a test may shut
// one down earlier to simulate a lost node).
func RunCluster(tb testing.TB, n int) []*Server {
	tb.Helper()
	routePorts := make([]int, n)
	for i := range routePorts {
		routePorts[i] = FreePort(tb)
	}
	var routes []*url.URL
	for _, p := range routePorts {
		routes = append(routes, &url.URL{Scheme: "nats-route", Host: fmt.Sprintf("127.0.0.1:%d", p)})
	}
	servers := make([]*Server, n)
	for i := range servers {
		opts := baseOptions(tb, fmt.Sprintf("n%d", i+1), -1)
		opts.Cluster = server.ClusterOpts{Name: "hall-test", Host: "127.0.0.1", Port: routePorts[i]}
		opts.Routes = routes
		servers[i] = start(tb, opts)
	}
	deadline := time.Now().Add(readyWait)
	for !clusterReady(servers) {
		if time.Now().After(deadline) {
			tb.Fatalf("the %d-node JetStream cluster elected no meta leader within %s", n, readyWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return servers
}

func clusterReady(servers []*Server) bool {
	leader := false
	for _, s := range servers {
		if !s.JetStreamIsCurrent() {
			return false
		}
		leader = leader || s.JetStreamIsLeader()
	}
	return leader
}

func baseOptions(tb testing.TB, name string, port int) *server.Options {
	return &server.Options{
		ServerName: name,
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   tb.TempDir(),
		NoLog:      true,
		NoSigs:     true,
		// Keep in-process servers small: tests hold a few KiB each.
		JetStreamMaxMemory: 64 << 20,
		JetStreamMaxStore:  256 << 20,
	}
}

func start(tb testing.TB, opts *server.Options) *Server {
	tb.Helper()
	s, err := server.NewServer(opts)
	if err != nil {
		tb.Fatalf("new nats server: %v", err)
	}
	go s.Start()
	if !s.ReadyForConnections(readyWait) {
		s.Shutdown()
		tb.Fatalf("nats server %s not ready within %s", opts.ServerName, readyWait)
	}
	tb.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return &Server{Server: s, Port: s.Addr().(*net.TCPAddr).Port}
}
