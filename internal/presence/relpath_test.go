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

// TestRelFile: a path below the root is a file's name; the root itself
// and a path outside it name none.
func TestRelFile(t *testing.T) {
	for _, tt := range []struct {
		root, abs, want string
		ok              bool
	}{
		{"/home/ana/shop", "/home/ana/shop/src/cart.go", "src/cart.go", true},
		{"/home/ana/shop", "/home/ana/shop", "", false},
		{"/home/ana/shop", "/home/ana/shop/", "", false},
		{"/home/ana/shop", "/home/ana/x.go", "", false},
		{"", "/home/ana/shop/x.go", "", false},
	} {
		if got, ok := presence.RelFile(tt.root, tt.abs); got != tt.want || ok != tt.ok {
			t.Errorf("RelFile(%q, %q) = %q, %v; want %q, %v", tt.root, tt.abs, got, ok, tt.want, tt.ok)
		}
	}
}
