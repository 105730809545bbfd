package atomicfile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/atomicfile"
)

// TestWrite: each case prepares a folder, writes "new" at its name, and
// checks what the name holds, where a link led and that no temporary
// file is left, whether the write succeeded or not.
func TestWrite(t *testing.T) {
	errNo := errors.New("the caller says no")
	tests := []struct {
		name    string
		root    bool                                           // write beneath an os.Root of the folder
		prepare func(t *testing.T, dir, outside string) string // answers the name written, relative to dir
		opts    atomicfile.Options
		want    string      // the name's content after; "" when the write fails
		mode    fs.FileMode // its permissions after
		wantErr error       // nil: any error (when want is "")
		outside string      // what outside/target.txt holds after ("" none)
	}{
		{name: "new file", prepare: func(*testing.T, string, string) string { return "a.txt" }, want: "new", mode: 0o644},
		{name: "new file, mode given", prepare: func(*testing.T, string, string) string { return "a.txt" }, opts: atomicfile.Options{Perm: 0o600}, want: "new", mode: 0o600},
		{name: "replace, mode kept", prepare: func(t *testing.T, dir, _ string) string {
			mustWrite(t, filepath.Join(dir, "a.txt"), "old", 0o751)
			return "a.txt"
		}, want: "new", mode: 0o751},
		{name: "replace, mode given", prepare: func(t *testing.T, dir, _ string) string {
			mustWrite(t, filepath.Join(dir, "a.txt"), "old", 0o751)
			return "a.txt"
		}, opts: atomicfile.Options{Perm: 0o640}, want: "new", mode: 0o640},
		{name: "replace, not synced", prepare: func(t *testing.T, dir, _ string) string {
			mustWrite(t, filepath.Join(dir, "a.txt"), "old", 0o644)
			return "a.txt"
		}, opts: atomicfile.Options{NoSync: true}, want: "new", mode: 0o644},
		{name: "beneath a root, in a folder", root: true, prepare: func(t *testing.T, dir, _ string) string {
			mustMkdir(t, filepath.Join(dir, "sub"))
			return "sub/a.txt"
		}, want: "new", mode: 0o644},
		{name: "a link at the name is replaced, what it led to kept", root: true, prepare: func(t *testing.T, dir, outside string) string {
			mustWrite(t, filepath.Join(outside, "target.txt"), "theirs", 0o644)
			mustSymlink(t, filepath.Join(outside, "target.txt"), filepath.Join(dir, "a.txt"))
			return "a.txt"
		}, want: "new", mode: 0o644, outside: "theirs"},
		{name: "a folder link out of the root refused", root: true, prepare: func(t *testing.T, dir, outside string) string {
			mustSymlink(t, outside, filepath.Join(dir, "sub"))
			return "sub/target.txt"
		}},
		{name: "a link at the name refused by the caller", prepare: func(t *testing.T, dir, outside string) string {
			mustWrite(t, filepath.Join(outside, "target.txt"), "theirs", 0o644)
			mustSymlink(t, filepath.Join(outside, "target.txt"), filepath.Join(dir, "a.txt"))
			return "a.txt"
		}, opts: atomicfile.Options{Before: func(fs.FileInfo) error { return errNo }}, wantErr: errNo, outside: "theirs"},
		{name: "the caller's check fails: the old file stays", prepare: func(t *testing.T, dir, _ string) string {
			mustWrite(t, filepath.Join(dir, "a.txt"), "old", 0o644)
			return "a.txt"
		}, opts: atomicfile.Options{Before: func(fs.FileInfo) error { return errNo }}, wantErr: errNo},
		{name: "a name too long for its temporary file's suffix", prepare: func(*testing.T, string, string) string {
			return strings.Repeat("é", 120) + ".txt" // 244 bytes
		}, want: "new", mode: 0o644},
		{name: "a directory at the name", prepare: func(t *testing.T, dir, _ string) string {
			mustMkdir(t, filepath.Join(dir, "a.txt", "inside"))
			return "a.txt"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir, outside := filepath.Join(base, "dir"), filepath.Join(base, "outside")
			mustMkdir(t, dir)
			mustMkdir(t, outside)
			rel := tt.prepare(t, dir, outside)
			before := state(t, filepath.Join(dir, rel))
			name, o := filepath.Join(dir, rel), tt.opts
			if tt.root {
				root, err := os.OpenRoot(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer root.Close()
				name, o.Root = rel, root
			}
			err := atomicfile.WriteFile(name, []byte("new"), o)
			switch {
			case tt.want != "" && err != nil:
				t.Fatalf("write: %v", err)
			case tt.want == "" && err == nil:
				t.Fatal("write: no error, want one")
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("write: %v, want %v", err, tt.wantErr)
			}
			got := state(t, filepath.Join(dir, rel))
			if tt.want == "" {
				if got != before {
					t.Errorf("after a failed write: %s, want as before: %s", got, before)
				}
			} else if want := "file " + tt.mode.String() + " " + tt.want; got != want {
				t.Errorf("after: %s, want %s", got, want)
			}
			if got := state(t, filepath.Join(outside, "target.txt")); tt.outside != "" && got != "file -rw-r--r-- "+tt.outside || tt.outside == "" && got != "absent" {
				t.Errorf("outside the folder: %s, want %q", got, tt.outside)
			}
			noTemp(t, base)
		})
	}
}

// TestWriteStreamFails: content that fails midway replaces nothing and
// leaves no temporary file.
func TestWriteStreamFails(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a.txt")
	mustWrite(t, name, "old", 0o644)
	broken := errors.New("the stream broke")
	err := atomicfile.Write(name, func(w io.Writer) error {
		if _, err := io.WriteString(w, "half"); err != nil {
			return err
		}
		return broken
	}, atomicfile.Options{})
	if !errors.Is(err, broken) {
		t.Fatalf("write: %v, want %v", err, broken)
	}
	if got := state(t, name); got != "file -rw-r--r-- old" {
		t.Errorf("after: %s, want the old file", got)
	}
	noTemp(t, dir)
}

// TestSymlink: a link put in place over a file, beneath a root; the
// caller's check can refuse it.
func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "a.txt"), "old", 0o644)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	errNo := errors.New("no")
	if err := atomicfile.Symlink("b.txt", "a.txt", atomicfile.Options{Root: root, Before: func(fi fs.FileInfo) error {
		if fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("Before got %v, want a link", fi.Mode())
		}
		return errNo
	}}); !errors.Is(err, errNo) {
		t.Fatalf("refused link: %v, want %v", err, errNo)
	}
	if got := state(t, filepath.Join(dir, "a.txt")); got != "file -rw-r--r-- old" {
		t.Errorf("after a refused link: %s", got)
	}
	if err := atomicfile.Symlink("b.txt", "a.txt", atomicfile.Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	if got := state(t, filepath.Join(dir, "a.txt")); got != "link b.txt" {
		t.Errorf("after: %s, want link b.txt", got)
	}
	noTemp(t, dir)
}

