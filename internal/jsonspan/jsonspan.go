// Package jsonspan finds where a JSON value ends in its text without
// decoding it: the one rule under the Hall's two byte-level JSON readers,
// the hook's (a shell command taken out of a payload on every shell hook
// call, internal/hook) and the installer's (members spliced into a
// user's settings with every other byte kept, internal/hookinstall).
//
// The functions only find: they never validate, and on text that is not
// JSON, from any index in it, they answer -1 or an index within it, never
// panic.
package jsonspan

import (
	"bytes"
	"strings"
)

// Text is what a span is found in: a string, or the bytes of a document.
type Text interface{ string | []byte }

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace is the index of the first byte at or after i that is not
// JSON white space (len(s) when none is).
func SkipSpace[T Text](s T, i int) int {
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	return i
}

// StringEnd is the index just past the JSON string opening at s[i] (a
// '"'), -1 when it does not close. Runs without a quote are skipped with
// IndexByte: a 32 KiB command costs a few instructions a byte.
func StringEnd[T Text](s T, i int) int {
	for j := i + 1; j < len(s); {
		k := indexByte(s[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		backslashes := 0
		for b := q - 1; b > i && s[b] == '\\'; b-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return -1
}

// ValueEnd is the index just past the JSON value starting at s[i], -1
// when it does not end (or there is none).
func ValueEnd[T Text](s T, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return StringEnd(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				e := StringEnd(s, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	// A number, true, false or null: up to the next delimiter.
	j := i
	for j < len(s) && !IsSpace(s[j]) && s[j] != ',' && s[j] != '}' && s[j] != ']' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// indexByte is strings.IndexByte or bytes.IndexByte, as s is.
func indexByte[T Text](s T, c byte) int {
	switch v := any(s).(type) {
	case string:
		return strings.IndexByte(v, c)
	case []byte:
		return bytes.IndexByte(v, c)
	}
	panic("jsonspan: a Text that is neither string nor []byte")
}
