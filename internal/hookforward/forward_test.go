package hookforward

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/hook"
)

// TestMaxPayloadIsTheHalls: hall-hook reads as much as the Hall takes.
func TestMaxPayloadIsTheHalls(t *testing.T) {
	if MaxPayload != hook.MaxPayload {
		t.Errorf("MaxPayload %d, the Hall's %d", MaxPayload, hook.MaxPayload)
	}
}

func TestParseResponse(t *testing.T) {
	for _, c := range []struct {
		name, raw  string
		status     int
		body, fail string
	}{
		{"ok", "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", 200, "{}", ""},
		{"no length, read to the end", "HTTP/1.1 200 OK\r\n\r\n{\"a\":1}\n", 200, "{\"a\":1}\n", ""},
		{"length shorter than what came", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}junk", 200, "{}", ""},
		{"an error", "HTTP/1.0 401 Unauthorized\r\ncontent-length: 5\r\n\r\nnope!", 401, "nope!", ""},
		{"cut short", "HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\n{}", 0, "", "cut short"},
		{"bad length", "HTTP/1.0 200 OK\r\nContent-Length: -1\r\n\r\n{}", 0, "", "Content-Length"},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 0, "", "chunked"},
		{"headers unfinished", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n", 0, "", "inside its headers"},
		{"not HTTP", "SSH-2.0-OpenSSH_9.2\r\n\r\n", 0, "", "not HTTP"},
		{"no status", "HTTP/1.0 OK\r\n\r\n", 0, "", "not HTTP"},
		{"nothing", "", 0, "", "inside its headers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body, err := parseResponse([]byte(c.raw))
			if c.fail != "" {
				if err == nil || !strings.Contains(err.Error(), c.fail) {
					t.Fatalf("err %v, want one naming %q", err, c.fail)
				}
				return
			}
			if err != nil || status != c.status || string(body) != c.body {
				t.Fatalf("got %d %q %v, want %d %q", status, body, err, c.status, c.body)
			}
		})
	}
}

func TestEndpoint(t *testing.T) {
	for _, c := range []struct {
		hall, agent, policy string
		host, target, fail  string
	}{
		{"http://127.0.0.1:7433", "claude", "", "127.0.0.1:7433", "/api/hooks/claude", ""},
		{"http://127.0.0.1:7433/", "codex", "ask", "127.0.0.1:7433", "/api/hooks/codex?on_collision=ask", ""},
		{"http://hall.local/team/", "cursor", "warn", "hall.local:80", "/team/api/hooks/cursor?on_collision=warn", ""},
		{"http://[::1]:9000", "claude", "", "[::1]:9000", "/api/hooks/claude", ""},
		{"http://127.0.0.1:7433", "a/b", "", "127.0.0.1:7433", "/api/hooks/a%2Fb", ""},
		{"https://hall.example", "claude", "", "", "", "plain http"},
		{"127.0.0.1:7433", "claude", "", "", "", "--hall"},
		{"hall.local:7433", "claude", "", "", "", "plain http"},
		{"http://", "claude", "", "", "", "plain http"},
		{"http://%zz", "claude", "", "", "", "--hall"},
	} {
		t.Run(c.hall, func(t *testing.T) {
			host, target, err := endpoint(Request{Hall: c.hall, Agent: c.agent, OnCollision: c.policy})
			if c.fail != "" {
				if err == nil || !strings.Contains(err.Error(), c.fail) {
					t.Fatalf("err %v, want one naming %q", err, c.fail)
				}
				return
			}
			if err != nil || host != c.host || target != c.target {
				t.Fatalf("got %q %q %v, want %q %q", host, target, err, c.host, c.target)
			}
		})
	}
}

// FuzzParseResponse: whatever a peer sends, the answer is a status and a
// body within what was read, or an error; never a panic.
func FuzzParseResponse(f *testing.F) {
	for _, seed := range []string{
		"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 401 Unauthorized\r\n\r\n{\"error\":\"unauthorized\"}",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"HTTP/1.0 200\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		status, body, err := parseResponse(raw)
		if err != nil {
			return
		}
		if status < 100 || status > 999 || len(body) > len(raw) {
			t.Fatalf("status %d, body of %d bytes from %d read", status, len(body), len(raw))
		}
	})
}

// TestWarningAnswerIsTheHooks: the lean hook's own warning answer is the
// hook package's, agent by agent (it is written again there, without the
// JSON codec): the same agents answer on stdout, with the same JSON
// value, for any text.
func TestWarningAnswerIsTheHooks(t *testing.T) {
	texts := []string{
		"hall-hook: warning: reach the Hall at http://127.0.0.1:7433: connection refused (the agent carries on)",
		"quotes \" and \\ backslashes, a tab\t, a newline\n, a bell\a, <html> & unicode é ✓ 😀",
		"invalid UTF-8 \xff\xfe here",
	}
	for _, agent := range append(hook.Agents(), "nobody") {
		for _, text := range texts {
			want, got := hook.WarningAnswer(agent, text), warningAnswer(agent, text)
			if (want == nil) != (got == nil) {
				t.Fatalf("%s: hook %q, hall-hook %q", agent, want, got)
			}
			if want == nil {
				continue
			}
			var w, g any
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: hall-hook's answer %q is not JSON: %v", agent, got, err)
			}
			if !reflect.DeepEqual(w, g) {
				t.Errorf("%s, %q: hook %s, hall-hook %s", agent, text, want, got)
			}
		}
	}
	if hook.WarningAnswer("gemini", "x") == nil || hook.WarningAnswer("claude", "x") != nil {
		t.Error("Gemini CLI's warning belongs on stdout, Claude Code's on stderr")
	}
}
