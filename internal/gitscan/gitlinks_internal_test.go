package gitscan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
)

// TestHasGitlinks reads real indexes, of each version and both hashes,
// with and without a submodule's entry; what it cannot walk (cut short,
// not an index) answers true, the safe way.
func TestHasGitlinks(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		for _, version := range []string{"2", "3", "4"} {
			for _, link := range []bool{false, true} {
				t.Run(format+"/v"+version, func(t *testing.T) {
					dir := gittest.TempDir(t)
					gittest.Git(t, "", "init", "-q", "--object-format="+format, dir)
					gittest.WriteFile(t, filepath.Join(dir, "a.txt"), "a\n")
					gittest.WriteFile(t, filepath.Join(dir, "deep", "dir", "with-a-longer-name.go"), "b\n")
					gittest.Git(t, dir, "add", "-A")
					if version == "3" {
						gittest.WriteFile(t, filepath.Join(dir, "i.txt"), "i\n")
						gittest.Git(t, dir, "add", "-N", "i.txt") // an extended flag
					}
					if link {
						zero := "0000000000000000000000000000000000000001"
						if format == "sha256" {
							zero = "0000000000000000000000000000000000000000000000000000000000000001"
						}
						gittest.Git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+zero+",sub")
					}
					gittest.Git(t, dir, "update-index", "--index-version", version)
					size := 20
					if format == "sha256" {
						size = 32
					}
					index := filepath.Join(dir, ".git", "index")
					if got := hasGitlinks(index, size); got != link {
						t.Errorf("hasGitlinks = %v, want %v", got, link)
					}
					b, _ := os.ReadFile(index)
					cut := filepath.Join(t.TempDir(), "index")
					if err := os.WriteFile(cut, b[:len(b)-size-3], 0o600); err != nil {
						t.Fatal(err)
					}
					if !hasGitlinks(cut, size) {
						t.Error("an index cut short: false, want true")
					}
				})
			}
		}
	}
	if hasGitlinks(filepath.Join(t.TempDir(), "none"), 20) {
		t.Error("no index: true, want false")
	}
}
