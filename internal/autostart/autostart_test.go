package autostart

import (
	"errors"
	"net"
	"syscall"
	"testing"
)

func TestLoopbackAddr(t *testing.T) {
	for _, tc := range []struct {
		url, want string
		ok        bool
	}{
		{"http://127.0.0.1:7433", "127.0.0.1:7433", true},
		{"http://localhost:7433/", "localhost:7433", true},
		{"http://[::1]:7433", "[::1]:7433", true},
		{"http://127.0.0.2:80", "127.0.0.2:80", true},
		{"http://127.0.0.1", "", false}, // no port: not the Hall's own form
		{"https://127.0.0.1:7433", "", false},
		{"http://10.0.0.5:7433", "", false},
		{"http://0.0.0.0:7433", "", false},
		{"http://hall.example:7433", "", false},
		{"http://localhost.example:7433", "", false},
		{"::nonsense", "", false},
	} {
		got, ok := LoopbackAddr(tc.url)
		if got != tc.want || ok != tc.ok {
			t.Errorf("LoopbackAddr(%q) = %q, %v; want %q, %v", tc.url, got, ok, tc.want, tc.ok)
		}
	}
}

// TestRefused: only a refused connection starts a Hall.
func TestRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = net.Dial("tcp", addr)
	if !Refused(err) {
		t.Errorf("Refused(%v) = false, want true", err)
	}
	if Refused(errors.New("timeout")) || Refused(syscall.ECONNRESET) || Refused(nil) {
		t.Errorf("Refused is true for another error")
	}
}

// TestStartNeverRemote: an address beyond loopback is refused before
// anything is looked up or started.
func TestStartNeverRemote(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if err := Start(t.Context(), Config{Hall: "http://192.0.2.1:7433", Program: "/bin/false"}); err == nil {
		t.Errorf("Start for a remote address: nil error")
	}
}
