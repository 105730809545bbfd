package jsonspan_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hall-dev/hall/internal/jsonspan"
)

// TestValueEnd: where each kind of value ends, in a string and in bytes
// alike, and -1 where it does not.
func TestValueEnd(t *testing.T) {
	for _, tc := range []struct {
		in   string
		at   int
		want int
	}{
		{`"abc" ,`, 0, 5},
		{`"a\"b"`, 0, 6},
		{`"a\\"b"`, 0, 5},
		{`"a\\\"b"`, 0, 8},
		{`"unclosed`, 0, -1},
		{`"ends in a backslash\"`, 0, -1},
		{`{"a":[1,{"b":"}"}],"c":"]"} x`, 0, 27},
		{`[1,2`, 0, -1},
		{`{"a":"}`, 0, -1},
		{`12.5e3,`, 0, 6},
		{`true}`, 0, 4},
		{`null`, 0, 4},
		{`,`, 0, -1},
		{``, 0, -1},
		{`x`, 1, -1},
		{`  "s"`, 2, 5},
	} {
		if got := jsonspan.ValueEnd(tc.in, tc.at); got != tc.want {
			t.Errorf("ValueEnd(%q, %d) = %d, want %d", tc.in, tc.at, got, tc.want)
		}
		if got := jsonspan.ValueEnd([]byte(tc.in), tc.at); got != tc.want {
			t.Errorf("ValueEnd([]byte(%q), %d) = %d, want %d", tc.in, tc.at, got, tc.want)
		}
	}
}

func TestSkipSpace(t *testing.T) {
	for _, tc := range []struct {
		in       string
		at, want int
	}{{" \t\r\n x", 0, 5}, {"x", 0, 0}, {"  ", 0, 2}, {"a  ", 1, 3}, {"", 0, 0}} {
		if got := jsonspan.SkipSpace(tc.in, tc.at); got != tc.want {
			t.Errorf("SkipSpace(%q, %d) = %d, want %d", tc.in, tc.at, got, tc.want)
		}
		if got := jsonspan.SkipSpace([]byte(tc.in), tc.at); got != tc.want {
			t.Errorf("SkipSpace([]byte(%q), %d) = %d, want %d", tc.in, tc.at, got, tc.want)
		}
	}
}

// FuzzValueEnd holds ValueEnd to encoding/json: on a valid value followed
// by anything after a space, it ends where the decoder's first value
// ends; on any input it never panics and answers -1 or an index in it.
func FuzzValueEnd(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `"x\"y"`, `[1,"]",{}]`, `-1.5e3`, `true`, `{"a":"\\"}`, `"\u0026"`} {
		f.Add(s, " tail")
	}
	f.Fuzz(func(t *testing.T, value, tail string) {
		in := value + " " + tail
		end := jsonspan.ValueEnd(in, 0)
		if end < -1 || end > len(in) || (end == 0 && len(in) > 0) {
			t.Fatalf("ValueEnd(%q) = %d: outside the text", in, end)
		}
		if bend := jsonspan.ValueEnd([]byte(in), 0); bend != end {
			t.Fatalf("ValueEnd(%q): %d as a string, %d as bytes", in, end, bend)
		}
		if !json.Valid([]byte(value)) || len(value) == 0 || jsonspan.IsSpace(value[0]) {
			return
		}
		var raw json.RawMessage
		d := json.NewDecoder(bytes.NewReader([]byte(in)))
		if err := d.Decode(&raw); err != nil {
			t.Fatalf("decode %q: %v", in, err)
		}
		if want := int(d.InputOffset()); end != want {
			t.Fatalf("ValueEnd(%q) = %d, encoding/json ends the value at %d", in, end, want)
		}
	})
}
