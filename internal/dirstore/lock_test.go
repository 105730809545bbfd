package dirstore

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTryLock: one holder at a time; the next is told who holds it and
// does not wait; a lock let go (or only a file left behind by a holder
// that died) is taken again.
func TestTryLock(t *testing.T) {
	root := t.TempDir()
	// A file a dead holder left: no one holds it.
	if err := os.WriteFile(filepath.Join(root, LockName), []byte("pid 1, gone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first, held, err := TryLock(root, "pid 10, starting")
	if err != nil || first == nil || held != "" {
		t.Fatalf("first TryLock: got %v, %q, %v; want the lock", first, held, err)
	}
	if err := first.SetNote("pid 10, http://127.0.0.1:7433"); err != nil {
		t.Fatal(err)
	}
	second, held, err := TryLock(root, "pid 20, starting")
	if err != nil || second != nil || held != "pid 10, http://127.0.0.1:7433" {
		t.Fatalf("second TryLock while held: got %v, %q, %v; want no lock and the holder's note", second, held, err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	third, held, err := TryLock(root, "pid 30, starting")
	if err != nil || third == nil || held != "" {
		t.Fatalf("TryLock once let go: got %v, %q, %v; want the lock", third, held, err)
	}
	defer third.Close()
	if data, _ := os.ReadFile(filepath.Join(root, LockName)); string(data) != "pid 30, starting\n" {
		t.Errorf("lock file: got %q, want the new holder's note alone", data)
	}
	if _, _, err := TryLock(filepath.Join(root, "missing", "deeper"), "x"); err == nil {
		t.Errorf("TryLock in a folder that does not exist: got nil, want an error")
	}
}
