package gitscan

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// porcelain writes entries back as git status --porcelain=v1 -z would:
// "?? path" for an untracked file, else an index letter and a worktree
// letter (M or a space each).
func porcelain(entries []entry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		switch {
		case e.state == Untracked:
			b.WriteString("??")
		default:
			b.WriteByte(map[bool]byte{true: 'M', false: ' '}[e.state&Staged != 0])
			b.WriteByte(map[bool]byte{true: 'M', false: ' '}[e.state&Modified != 0])
		}
		b.WriteString(" " + e.path + "\x00")
	}
	return b.Bytes()
}

// FuzzGitOutput: git's -z output, whatever its bytes and wherever the
// runner cut it. splitNUL gives back every byte but the separators (cut:
// all but a last field no NUL ended), no field holds a NUL; status
// entries are paths that are never empty and that written back as git
// would read back the same; join lists each path once, sorted, with the
// union of its states, and counts them all.
func FuzzGitOutput(f *testing.F) {
	for _, seed := range []string{
		"",
		"\x00",
		" M f.txt\x00?? new dir/a b.go\x00M  staged.go\x00MM both.go\x00",
		"?? untracked\x00 D gone.go\x00A  added.go\x00UU conflict.go\x00",
		" M a\x00 M a\x00?? a\x00",
		" M cut-in-the-mid",
		"XY\x00XYZ\x00XY \x00XY p\x00",
		"?? caf\xc3\xa9\x00?? \xff\xfe\x00?? line\nbreak\x00",
		"?? a\\b\x00?? \"quoted\"\x00 M -- \x00",
	} {
		f.Add([]byte(seed), false, uint8(0))
		f.Add([]byte(seed), true, uint8(2))
	}
	f.Fuzz(func(t *testing.T, out []byte, cut bool, limit uint8) {
		fields := splitNUL(out, cut)
		whole := splitNUL(out, false)
		for _, x := range whole {
			if strings.IndexByte(x, 0) >= 0 {
				t.Fatalf("splitNUL(%q): field %q holds a NUL", out, x)
			}
		}
		joined := strings.Join(whole, "\x00")
		if len(out) > 0 && out[len(out)-1] == 0 {
			joined += "\x00"
		}
		if joined != string(out) {
			t.Fatalf("splitNUL(%q) = %q: joined back %q", out, whole, joined)
		}
		want := whole
		if cut && len(out) > 0 && out[len(out)-1] != 0 {
			want = whole[:len(whole)-1] // a part of a path: dropped
		}
		if !slices.Equal(fields, want) {
			t.Fatalf("splitNUL(%q, cut) = %q, want %q", out, fields, want)
		}

		entries := statusEntries(out, cut)
		for _, e := range entries {
			if e.path == "" || strings.IndexByte(e.path, 0) >= 0 || !bytes.Contains(out, []byte(e.path)) {
				t.Fatalf("statusEntries(%q): path %q empty, holding a NUL or not in the output", out, e.path)
			}
			if e.state&Untracked != 0 && e.state != Untracked {
				t.Fatalf("statusEntries(%q): %q is %v: untracked and more", out, e.path, e.state)
			}
		}
		if again := statusEntries(porcelain(entries), false); !slices.Equal(again, entries) {
			t.Fatalf("statusEntries(%q) = %v; written back as git would, read %v", out, entries, again)
		}

		var c Changes
		n := int(limit)
		c.join(slices.Clone(entries), n)
		union := map[string]FileState{}
		for _, e := range entries {
			union[e.path] |= e.state
		}
		if c.Total != len(union) || len(c.Files) != min(len(union), n) || len(c.States) != len(c.Files) {
			t.Fatalf("join of %v (limit %d): %d files, %d states, total %d; want %d paths", entries, n, len(c.Files), len(c.States), c.Total, len(union))
		}
		for i, p := range c.Files {
			if i > 0 && c.Files[i-1] >= p {
				t.Fatalf("join of %v: files %q not sorted, each once", entries, c.Files)
			}
			if c.States[i] != union[p] {
				t.Fatalf("join of %v: %q is %v, want %v", entries, p, c.States[i], union[p])
			}
		}
	})
}
