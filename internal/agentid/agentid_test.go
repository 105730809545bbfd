package agentid

import (
	"strings"
	"testing"
)

func TestClaude(t *testing.T) {
	cases := []struct{ session, sub, want string }{
		{"7d0c5e2a-4b1f-4c3e-9a57-0e1f2a3b4c5d", "", "claude-c84933e5"},
		{"7d0c5e2a-4b1f-4c3e-9a57-0e1f2a3b4c5d", "a1b2", "claude-c84933e5/a1b2"},
		{"short", "", "claude-f9b0078b"},
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
		{"claude code", map[string]string{"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "7d0c5e2a-4b1f"}, "claude-1b15c78b"},
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
		{"codex", "0199a1f2-6c3e-7d21", "", "codex-fddc125c"},
		{"codex", "0199a1f2-6c3e-7d21", "0199a1f3-0b7d", "codex-fddc125c/0199a1f3-0b7d"},
		{"cursor", "c5b1e0d2-3f4a", "", "cursor-57b6a48d"},
		{"claude", "short", "", "claude-f9b0078b"},
		{"claude", "", "sub", ""},
	} {
		if got := Session(tc.prefix, tc.session, tc.sub); got != tc.want {
			t.Errorf("Session(%q, %q, %q) = %q, want %q", tc.prefix, tc.session, tc.sub, got, tc.want)
		}
	}
}

// TestSessionTellsSessionsApart holds the reason the whole id is hashed:
// UUIDv7 ids (Codex's) start with their millisecond timestamp, so two
// sessions started within about 65 s share their first 8 hex digits, and
// must still be two agents; one session is always the same agent.
func TestSessionTellsSessionsApart(t *testing.T) {
	const (
		// Two Codex session ids, UUIDv7, 1 ms apart (0x0199a1f26c3e and
		// …6c3f), the same random bits: only the timestamp differs.
		v7a = "0199a1f2-6c3e-7d21-9b4a-5e8f7c2d1a03"
		v7b = "0199a1f2-6c3f-7d21-9b4a-5e8f7c2d1a03"
		// The same millisecond, other random bits.
		v7c = "0199a1f2-6c3e-7a90-8e11-0c4d2b7f9e65"
	)
	for _, tc := range []struct {
		name   string
		a, b   string
		prefix string
		same   bool
	}{
		{"v7 ids 1 ms apart", v7a, v7b, "codex", false},
		{"v7 ids in the same ms", v7a, v7c, "codex", false},
		{"the same v7 id", v7a, v7a, "codex", true},
		{"ids alike but their last character", "7d0c5e2a-4b1f-4a52-9c33-1f0e8a6b2c41", "7d0c5e2a-4b1f-4a52-9c33-1f0e8a6b2c42", "claude", false},
		{"the same v4 id", "7d0c5e2a-4b1f-4a52-9c33-1f0e8a6b2c41", "7d0c5e2a-4b1f-4a52-9c33-1f0e8a6b2c41", "claude", true},
		{"the same Cursor conversation", "c5b1e0d2-3f4a-4c8e-9a71-2d6b8e0f4a19", "c5b1e0d2-3f4a-4c8e-9a71-2d6b8e0f4a19", "cursor", true},
		{"the same Gemini session", "5f2c9e1a-8b7d-4c3e-a1f0-2d6b9e4c7a18", "5f2c9e1a-8b7d-4c3e-a1f0-2d6b9e4c7a18", "gemini", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := Session(tc.prefix, tc.a, ""), Session(tc.prefix, tc.b, "")
			if (a == b) != tc.same {
				t.Errorf("Session(%q) = %q, Session(%q) = %q: same = %v, want %v", tc.a, a, tc.b, b, a == b, tc.same)
			}
			if rest, ok := strings.CutPrefix(a, tc.prefix+"-"); !ok || len(rest) != 8 || strings.Trim(rest, "0123456789abcdef") != "" {
				t.Errorf("Session(%q) = %q, want %s- and 8 hex digits", tc.a, a, tc.prefix)
			}
			if again := Session(tc.prefix, tc.a, ""); again != a {
				t.Errorf("Session(%q) = %q, then %q: not stable", tc.a, a, again)
			}
		})
	}
}
