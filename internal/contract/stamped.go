package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Stamped is a PresencesResponse encoded once and split around its
// served_at_ms value, so the same roster can be served many times — to
// pollers, to every new subscriber of a stream — with a fresh clock each
// time and no new encoding.
type Stamped struct {
	head, tail []byte
}

// servedAtMark stands in for served_at_ms while encoding. A JSON string
// cannot hold `"served_at_ms":` unescaped, so the first match is the field.
const servedAtMark int64 = -7_433_000_000_001

// NewStamped encodes resp (as json.Marshal would, HTML-escaped) for
// stamping.
func NewStamped(resp PresencesResponse) (Stamped, error) {
	resp.ServedAtMs = servedAtMark
	full, err := json.Marshal(resp)
	if err != nil {
		return Stamped{}, fmt.Errorf("encode presences response: %w", err)
	}
	key := []byte(`"served_at_ms":`)
	mark := append(append([]byte(nil), key...), strconv.FormatInt(servedAtMark, 10)...)
	i := bytes.Index(full, mark)
	if i < 0 {
		return Stamped{}, fmt.Errorf("encode presences response: served_at_ms not found")
	}
	return Stamped{head: full[:i+len(key)], tail: full[i+len(mark):]}, nil
}

// AppendAt appends the response stamped with servedAtMs to dst.
func (s Stamped) AppendAt(dst []byte, servedAtMs int64) []byte {
	dst = append(dst, s.head...)
	dst = strconv.AppendInt(dst, servedAtMs, 10)
	return append(dst, s.tail...)
}

// Split returns the response stamped with servedAtMs in three parts: the
// encoding before the value and after it, shared by every caller and not
// to be modified, and the value itself. A writer sends them as one
// (writev) without copying the roster.
func (s Stamped) Split(servedAtMs int64) (head, stamp, tail []byte) {
	return s.head, strconv.AppendInt(nil, servedAtMs, 10), s.tail
}

// Len is about the encoded length, for sizing buffers.
func (s Stamped) Len() int { return len(s.head) + len(s.tail) + 20 }
