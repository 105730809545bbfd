package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStaysLean: hall-hook starts once per tool call, so it must not link
// what makes hall slow to start (docs/performance.md#hooks): net/http and
// the TLS, x509 and http2 packages behind it, the JSON codec, the Hall's
// domain, or any module outside the standard library.
func TestStaysLean(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	allowed := map[string]bool{
		"github.com/hall-dev/hall/cmd/hall-hook":        true,
		"github.com/hall-dev/hall/internal/hookforward": true,
		"github.com/hall-dev/hall/internal/cli":         true,
		"github.com/hall-dev/hall/internal/autostart":   true,
	}
	for _, d := range deps {
		switch {
		case d == "net/http", d == "crypto/tls", d == "crypto/x509", d == "encoding/json", strings.HasSuffix(d, "/http2"):
			t.Errorf("hall-hook links %s", d)
		case strings.Contains(strings.SplitN(d, "/", 2)[0], ".") && !allowed[d] && !strings.HasPrefix(d, "vendor/"):
			t.Errorf("hall-hook links %s, outside the standard library", d)
		}
	}
}

// TestHallDownWarnsOncePerSession builds the real hall-hook and runs it
// on every hook of two sessions against a Hall that is down (a closed
// port): each session is told "reach the Hall" once, on its first call,
// where its agent shows it once — Claude Code's on stderr, Gemini CLI's
// as the answer's systemMessage on stdout (from stderr it would show it
// twice) — and nothing else is printed; every call exits 0.
func TestHallDownWarnsOncePerSession(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "hall-hook")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + closed.Addr().String()
	closed.Close()
	cache := filepath.Join(dir, "cache")

	run := func(agent, payload string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(bin, agent, "--hall", down)
		// HALL_AUTOSTART=0: the Hall stays down (autostart_test.go starts one).
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "HALL_AUTOSTART=0")
		cmd.Stdin = strings.NewReader(payload)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("hall-hook: %v (it always exits 0)\n%s", err, errOut.String())
		}
		return out.String(), errOut.String()
	}
	// warning is what a call told, where its agent shows it.
	warning := func(agent, stdout, stderr string) string {
		if agent != "gemini" {
			if stdout != "" {
				t.Errorf("%s: stdout %q, want nothing", agent, stdout)
			}
			return stderr
		}
		if stderr != "" {
			t.Errorf("gemini: stderr %q, want nothing (Gemini CLI would show it twice)", stderr)
		}
		if stdout == "" {
			return ""
		}
		var answer map[string]any
		if err := json.Unmarshal([]byte(stdout), &answer); err != nil || len(answer) != 2 || answer["suppressOutput"] != true {
			t.Errorf("gemini: stdout %q, want one JSON object with systemMessage and suppressOutput alone (%v)", stdout, err)
		}
		msg, _ := answer["systemMessage"].(string)
		return msg
	}
	events := map[string][]string{
		"gemini": {"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "BeforeTool", "AfterTool", "SessionEnd"},
		"claude": {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse", "SessionEnd"},
	}
	for agent, evs := range events {
		for _, session := range []string{"5f2c9e1a-8b7d-4c3e-a1f0-2d6b9e4c7a18", "b1b2b3b4-0000-4000-8000-000000000000"} {
			warned := 0
			for i, event := range evs {
				payload := `{"session_id":"` + session + `","cwd":"` + dir + `","hook_event_name":"` + event + `","tool_name":"write_file","tool_input":{"file_path":"a.go"}}`
				stdout, stderr := run(agent, payload)
				text := warning(agent, stdout, stderr)
				if n := strings.Count(text, "hall-hook: warning: reach the Hall"); n > 0 {
					warned += n
					if i != 0 {
						t.Errorf("%s %s: warned at call %d, want the first call only: %q", agent, session, i, text)
					}
				} else if text != "" {
					t.Errorf("%s %s call %d: told %q, want nothing after the first warning", agent, session, i, text)
				}
			}
			if warned != 1 {
				t.Errorf("%s session %s: %d warnings over its calls, want 1", agent, session, warned)
			}
		}
	}
	// A payload naming no session cannot be told apart: it warns each time.
	for range 2 {
		stdout, stderr := run("gemini", `{"hook_event_name":"BeforeTool"}`)
		if text := warning("gemini", stdout, stderr); !strings.Contains(text, "reach the Hall") {
			t.Errorf("no session: told %q, want the warning", text)
		}
	}
}
