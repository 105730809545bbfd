package hookinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hall-dev/hall/internal/jsonspan"
)

// The settings file is edited as bytes: a strict reader finds where each
// member and element lies, and an edit splices the Hall's entries in or
// out. Every byte outside them (the person's other keys, values, order,
// spacing) stays as it was, and a key is only ever compared as data, never
// read as a path expression.

// MaxFile bounds a configuration file the installer reads; settings files
// are a few kilobytes.
const MaxFile = 1 << 20

// member is one "key": value of an object, by byte offsets.
type member struct {
	key                        string
	keyStart, valStart, valEnd int
}

// span is one element of an array, by byte offsets.
type span struct{ start, end int }

// SyntaxError says what is wrong in a configuration file and where.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// at is the SyntaxError for byte offset off of b.
func at(b []byte, off int, msg string) *SyntaxError {
	off = min(max(off, 0), len(b))
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(b[:off], '\n')
	return &SyntaxError{Line: line, Column: col, Msg: msg}
}

// checkDoc refuses what is not one strict JSON object with distinct keys
// at every level: a comment, a trailing comma, a duplicate key (readers
// disagree on which one wins) are each named with their place.
func checkDoc(b []byte) error {
	var raw json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return err
		}
		off := int(se.Offset) - 1
		msg := se.Error()
		if off >= 0 && off < len(b) {
			switch c := b[off]; {
			case c == '/' || c == '#':
				msg = "a comment: JSON settings take none (" + msg + ")"
			case (c == '}' || c == ']') && prevNonSpace(b, off) == ',':
				msg = "a trailing comma before " + string(c) + " (" + msg + ")"
			}
		}
		return at(b, off, msg)
	}
	i := jsonspan.SkipSpace(b, 0)
	if b[i] != '{' {
		return at(b, i, "the file is not a JSON object")
	}
	return checkDistinct(b, i, 0)
}

// maxDepth bounds how deep checkDistinct walks.
const maxDepth = 64

