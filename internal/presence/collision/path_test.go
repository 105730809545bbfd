package collision

import (
	"testing"
)

// cleanPath takes its shortcut only for paths Clean leaves alone, and
// answers as Clean does for every other.
func TestCleanPath(t *testing.T) {
	tests := []struct {
		path      string
		wantClean bool // isClean: the shortcut is taken
		want      string
	}{
		{"/", true, "/"},
		{"/home/ana/shop", true, "/home/ana/shop"},
		{"src/auth/login.go", true, "src/auth/login.go"},
		{"a", true, "a"},
		{"", false, "."},
		{".", false, "."},
		{"..", false, ".."},
		{"../a", false, "../a"},
		{"./a", false, "a"},
		{"/a/", false, "/a"},
		{"//a", false, "/a"},
		{"/a//b", false, "/a/b"},
		{"/a/./b", false, "/a/b"},
		{"/a/../b", false, "/b"},
		{"/a/.", false, "/a"},
		{"/a/..", false, "/"},
		{"/a/.git", false, "/a/.git"}, // conservative: a dot name takes the long way
		{".git/config", false, ".git/config"},
		{"/a b/c\x00d", true, "/a b/c\x00d"},
	}
	for _, tt := range tests {
		if got := isClean(tt.path); got != tt.wantClean {
			t.Errorf("isClean(%q): got %v, want %v", tt.path, got, tt.wantClean)
		}
		if got := cleanPath(tt.path); got != tt.want {
			t.Errorf("cleanPath(%q): got %q, want %q", tt.path, got, tt.want)
		}
	}
}
