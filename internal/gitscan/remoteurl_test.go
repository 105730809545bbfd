package gitscan_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hall-dev/hall/internal/gitscan"
)

func TestRemoteIdentity(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "srv", "shop.git")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.git")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	resolvedReal, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	local := "file://" + filepath.ToSlash(resolvedReal)
	for _, tc := range []struct{ raw, dir, want string }{
		{"git@github.com:o/r.git", "", "github.com/o/r"},
		{"github.com:o/r", "", "github.com/o/r"},
		{"ssh://git@github.com/o/r", "", "github.com/o/r"},
		{"ssh://git@github.com:22/o/r.git", "", "github.com/o/r"},
		{"ssh://git@github.com:2222/o/r.git", "", "github.com:2222/o/r"},
		{"git+ssh://git@github.com/o/r", "", "github.com/o/r"},
		{"https://ana@GitHub.com/o/r.git", "", "github.com/o/r"},
		{"https://github.com/o/r/", "", "github.com/o/r"},
		{"https://github.com:443/o/r", "", "github.com/o/r"},
		{"http://gitea.local:3000/o/r.git", "", "gitea.local:3000/o/r"},
		{"git://github.com/o/r.git", "", "github.com/o/r"},
		{"ssh://git@[::1]:22/o/r", "", "::1/o/r"},
		{"git@host:~ana/r.git", "", "host/ana/r"},
		{"  https://h/o/r.git\n", "", "h/o/r"},
		// On this machine's disk: one form for a path, file:// and a link.
		{real, "", local},
		{"file://" + real, "", local},
		{link, "", local},
		{"srv/shop.git", dir, local},
		{"./srv/../srv/shop.git/", dir, local},
		{filepath.Join(dir, "clone", ".git"), "", "file://" + filepath.ToSlash(filepath.Join(dir, "clone"))},
		// Not a URL git would use here.
		{"", "", ""},
		{"relative/only", "", ""},
		{"ext::sh -c evil", "", ""},
		{"ext::sh -c evil", "/tmp", ""},
		{"https://h/o\nr", "", ""},
		{"https:///o/r", "", ""},
	} {
		if got := gitscan.RemoteIdentity(tc.raw, tc.dir); got != tc.want {
			t.Errorf("RemoteIdentity(%q, %q) = %q, want %q", tc.raw, tc.dir, got, tc.want)
		}
	}
}
