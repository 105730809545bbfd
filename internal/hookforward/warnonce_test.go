package hookforward

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSessionOf(t *testing.T) {
	for _, tc := range []struct{ payload, want string }{
		{`{"session_id":"5f2c9e1a-8b7d","cwd":"/w"}`, "5f2c9e1a-8b7d"},
		{`{"cwd":"/w", "session_id" : "abc"}`, "abc"},
		{`{"conversation_id":"c1","hook_event_name":"stop"}`, "c1"},
		{`{"session_id":"a\"b","x":1}`, `a\"b`},
		{`{"session_id":7}`, ""},
		{`{"session_id":"unterminated`, ""},
		{`{"tool_input":{"command":"echo \"session_id\": \"x\""}}`, ""}, // inside a string: escaped quotes
		{`{"session_id":"` + strings.Repeat("x", maxSessionID+1) + `"}`, ""},
		{``, ""},
	} {
		if got := sessionOf([]byte(tc.payload)); got != tc.want {
			t.Errorf("sessionOf(%s) = %q, want %q", tc.payload, got, tc.want)
		}
	}
}

func TestWarningKind(t *testing.T) {
	_, dialErr := net.Dial("tcp", "127.0.0.1:1")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("reach the Hall: %w", dialErr), "reach"},
		{fmt.Errorf("read: %w", os.ErrDeadlineExceeded), "reach"},
		{&statusError{code: 401, body: "unauthorized"}, "status 401"},
		{errors.New("the Hall's answer is not HTTP"), "answer"},
	} {
		if got := WarningKind(tc.err); got != tc.want {
			t.Errorf("WarningKind(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestFirstWarning: once per agent, session and kind; a marker folder
// that is a link or open to others, or that cannot be made, fails open
// (every call warns); markers past markerTTL are pruned.
func TestFirstWarning(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	p := []byte(`{"session_id":"s-1"}`)
	seq := []bool{FirstWarning("gemini", p, "reach"), FirstWarning("gemini", p, "reach"), FirstWarning("gemini", p, "status 401"), FirstWarning("codex", p, "reach"), FirstWarning("gemini", []byte(`{"session_id":"s-2"}`), "reach")}
	if want := []bool{true, false, true, true, true}; fmt.Sprint(seq) != fmt.Sprint(want) {
		t.Errorf("first warnings %v, want %v", seq, want)
	}
	dir, _ := WarnedDir()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("marker folder %s: %v %v, want mode 0700", dir, fi, err)
	}

	// Pruned: a marker older than markerTTL goes at the next new one.
	old := filepath.Join(dir, "0000000000000000")
	if err := os.WriteFile(old, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-markerTTL - time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	FirstWarning("gemini", []byte(`{"session_id":"s-3"}`), "reach")
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a marker past its time is still there: %v", err)
	}

	// Open to others: not trusted, every call warns.
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if first, second := FirstWarning("gemini", p, "reach"), FirstWarning("gemini", p, "reach"); !first || !second {
		t.Error("a marker folder writable by others: a warning was held back")
	}
	// A link in its place: the same.
	other := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", other)
	if err := os.MkdirAll(filepath.Join(other, "hall"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(other, "hall", "hook-warned")); err != nil {
		t.Fatal(err)
	}
	if first, second := FirstWarning("gemini", p, "reach"), FirstWarning("gemini", p, "reach"); !first || !second {
		t.Error("a marker folder that is a link: a warning was held back")
	}
	// Cannot be made (a file where the folder goes): every call warns.
	blocked := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", blocked)
	if err := os.WriteFile(filepath.Join(blocked, "hall"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if first, second := FirstWarning("gemini", p, "reach"), FirstWarning("gemini", p, "reach"); !first || !second {
		t.Error("no marker folder: a warning was held back")
	}
}
