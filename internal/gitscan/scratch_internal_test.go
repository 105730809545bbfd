package gitscan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScratchRotates: past its bound the scratch starts a new generation
// each measure, reads the one before it as well, and removes older ones;
// a snapshot of a removed generation is no longer live.
func TestScratchRotates(t *testing.T) {
	root := filepath.Join(t.TempDir(), "scratch")
	s, err := NewScratch(root, 1)
	if err != nil {
		t.Fatal(err)
	}
	const gitDir = "/srv/shop/.git"
	fill := func() {
		env, _, err := s.env(gitDir)
		if err != nil {
			t.Fatal(err)
		}
		dir := strings.TrimPrefix(env[0], "GIT_OBJECT_DIRECTORY=")
		if err := os.WriteFile(filepath.Join(dir, "pack-x"), []byte("two bytes at least"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	measure := func() {
		for range scratchCheckEvery {
			s.took()
		}
	}
	fill()
	measure()
	if s.gen != 1 || !s.live(0) {
		t.Fatalf("after one measure over the bound: generation %d, 0 live %v; want 1, true", s.gen, s.live(0))
	}
	env, _, _ := s.env(gitDir)
	if alt := env[1]; !strings.Contains(alt, filepath.Join(root, "0")) || !strings.HasSuffix(alt, filepath.Join(gitDir, "objects")) {
		t.Errorf("alternates %q: want the generation before, then the repository's", alt)
	}
	fill()
	measure()
	if _, err := os.Stat(filepath.Join(root, "0")); !os.IsNotExist(err) || s.live(0) || !s.live(1) {
		t.Errorf("after two: generation 0 on disk (%v) or live (%v), 1 live %v", err, s.live(0), s.live(1))
	}
}
