package hook

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzJSONString holds the shell command's extraction (jsonField and
// jsonString) to encoding/json: a command marshaled behind another key
// whose value holds any text, and a JSON string body as an agent could
// write it (any escape, surrogate pair or lone half, invalid UTF-8),
// read back exactly as encoding/json decodes it; input that is not JSON
// never panics.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{
		"git add -A && git commit -m wip", `echo "a\tb" é`, `\"`, `\\`, "", "a\x00b", "\xff\xfe", "😀",
		`\ud83d\ude00`, `\ud83d`, `\ud83dx`, `\ud83d\u0041`, `\u0026\u003e\u003c`, `\/`, `\b\f\n\r\t`, `\x`, `\u12`, `"`, `\`,
	} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, other, cmd string) {
		for _, before := range []any{other, map[string]any{"x": []any{other, 1, true, nil}}, 42.5} {
			in, err := json.Marshal(map[string]any{"a": before, "command": cmd, "z": other})
			if err != nil {
				t.Fatal(err)
			}
			var want struct{ Command string }
			if err := json.Unmarshal(in, &want); err != nil {
				t.Fatal(err)
			}
			if got := shellCommand("Bash", in); got != want.Command {
				t.Fatalf("%s: got %q, want %q", in, got, want.Command)
			}
		}
		// cmd as the body of a JSON string, as written.
		in := []byte(`{"description":` + string(mustMarshal(t, other)) + `,"command":"` + cmd + `"}`)
		got := shellCommand("Bash", in)
		if !json.Valid(in) {
			return
		}
		var want struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal(in, &want); err != nil || topKeys(in) != 2 {
			return // valid JSON of another shape: the body closed the string and wrote keys of its own
		}
		if got != want.Command {
			t.Fatalf("%s: got %q, want %q", in, got, want.Command)
		}
	})
}

// topKeys counts the keys of a JSON object, repeats included.
func topKeys(in []byte) int {
	dec := json.NewDecoder(bytes.NewReader(in))
	if _, err := dec.Token(); err != nil {
		return -1
	}
	n := 0
	for dec.More() {
		if _, err := dec.Token(); err != nil {
			return -1
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return -1
		}
		n++
	}
	return n
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
