package hook

import (
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hall-dev/hall/internal/jsonspan"
)

// A shell tool's command line can be the Hall's 32 KiB, and it is taken
// out of tool_input on every shell hook call, read by the guard or not.
// gjson found it at about 11 instructions a byte and unquoted it at 25,
// parsing each \uXXXX escape with strconv (a chain's & and > come as
// \u0026 and \u003e): a 32 KiB chain cost about 300 µs of a hook answer
// before the guard looked at it. jsonField and jsonString do the same in
// a few instructions a byte: runs without escapes are found with
// strings.IndexByte and copied whole. They read JSON that encoding/json
// has already decoded once (tool_input is a json.RawMessage of a payload
// it decoded), so they only find and unquote; anything unexpected is
// "absent", never a panic. FuzzJSONString holds them to encoding/json.

// jsonField is the raw text of the value of the top-level key name of the
// JSON object obj (its first, when the key is repeated); false when obj
// is not an object or has no such key.
func jsonField(obj, name string) (string, bool) {
	i := jsonspan.SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return "", false
	}
	i++
	for {
		i = jsonspan.SkipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return "", false // '}', or not JSON
		}
		kend := jsonspan.StringEnd(obj, i)
		if kend < 0 {
			return "", false
		}
		key := obj[i:kend]
		i = jsonspan.SkipSpace(obj, kend)
		if i >= len(obj) || obj[i] != ':' {
			return "", false
		}
		i = jsonspan.SkipSpace(obj, i+1)
		vend := jsonspan.ValueEnd(obj, i)
		if vend < 0 {
			return "", false
		}
		if k, ok := jsonString(key); ok && k == name {
			return obj[i:vend], true
		}
		i = jsonspan.SkipSpace(obj, vend)
		if i >= len(obj) || obj[i] != ',' {
			return "", false
		}
		i++
	}
}

// jsonString is the value of the JSON string raw (quotes included), as
// encoding/json decodes it; false when raw is not a string.
func jsonString(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if !utf8.ValidString(body) {
		// Invalid UTF-8, which encoding/json replaces, is rare: decode it
		// as encoding/json does. (A control byte cannot be in JSON that
		// encoding/json decoded, so it is not looked for.)
		var s string
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			return "", false
		}
		return s, true
	}
	first := strings.IndexByte(body, '\\')
	if first < 0 {
		return body, true
	}
	var b strings.Builder
	b.Grow(len(body))
	for {
		b.WriteString(body[:first])
		body = body[first:]
		if len(body) < 2 {
			return "", false
		}
		n := 2
		switch c := body[1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(body[2:])
			if !ok {
				return "", false
			}
			n = 6
			if utf16.IsSurrogate(r) {
				// A pair is one rune; anything else is U+FFFD, and what
				// follows is read on its own, as encoding/json does.
				r2, ok := rune(-1), false
				if len(body) >= 12 && body[6] == '\\' && body[7] == 'u' {
					r2, ok = hex4(body[8:])
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					r, n = d, 12
				} else {
					r = utf8.RuneError
				}
			}
			if r < utf8.RuneSelf {
				b.WriteByte(byte(r)) // \u0026, \u003e: most escapes in a command
			} else {
				b.WriteRune(r)
			}
		default:
			return "", false
		}
		body = body[n:]
		first = strings.IndexByte(body, '\\')
		if first < 0 {
			b.WriteString(body)
			return b.String(), true
		}
	}
}

// hex4 reads the four hex digits of a \u escape.
func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
