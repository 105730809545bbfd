package gitscan

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// TestBoundedBufferReadFrom holds ReadFrom (what os/exec's copy of a
// pipe calls) to Write: the same first max bytes kept, the same cut, every
// byte read, whatever the sizes and however the reader splits them.
func TestBoundedBufferReadFrom(t *testing.T) {
	const max = 1000
	for _, n := range []int{0, 1, 511, 512, 513, 999, 1000, 1001, 4096, 70000} {
		data := bytes.Repeat([]byte("0123456789abcdef\n"), n/17+1)[:n]
		var want boundedBuffer
		want.max = max
		for chunk := range slices.Chunk(data, 700) {
			want.Write(chunk)
		}
		for name, r := range map[string]io.Reader{
			"whole":        bytes.NewReader(data),
			"a byte":       iotest.OneByteReader(bytes.NewReader(data)),
			"half":         iotest.HalfReader(bytes.NewReader(data)),
			"data and EOF": iotest.DataErrReader(bytes.NewReader(data)),
		} {
			var got boundedBuffer
			got.max = max
			read, err := got.ReadFrom(r)
			if err != nil || read != int64(n) {
				t.Errorf("%d bytes, %s: read %d, %v; want %d, nil", n, name, read, err, n)
			}
			if !bytes.Equal(got.buf.Bytes(), want.buf.Bytes()) || got.cut != want.cut {
				t.Errorf("%d bytes, %s: kept %d bytes, cut %v; Write kept %d, cut %v", n, name, got.buf.Len(), got.cut, want.buf.Len(), want.cut)
			}
		}
	}
	// A read error past what was kept is the copy's error.
	var b boundedBuffer
	b.max = max
	if _, err := b.ReadFrom(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(io.ErrUnexpectedEOF))); err != io.ErrUnexpectedEOF || b.buf.String() != "abc" {
		t.Errorf("kept %q, %v: want \"abc\", the reader's error", b.buf.String(), err)
	}
}
