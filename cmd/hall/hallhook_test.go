package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/hookforward"
	"github.com/hall-dev/hall/internal/hooktest"
)

// hallHook runs the lean command hook in-process, as the hall-hook binary
// does, and returns what it wrote. Each call has a cache folder of its
// own: a warning is said once per session (hookforward.FirstWarning), and
// each call here is a session's first.
func hallHook(t *testing.T, payload string, args ...string) (stdout, stderr string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var out, errOut bytes.Buffer
	hookforward.Main(t.Context(), args, strings.NewReader(payload), &out, &errOut)
	return out.String(), errOut.String()
}

// TestHallHookTokens: against a Hall that requires a token, hall-hook
// without one is refused (a warning, nothing said to the agent); with the
// token from HALL_TOKEN or --token-file it is answered; against a Hall
// with only a read token, the read token carries the beat, as for hall
// beat.
func TestHallHookTokens(t *testing.T) {
	repo := hooktest.GitRepo(t)
	payload := hooktest.Moved(t, hooktest.ClaudeCode, "pre-tool-use-write.json", repo.Worktree, "")
	m := MustOpenHall(t, Config{Token: "s3cret"})

	if out, errOut := hallHook(t, payload, "claude", "--hall", m.URL()); out != "" || !strings.Contains(errOut, "401") {
		t.Errorf("no token: stdout %q stderr %q; want a 401 warning and silence", out, errOut)
	}
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut := hallHook(t, payload, "claude", "--hall", m.URL(), "--token-file", file); errOut != "" {
		t.Errorf("--token-file: stderr %q", errOut)
	}
	t.Setenv("HALL_TOKEN", "s3cret")
	if _, errOut := hallHook(t, payload, "claude", "--hall", m.URL()); errOut != "" {
		t.Errorf("HALL_TOKEN: stderr %q", errOut)
	}
	t.Setenv("HALL_TOKEN", "")

	r := MustOpenHall(t, Config{ReadToken: "r3ad"})
	if _, errOut := hallHook(t, payload, "claude", "--hall", r.URL()); !strings.Contains(errOut, "401") {
		t.Errorf("read token missing: stderr %q, want 401", errOut)
	}
	t.Setenv("HALL_READ_TOKEN", "r3ad")
	if _, errOut := hallHook(t, payload, "claude", "--hall", r.URL()); errOut != "" {
		t.Errorf("HALL_READ_TOKEN: stderr %q", errOut)
	}
}

// TestHallHookFailsOpen: whatever goes wrong, hall-hook says nothing to
// the agent, warns on stderr naming the cause, and returns (the binary
// then exits 0).
func TestHallHookFailsOpen(t *testing.T) {
	repo := hooktest.GitRepo(t)
	payload := hooktest.Moved(t, hooktest.ClaudeCode, "pre-tool-use-write.json", repo.Worktree, "")
	m := MustOpenHall(t, Config{})

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + closed.Addr().String()
	closed.Close()

	// A Hall that takes the connection and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()

	for _, c := range []struct {
		name, payload string
		args          []string
		want          string
	}{
		{"the Hall down", payload, []string{"claude", "--hall", down}, "connection refused"},
		{"a Hall that never answers", payload, []string{"claude", "--hall", "http://" + silent.Addr().String(), "--timeout", "200ms"}, "i/o timeout"},
		{"a payload that is not the agent's", `{"hello":"world"}`, []string{"claude", "--hall", m.URL()}, "400"},
		{"not JSON", `not json`, []string{"claude", "--hall", m.URL()}, "invalid_payload"},
		{"an unknown agent", payload, []string{"copilot", "--hall", m.URL()}, "unknown_agent"},
		{"an unknown policy", payload, []string{"claude", "--hall", m.URL(), "--on-collision", "deny"}, "invalid_on_collision"},
		{"https", payload, []string{"claude", "--hall", "https://127.0.0.1:1"}, "hall beat --hook"},
		{"no agent", payload, []string{"--hall", m.URL()}, "want one agent"},
		{"two agents", payload, []string{"claude", "codex", "--hall", m.URL()}, "want one agent"},
		{"an unknown flag", payload, []string{"claude", "--halls", m.URL()}, "halls"},
		{"a bad timeout", payload, []string{"claude", "--timeout", "soon"}, "timeout"},
		{"a token file missing", payload, []string{"claude", "--hall", m.URL(), "--token-file", "/nonexistent/token"}, "token-file"},
		{"a token that would break the request", payload, []string{"claude", "--hall", m.URL(), "--token", "s3cret\r\nX-Evil: 1"}, "control character"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut := hallHook(t, c.payload, c.args...)
			if out != "" {
				t.Errorf("stdout %q, want nothing said to the agent", out)
			}
			if !strings.HasPrefix(errOut, "hall-hook: warning: ") || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "the agent carries on") {
				t.Errorf("stderr %q, want a warning naming %q", errOut, c.want)
			}
		})
	}

	// Nothing wrong, nothing to say: silence on both.
	if out, errOut := hallHook(t, payload, "claude", "--hall", m.URL()); out != "" || errOut != "" {
		t.Errorf("alone: stdout %q stderr %q, want silence", out, errOut)
	}
	// Help is for a person: the usage on stdout.
	if out, _ := hallHook(t, "", "-h"); !strings.HasPrefix(out, "usage: hall-hook") || !strings.Contains(out, "-on-collision") {
		t.Errorf("-h: %q", out)
	}
}

// TestHookWarningWhereTheAgentShowsIt: a Hall that cannot be reached is
// told once, where the agent shows it once, by the lean hook and by hall
// beat --hook alike: Gemini CLI's as its answer's systemMessage on stdout
// (it would show stderr twice: as the hook runs and as its answer),
// Claude Code's on stderr with nothing on stdout.
func TestHookWarningWhereTheAgentShowsIt(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + closed.Addr().String()
	closed.Close()
	repo := hooktest.GitRepo(t)
	for _, tc := range []struct {
		agent, file string
		set         string
		onStdout    bool
	}{
		{"gemini", "before-tool-replace.json", hooktest.GeminiCLI, true},
		{"claude", "pre-tool-use-write.json", hooktest.ClaudeCode, false},
	} {
		payload := hooktest.Moved(t, tc.set, tc.file, repo.Worktree, "")
		lean := func() (string, string) { return hallHook(t, payload, tc.agent, "--hall", down) }
		beat := func() (string, string) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			code, stdout, stderr := runCLI(t, payload, "beat", "--hook", tc.agent, "--hall", down)
			if code != 0 {
				t.Errorf("hall beat --hook %s: exit %d", tc.agent, code)
			}
			return stdout, stderr
		}
		for name, hookRun := range map[string]func() (string, string){"hall-hook": lean, "hall beat --hook": beat} {
			stdout, stderr := hookRun()
			told, silent := stderr, stdout
			if tc.onStdout {
				told, silent = stdout, stderr
				var answer struct {
					SystemMessage string `json:"systemMessage"`
				}
				if err := json.Unmarshal([]byte(stdout), &answer); err != nil {
					t.Errorf("%s %s: stdout %q is not the agent's JSON answer: %v", name, tc.agent, stdout, err)
				}
				told = answer.SystemMessage
			}
			if !strings.Contains(told, down) || !strings.Contains(told, "said once per session") || silent != "" {
				t.Errorf("%s %s: stdout %q, stderr %q; want the warning once, on %s alone", name, tc.agent, stdout, stderr, map[bool]string{true: "stdout", false: "stderr"}[tc.onStdout])
			}
		}
	}
}
