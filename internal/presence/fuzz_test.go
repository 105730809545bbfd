package presence

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(specExample))
	f.Add([]byte(`{"presence_id":"prs_aaaaaaaaaaaa","agent_id":"a","brain":"/b","last_beat_ms":1,"mutation":null,"working_set":[]}`))
	f.Add([]byte(`{"presence_id":"p","agent_id":"a","brain":"/b","last_beat_ms":-1,"ttl_ms":-5,"working_set":["", "..", "a\u0000b"],"x":{"y":[1]}}`))
	f.Add([]byte(`{"PRESENCE_ID":"p","Agent_Id":"a","brain":"/b","last_beat_ms":1,"schema":""}`))
	f.Add([]byte(`{"presence_id":"p","agent_id":"a","brain":"/b"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"presence_id":"p","agent_id":"a","brain":"\xff","last_beat_ms":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeRecord(data)
		if err != nil {
			if got := ErrorCode(err); got != EINVALID && got != ETOOLARGE {
				t.Fatalf("DecodeRecord error code: got %q, want %q or %q", got, EINVALID, ETOOLARGE)
			}
			return
		}
		if r.PresenceID == "" || r.AgentID == "" || r.Brain == "" || r.Schema == "" {
			t.Fatalf("decoded record lacks a required field: got %#v", r)
		}
		if r.WorkingSet != nil && len(r.WorkingSet) == 0 {
			t.Fatalf("decoded working set: got an empty non-nil slice, want nil")
		}
		enc, err := EncodeRecord(r)
		if err != nil {
			t.Fatalf("EncodeRecord(decoded): %v", err)
		}
		back, err := DecodeRecord(enc)
		if err != nil {
			t.Fatalf("DecodeRecord(EncodeRecord(r)): %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(back, r) {
			t.Fatalf("roundtrip:\ngot  %#v\nwant %#v", back, r)
		}
	})
}

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
