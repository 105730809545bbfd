package collision

import (
	"path/filepath"
	"strings"
	"testing"
)

// refPathsOverlap is the plain reading of "segment-aware": split both
// cleaned paths into segments; they overlap when one list is a prefix of
// the other, and the longer one is the deeper place.
func refPathsOverlap(a, b string) (string, bool) {
	a, b = filepath.Clean(a), filepath.Clean(b)
	segs := func(p string) []string {
		if p == "/" {
			return []string{""}
		}
		return strings.Split(p, "/")
	}
	sa, sb := segs(a), segs(b)
	deeper := b
	if len(sa) > len(sb) {
		sa, sb, deeper = sb, sa, a
	}
	for i := range sa {
		if sa[i] != sb[i] {
			return "", false
		}
	}
	return deeper, true
}

func FuzzPathsOverlap(f *testing.F) {
	for _, p := range [][2]string{
		{"/s/src/auth", "/s/src/auth/login.go"},
		{"/s/src/auth", "/s/src/authz"},
		{"/", "/a"},
		{"/a/", "/a"},
		{"a/b", "a"},
		{"", "."},
		{"/a/../b", "/b/c"},
		{"//a//b", "/a/b/c"},
		{"/a\x00b", "/a/b"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		deeper, ok := PathsOverlap(a, b)
		deeper2, ok2 := PathsOverlap(b, a)
		if ok != ok2 {
			t.Fatalf("PathsOverlap(%q, %q) = %v but reversed = %v, want symmetric", a, b, ok, ok2)
		}
		if ok && deeper != deeper2 {
			t.Fatalf("PathsOverlap(%q, %q) deeper %q but reversed %q, want the same", a, b, deeper, deeper2)
		}
		ca, cb := filepath.Clean(a), filepath.Clean(b)
		if ok && deeper != ca && deeper != cb {
			t.Fatalf("PathsOverlap(%q, %q) deeper: got %q, want %q or %q", a, b, deeper, ca, cb)
		}
		if !ok && deeper != "" {
			t.Fatalf("PathsOverlap(%q, %q) without overlap: got deeper %q, want empty", a, b, deeper)
		}
		for _, p := range []string{a, b} {
			if d, ok := PathsOverlap(p, p); !ok || d != filepath.Clean(p) {
				t.Fatalf("PathsOverlap(%q, itself): got (%q, %v), want (%q, true)", p, d, ok, filepath.Clean(p))
			}
		}
		wantDeeper, wantOK := refPathsOverlap(a, b)
		if ok != wantOK || deeper != wantDeeper {
			t.Fatalf("PathsOverlap(%q, %q): got (%q, %v), want reference (%q, %v)", a, b, deeper, ok, wantDeeper, wantOK)
		}
	})
}

// isClean is a shortcut past filepath.Clean: it may refuse a clean path,
// never pass one Clean would change. sortKey makes the same check in the
// pass that builds a sweep key.
func FuzzCleanPath(f *testing.F) {
	for _, p := range []string{"/", "/a/b", "a/b", "", ".", "./a", "a/..", "/a/", "//a", "/a/.b", "a\x00/b"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if isClean(p) && filepath.Clean(p) != p {
			t.Fatalf("isClean(%q) = true, but Clean gives %q", p, filepath.Clean(p))
		}
		if got, want := cleanPath(p), filepath.Clean(p); got != want {
			t.Fatalf("cleanPath(%q): got %q, want %q", p, got, want)
		}
		// sortKey's check is isClean's, and its key is the path with
		// its separators made zero bytes.
		key, clean := sortKey([]byte("x"), p, true)
		if clean != isClean(p) {
			t.Fatalf("sortKey(%q) clean: got %v, want isClean's %v", p, clean, isClean(p))
		}
		want := "x" + strings.ReplaceAll(p, "/", "\x00")
		if !clean {
			want = "x"
		}
		if string(key) != want {
			t.Fatalf("sortKey(%q, check): got %q, want %q", p, key, want)
		}
		if key, _ := sortKey(nil, p, false); string(key) != strings.ReplaceAll(p, "/", "\x00") {
			t.Fatalf("sortKey(%q): got %q, want %q", p, key, strings.ReplaceAll(p, "/", "\x00"))
		}
	})
}
