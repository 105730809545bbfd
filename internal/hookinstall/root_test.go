package hookinstall

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realTemp is t.TempDir with its links resolved.
func realTemp(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}

// TestFolderLinks: what the installer does with each kind of folder link
// between the root and the file: a relative one that stays beneath the
// root is followed (os.Root follows it); one leading out, an absolute one
// (even to a folder beneath the root) and one leading nowhere are refused
// by name, nothing read or written, --force or not; the person's own
// (User) is refused saying --force, and followed with it.
func TestFolderLinks(t *testing.T) {
	for _, c := range []struct {
		name        string
		target      func(root, outside string) string
		user, force bool
		why         string // "" when followed
	}{
		{name: "relative, inside", target: func(root, _ string) string { return "config" }},
		{name: "relative, out", target: func(_, _ string) string { return "../elsewhere" }, why: "leads out of"},
		{name: "absolute, out", target: func(_, outside string) string { return outside }, why: "leads out of"},
		{name: "absolute, out, forced", target: func(_, outside string) string { return outside }, force: true, why: "leads out of"},
		{name: "absolute, inside", target: func(root, _ string) string { return filepath.Join(root, "config") }, why: "is absolute"},
		{name: "nowhere", target: func(root, _ string) string { return "missing" }, why: "leads nowhere"},
		{name: "user, out", target: func(_, outside string) string { return outside }, user: true, why: "leads out of"},
		{name: "user, out, forced", target: func(_, outside string) string { return outside }, user: true, force: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := realTemp(t)
			root, outside := filepath.Join(base, "root"), filepath.Join(base, "elsewhere")
			write(t, filepath.Join(outside, "settings.json"), `{"theme":"dark"}`)
			write(t, filepath.Join(root, "config", "settings.json"), `{"theme":"dark"}`)
			link := filepath.Join(root, ".claude")
			symlink(t, c.target(root, outside), link)
			file := filepath.Join(link, "settings.json")

			res, err := Install(Options{Agent: "claude", File: file, Root: root, User: c.user, Force: c.force})
			var out *LinkOutError
			if c.why != "" {
				if !errors.As(err, &out) || out.Link != link || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "nothing was changed") {
					t.Fatalf("Install: %v; want a LinkOutError naming %s, %q", err, link, c.why)
				}
				if c.user != strings.Contains(err.Error(), "--force writes") {
					t.Errorf("user %v: %v", c.user, err)
				}
				for _, d := range []string{outside, filepath.Join(root, "config")} {
					if got := entries(t, d); len(got) != 1 {
						t.Errorf("%s: %q; want settings.json alone", d, got)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Install: %v", err)
			}
			backup, err := Write(res, at0)
			if err != nil || backup != file+".hall-backup-20251130T080000Z" {
				t.Fatalf("Write: backup %q, %v", backup, err)
			}
			b, _ := os.ReadFile(file)
			if !strings.Contains(string(b), "hall beat --hook claude") || !strings.Contains(string(b), `"theme":"dark"`) {
				t.Errorf("%s:\n%s", file, b)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("%s is no longer a link: %v", link, err)
			}
			if c.user && !strings.Contains(strings.Join(res.Notes, "\n"), link+" is a symbolic link to "+outside+": --force writes beneath "+outside) {
				t.Errorf("notes %q; want the link followed named", res.Notes)
			}
		})
	}
}

// TestWriteRechecksTheFolders: a folder swapped for a link out of the
// root between the read and the write: Write refuses it by name, and
// nothing is written where it leads (no file, backup or temporary file).
func TestWriteRechecksTheFolders(t *testing.T) {
	base := realTemp(t)
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "elsewhere")
	file := filepath.Join(root, ".codex", "hooks.json")
	write(t, file, `{}`)
	write(t, filepath.Join(outside, "hooks.json"), `{}`)
	res, err := Install(Options{Agent: "codex", File: file, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Dir(file)); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Dir(file))
	var out *LinkOutError
	if _, err := Write(res, at0); !errors.As(err, &out) || out.Target != outside {
		t.Fatalf("Write through a swapped folder: %v; want a LinkOutError", err)
	}
	if got := entries(t, outside); len(got) != 1 {
		t.Errorf("written where the link leads: %q", got)
	}
}

// TestUninstallKeepsAFolderLink: an uninstall that removes the file the
// Hall wrote whole removes a real folder it leaves empty, but never a
// folder link inside the root (.claude -> config/claude is somebody's):
// the link and the folder it leads to stay.
func TestUninstallKeepsAFolderLink(t *testing.T) {
	root := realTemp(t)
	if err := os.MkdirAll(filepath.Join(root, "config", "claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, ".claude")
	symlink(t, filepath.Join("config", "claude"), link)
	file := filepath.Join(link, "settings.json")
	o := Options{Agent: "claude", File: file, Root: root}
	install(t, o)
	un, err := Uninstall(o)
	if err != nil || !un.Remove {
		t.Fatalf("uninstall: remove %v, %v", un.Remove, err)
	}
	if _, err := Write(un, at0); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the folder link went: %v", err)
	}
	if got := entries(t, filepath.Join(root, "config", "claude")); len(got) != 0 {
		t.Errorf("left in config/claude: %q", got)
	}
}