func checkDistinct(b []byte, i, depth int) error {
	if depth > maxDepth {
		return at(b, i, "nested too deep")
	}
	switch b[i] {
	case '{':
		_, _, ms := members(b, i)
		seen := make(map[string]bool, len(ms))
		for _, m := range ms {
			if seen[m.key] {
				return at(b, m.keyStart, fmt.Sprintf("duplicate key %q: readers disagree on which one counts", m.key))
			}
			seen[m.key] = true
			if err := checkDistinct(b, m.valStart, depth+1); err != nil {
				return err
			}
		}
	case '[':
		_, _, es := elements(b, i)
		for _, e := range es {
			if err := checkDistinct(b, e.start, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func prevNonSpace(b []byte, i int) byte {
	for i--; i >= 0; i-- {
		if !jsonspan.IsSpace(b[i]) {
			return b[i]
		}
	}
	return 0
}

// members reads the (valid) object at b[start]: its brackets' offsets and
// its members in order.
func members(b []byte, start int) (open, close int, ms []member) {
	i := jsonspan.SkipSpace(b, start+1)
	for b[i] != '}' {
		m := member{keyStart: i}
		ke := jsonspan.StringEnd(b, i)
		_ = json.Unmarshal(b[i:ke], &m.key) // valid: checked before
		i = jsonspan.SkipSpace(b, ke) + 1   // the colon
		m.valStart = jsonspan.SkipSpace(b, i)
		m.valEnd = jsonspan.ValueEnd(b, m.valStart)
		ms = append(ms, m)
		i = jsonspan.SkipSpace(b, m.valEnd)
		if b[i] == ',' {
			i = jsonspan.SkipSpace(b, i+1)
		}
	}
	return start, i, ms
}

// elements reads the (valid) array at b[start].
func elements(b []byte, start int) (open, close int, es []span) {
	i := jsonspan.SkipSpace(b, start+1)
	for b[i] != ']' {
		e := span{start: i, end: jsonspan.ValueEnd(b, i)}
		es = append(es, e)
		i = jsonspan.SkipSpace(b, e.end)
		if b[i] == ',' {
			i = jsonspan.SkipSpace(b, i+1)
		}
	}
	return start, i, es
}

// find returns the member named key, by its decoded name.
func find(ms []member, key string) (member, int, bool) {
	for i, m := range ms {
		if m.key == key {
			return m, i, true
		}
	}
	return member{}, -1, false
}

// splice replaces b[from:to] with s.
func splice(b []byte, from, to int, s []byte) []byte {
	out := make([]byte, 0, len(b)-(to-from)+len(s))
	out = append(out, b[:from]...)
	out = append(out, s...)
	return append(out, b[to:]...)
}

// removeItem takes item i (its bytes from start to end) out of the
// container whose brackets are at open and close, with the comma that
// joined it.
func removeItem(b []byte, open, close int, items []span, i int) []byte {
	switch {
	case len(items) == 1:
		// The sole item as appendItem lays it out in an empty container
		// ("\n"+indent before it, "\n"+the container's indent after it):
		// those go with it, and what was there before stays.
		start, end := items[0].start, items[0].end
		before, outer := b[open+1:start], "\n"+lineIndent(b, open)
		if len(before) > 0 && before[0] == '\n' && bytes.Count(before, []byte("\n")) == 1 && len(bytes.TrimLeft(before, " \t\n")) == 0 &&
			bytes.HasPrefix(b[end:close], []byte(outer)) {
			return splice(b, open+1, end+len(outer), nil)
		}
		return splice(b, open+1, close, nil)
	case i > 0:
		return splice(b, items[i-1].end, items[i].end, nil)
	default:
		return splice(b, items[0].start, items[1].start, nil)
	}
}

func memberSpans(ms []member) []span {
	out := make([]span, len(ms))
	for i, m := range ms {
		out[i] = span{m.keyStart, m.valEnd}
	}
	return out
}

// lineIndent is the indentation of the line holding b[i].
func lineIndent(b []byte, i int) string {
	s := bytes.LastIndexByte(b[:i], '\n') + 1
	e := s
	for e < len(b) && (b[e] == ' ' || b[e] == '\t') {
		e++
	}
	return string(b[s:e])
}

// appendItem adds item (a rendered member or element, without indentation
// of its first line) at the end of the container at open..close, laid out
// as its siblings are: on its own line, indented like them, in a
// container spread over lines; joined as they are in one on a single line.
// render gets the indentation the item's inner lines need.
func appendItem(b []byte, open, close int, items []span, render func(indent, unit string) []byte) []byte {
	outer := lineIndent(b, open)
	unit := "  "
	if len(items) > 0 {
		if !bytes.Contains(b[open:items[0].start], []byte("\n")) {
			sep := []byte(",") // as the siblings are joined, on one line
			if n := len(items); n > 1 {
				sep = b[items[n-2].end:items[n-1].start]
			}
			return splice(b, items[len(items)-1].end, items[len(items)-1].end, append(bytes.Clone(sep), render("", "")...))
		}
		inner := lineIndent(b, items[0].start)
		if len(inner) > len(outer) && inner[:len(outer)] == outer {
			unit = inner[len(outer):]
		}
		return splice(b, items[len(items)-1].end, items[len(items)-1].end, append([]byte(",\n"+inner), render(inner, unit)...))
	}
	// An empty container: the item on its own line, and whatever was
	// between the brackets kept after it, so removing the item gives it
	// back ("{ }" stays "{ }" through an install and an uninstall).
	inner := outer + unit
	item := append([]byte("\n"+inner), render(inner, unit)...)
	return splice(b, open+1, open+1, append(item, "\n"+outer...))
}

// renderValue encodes v for appendItem: indented with prefix and unit, or
// on one line when unit is "".
func renderValue(v any, prefix, unit string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a command's && stays readable
	if unit != "" {
		enc.SetIndent(prefix, unit)
	}
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("hookinstall: encode %T: %v", v, err))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// renderMember encodes "key": v for appendItem.
func renderMember(key string, v any) func(indent, unit string) []byte {
	return func(indent, unit string) []byte {
		k, _ := json.Marshal(key)
		return append(append(k, ": "...), renderValue(v, indent, unit)...)
	}
}