// TestTempNames: a temporary name is named for its file, and told apart.
func TestTempNames(t *testing.T) {
	tmp := atomicfile.TempName("/x/prs_0123.json")
	if dir, base := filepath.Split(tmp); dir != "/x/" || !strings.HasPrefix(base, ".prs_0123.json.hall-tmp-") || !atomicfile.IsTemp(base) {
		t.Errorf("TempName: %s (a temporary name: %v)", tmp, atomicfile.IsTemp(filepath.Base(tmp)))
	}
	if long := filepath.Base(atomicfile.TempName(strings.Repeat("é", 127) + "x")); len(long) > 255 || !atomicfile.IsTemp(long) {
		t.Errorf("a long name's temporary name: %d bytes (a temporary name: %v)", len(long), atomicfile.IsTemp(long))
	}
	for _, name := range []string{"prs_0123.json", ".prs_0123.json", ".tmp-prs_0123-1", ".hall-tmp-abcdefghijkl", "a.hall-tmp-abcdefghijkl"} {
		if atomicfile.IsTemp(name) {
			t.Errorf("IsTemp(%q): true, want false", name)
		}
	}
}

// state is what a name holds: "file <mode> <content>", "link
// <target>", "dir" or "absent".
func state(t *testing.T, name string) string {
	t.Helper()
	fi, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "absent"
	case err != nil:
		t.Fatal(err)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(name)
		if err != nil {
			t.Fatal(err)
		}
		return "link " + target
	case fi.IsDir():
		return "dir"
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return "file " + fi.Mode().Perm().String() + " " + string(b)
}

// noTemp fails if a temporary file is left anywhere under dir.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if atomicfile.IsTemp(d.Name()) || strings.Contains(d.Name(), atomicfile.TempInfix) {
			t.Errorf("a temporary file left: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, name, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(name, perm); err != nil {
		t.Fatal(err)
	}
}

func mustMkdir(t *testing.T, name string) {
	t.Helper()
	if err := os.MkdirAll(name, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkWriteFile: a 4 KiB file put in place, synced (the file and
// its folder: recovery's records, restore, hookinstall) and not
// (dirstore's records): what durability costs a write on this disk.
func BenchmarkWriteFile(b *testing.B) {
	data := make([]byte, 4<<10)
	for _, bc := range []struct {
		name string
		o    atomicfile.Options
	}{{"synced", atomicfile.Options{Perm: 0o644}}, {"unsynced", atomicfile.Options{Perm: 0o644, NoSync: true}}} {
		b.Run(bc.name, func(b *testing.B) {
			name := filepath.Join(b.TempDir(), "a.txt")
			for b.Loop() {
				if err := atomicfile.WriteFile(name, data, bc.o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
