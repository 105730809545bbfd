package presence_test

import (
	"testing"

	"github.com/hall-dev/hall/internal/presence"
)

// TestRelPath: a path below the root comes back relative whether it takes
// the short way (both clean) or filepath.Rel's; the root itself is ".";
// anything else is outside.
func TestRelPath(t *testing.T) {
	for _, tt := range []struct{ root, abs, want string }{
		{"/home/ana/shop", "/home/ana/shop/src/cart.go", "src/cart.go"},
		{"/home/ana/shop", "/home/ana/shop/a", "a"},
		{"/home/ana/shop", "/home/ana/shop/src/../go.mod", "go.mod"},
		{"/home/ana/shop", "/home/ana/shop//src/cart.go", "src/cart.go"},
		{"/home/ana/shop/", "/home/ana/shop/src/cart.go", "src/cart.go"},
		{"/", "/etc/hosts", "etc/hosts"},
		{"/home/ana/shop", "/home/ana/shop", "."},
		{"/home/ana/shop", "/home/ana/shop/", "."},
		{"/home/ana/shop", "/home/ana/shopping/x.go", ""},
		{"/home/ana/shop", "/home/ana/shop/../x.go", ""},
		{"/home/ana/shop", "/home/ana/x.go", ""},
		{"/home/ana/shop", "/home/ana/shop/src/../../x.go", ""},
		{"/home/ana/shop", "src/cart.go", ""},
		{"/home/./ana/shop", "/home/./ana/shop/x.go", "x.go"},
		{"/home/ana/shop", "/home/ana/shop/./x.go", "x.go"},
		{"/home/ana/shop", "/home/ana/shop/src/", "src"},
		{"", "/home/ana/shop/src/cart.go", ""},
	} {
		if got := presence.RelPath(tt.root, tt.abs); got != tt.want {
			t.Errorf("RelPath(%q, %q) = %q, want %q", tt.root, tt.abs, got, tt.want)
		}
	}
}
