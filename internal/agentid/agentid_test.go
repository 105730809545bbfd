package agentid

import "testing"

func TestClaude(t *testing.T) {
	cases := []struct{ session, sub, want string }{
		{"7d0c5e2a-4b1f-4c3e-9a57-0e1f2a3b4c5d", "", "claude-7d0c5e2a"},
		{"7d0c5e2a-4b1f-4c3e-9a57-0e1f2a3b4c5d", "a1b2", "claude-7d0c5e2a/a1b2"},
		{"short", "", "claude-short"},
		{"", "", ""},
		{"", "a1b2", ""},
	}
	for _, tc := range cases {
		if got := Claude(tc.session, tc.sub); got != tc.want {
			t.Errorf("Claude(%q, %q): got %q, want %q", tc.session, tc.sub, got, tc.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"claude code", map[string]string{"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "7d0c5e2a-4b1f"}, "claude-7d0c5e2a"},
		{"session id exported by hand", map[string]string{"CLAUDE_CODE_SESSION_ID": "7d0c5e2a-4b1f"}, ""},
		{"claude code without a session", map[string]string{"CLAUDECODE": "1"}, ""},
		{"nothing", nil, ""},
	}
	for _, tc := range cases {
		if got := FromEnv(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSession(t *testing.T) {
	for _, tc := range []struct{ prefix, session, sub, want string }{
		{"codex", "0199a1f2-6c3e-7d21", "", "codex-0199a1f2"},
		{"codex", "0199a1f2-6c3e-7d21", "0199a1f3-0b7d", "codex-0199a1f2/0199a1f3-0b7d"},
		{"cursor", "c5b1e0d2-3f4a", "", "cursor-c5b1e0d2"},
		{"cursor", "ééééééééé", "", "cursor-éééééééé"}, // characters, never a cut rune
		{"claude", "short", "", "claude-short"},
		{"claude", "", "sub", ""},
	} {
		if got := Session(tc.prefix, tc.session, tc.sub); got != tc.want {
			t.Errorf("Session(%q, %q, %q) = %q, want %q", tc.prefix, tc.session, tc.sub, got, tc.want)
		}
	}
}
