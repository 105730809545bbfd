package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/fifotest"
)

// TestReadFile reads every kind of file a request could name, under both
// link rules: only a regular file (through a link under Follow) is read,
// and nothing blocks. A read that has not answered within a few seconds
// fails the test as hung (the plain open waited for ever on the FIFO and
// on the held pipe): a failure detector, not a measure of speed.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(at("regular"), []byte("gitdir: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(at("big"), []byte(strings.Repeat("x", 65)), 0o644); err != nil {
		t.Fatal(err)
	}
	fifotest.Make(t, at("fifo"))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // held open: a read of the pipe would wait for ever
	for name, target := range map[string]string{
		"link-regular": at("regular"),
		"link-fifo":    at("fifo"),
		"link-pipe":    "/proc/self/fd/" + strconv.Itoa(int(r.Fd())),
		"link-device":  "/dev/zero",
		"link-dir":     dir,
		"link-missing": at("nowhere"),
	} {
		if err := os.Symlink(target, at(name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		links   Links
		want    string
		wantErr error
	}{
		{"regular", NoFollow, "gitdir: x\n", nil},
		{"regular", Follow, "gitdir: x\n", nil},
		{"link-regular", Follow, "gitdir: x\n", nil},
		{"link-regular", NoFollow, "", ErrNotRegular},
		{"big", Follow, "", ErrTooLarge},
		{"fifo", NoFollow, "", ErrNotRegular},
		{"fifo", Follow, "", ErrNotRegular},
		{"link-fifo", Follow, "", ErrNotRegular},
		{"link-fifo", NoFollow, "", ErrNotRegular},
		{"link-pipe", Follow, "", ErrNotRegular},
		{"link-pipe", NoFollow, "", ErrNotRegular},
		{"link-device", Follow, "", ErrNotRegular},
		{"link-dir", Follow, "", ErrNotRegular},
		{"missing", Follow, "", fs.ErrNotExist},
		{"link-missing", Follow, "", fs.ErrNotExist},
	} {
		type answer struct {
			b   []byte
			err error
		}
		done := make(chan answer, 1)
		go func() {
			b, err := ReadFile(at(tc.name), 64, tc.links)
			done <- answer{b, err}
		}()
		var got answer
		select {
		case got = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadFile(%s, follow=%v) hung", tc.name, tc.links)
		}
		if string(got.b) != tc.want || !errors.Is(got.err, tc.wantErr) || (tc.wantErr == nil) != (got.err == nil) {
			t.Errorf("ReadFile(%s, follow=%v) = %q, %v; want %q, %v", tc.name, tc.links, got.b, got.err, tc.want, tc.wantErr)
		}
	}
}
