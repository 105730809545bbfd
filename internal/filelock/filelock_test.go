package filelock_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hall-dev/hall/internal/filelock"
)

// TestTryLock: a second holder of a folder's lock is told who holds it,
// and takes it once the first lets go. Two opens of one file in one
// process exclude each other as two processes do (flock and LockFileEx
// alike lock per open file).
func TestTryLock(t *testing.T) {
	dir := t.TempDir()
	first, held, err := filelock.TryLock(dir, "pid 1, first")
	if err != nil || first == nil || held != "" {
		t.Fatalf("first TryLock: %v, %v, %q; want the lock", first, err, held)
	}
	second, held, err := filelock.TryLock(dir, "pid 2")
	if err != nil || second != nil || held != "pid 1, first" {
		t.Fatalf("second TryLock: %v, %v, %q; want refused, naming the first", second, err, held)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, held, err = filelock.TryLock(dir, "pid 2")
	if err != nil || second == nil || held != "" {
		t.Fatalf("TryLock after the first let go: %v, %v, %q; want the lock", second, err, held)
	}
	second.Close()
}

// TestTryLockRefusesALink: the lock file is never a link to another file
// (the note would be written there).
func TestTryLockRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, filelock.Name)); err != nil {
		t.Fatal(err)
	}
	l, _, err := filelock.TryLock(dir, "pid 1")
	if l != nil || err == nil {
		t.Fatalf("TryLock over a link: %v, %v; want an error", l, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}

func TestTryFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	open := func() *os.File {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	try := func(f *os.File, mode filelock.Mode) bool {
		held, err := filelock.TryFile(f, mode)
		if err != nil {
			t.Fatal(err)
		}
		return held
	}
	a, b, c := open(), open(), open()
	if try(a, filelock.Shared) || try(b, filelock.Shared) {
		t.Fatal("two shared locks: one was refused")
	}
	if !try(c, filelock.Exclusive) {
		t.Fatal("an exclusive lock beside two shared ones: taken")
	}
	a.Close()
	b.Close()
	if try(c, filelock.Exclusive) {
		t.Fatal("an exclusive lock once the shared ones went: refused")
	}
	if !try(open(), filelock.Shared) {
		t.Fatal("a shared lock beside an exclusive one: taken")
	}
}
