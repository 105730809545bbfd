package hookforward

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
	"unicode/utf8"
)

// A hook's warning goes to the agent's stderr, and some agents show every
// line of it (Gemini CLI makes it the hook's output, in the terminal): a
// Hall that is down would print one line per tool call. So each kind of
// failure is told once per session. The first warning of a kind leaves a
// marker file, named by a hash of the agent, the session and the kind, in
// the user's cache folder; a later one finds it and stays quiet. Only a
// failing hook touches the folder: a hook the Hall answers does no more
// than before.

// markerTTL is how long a marker is kept; older ones are removed when a
// new one is made, a bounded number at a time (maxPruned).
const markerTTL = 7 * 24 * time.Hour

// maxPruned bounds the markers one warning looks at to prune.
const maxPruned = 1024

// maxSessionID bounds the session id read from a payload.
const maxSessionID = 256

// WarnedDir is the folder that holds the markers:
// <the user's cache folder>/hall/hook-warned (os.UserCacheDir:
// $XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS).
func WarnedDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("the user's cache folder: %w", err)
	}
	return filepath.Join(d, "hall", "hook-warned"), nil
}

// FirstWarning reports whether the hook of agent should print a warning
// of kind for the session its payload names: true the first time in that
// session, false after. It fails open: a payload naming no session, or a
// marker folder that cannot be made or is not a private folder of this
// user's (a link, writable by others), says true, so a warning is never
// lost for a fault of the markers'.
func FirstWarning(agent string, payload []byte, kind string) bool {
	session := sessionOf(payload)
	if session == "" {
		return true
	}
	dir, err := WarnedDir()
	if err != nil {
		return true
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return true
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return true
	}
	h := fnv.New64a()
	for _, s := range []string{agent, session, kind} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	name := filepath.Join(dir, fmt.Sprintf("%016x", h.Sum64()))
	// O_EXCL: made here, or already there (a link planted at the name
	// included); never opened through one.
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false
	}
	if err != nil {
		return true
	}
	_ = f.Close()
	prune(dir, time.Now())
	return true
}

// prune removes markers older than markerTTL, looking at no more than
// maxPruned entries.
func prune(dir string, now time.Time) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	entries, _ := d.ReadDir(maxPruned)
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > markerTTL {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// sessionOf is the session a payload names: its "session_id", else
// (Cursor) its "conversation_id", read without a JSON decoder (hall-hook
// links none): the first such key followed by a string, at most
// maxSessionID bytes as written. "" when there is none.
func sessionOf(payload []byte) string {
	for _, key := range []string{`"session_id"`, `"conversation_id"`} {
		if s := stringAfter(payload, key); s != "" {
			return s
		}
	}
	return ""
}

// stringAfter is the JSON string value after the first key in b, as
// written (escapes kept: it only names a marker).
func stringAfter(b []byte, key string) string {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return ""
	}
	rest := bytes.TrimLeft(b[i+len(key):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return ""
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) == 0 || rest[0] != '"' {
		return ""
	}
	rest = rest[1:]
	for j := 0; j < len(rest) && j <= maxSessionID; j++ {
		switch rest[j] {
		case '\\':
			j++
		case '"':
			return string(rest[:j])
		}
	}
	return ""
}

// WarningKind sorts a hook's failure for FirstWarning: "reach" for a Hall
// that cannot be reached or did not answer in time, "status N" for a
// refusal, "answer" for anything else.
func WarningKind(err error) string {
	var se *statusError
	if errors.As(err, &se) {
		return "status " + strconv.Itoa(se.code)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return "reach"
	}
	return "answer"
}

// statusError is a Hall's answer other than 200.
type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("the Hall answered %d: %s", e.code, e.body)
}

// warningAnswer is hook.WarningAnswer, written again here (this package
// imports nothing of the Hall's but packages cli and autostart, nor the JSON codec; a
// test holds the two to the same answer): Gemini CLI would take a hook's
// stderr for a systemMessage and show it twice, so its warning is its
// answer, a systemMessage shown once; every other agent's goes to stderr
// (nil).
func warningAnswer(agent, text string) []byte {
	if agent != "gemini" {
		return nil
	}
	return append(append([]byte(`{"systemMessage":`), jsonString(text)...), `,"suppressOutput":true}`...)
}

// jsonString is s as a JSON string: quotes, backslashes and control
// characters escaped, each invalid UTF-8 byte as U+FFFD.
func jsonString(s string) []byte {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for _, r := range s { // an invalid byte is utf8.RuneError, U+FFFD
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
