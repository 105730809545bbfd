package main

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
)

// tree lists what lies beneath dir: each path with its content (a link:
// "-> target"), to compare before and after a command.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[p] = "-> " + target
			return err
		case d.IsDir():
			out[p] = "/"
		default:
			b, err := os.ReadFile(p)
			out[p] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// linkedRepo is a git repository that commits folder (".claude") as a
// symbolic link to outside, a folder beside the repository holding a
// settings file of another program's and, for an uninstall to change, one
// with the Hall's hooks.
func linkedRepo(t *testing.T, folder string) (repo, outside string) {
	t.Helper()
	root := gittest.TempDir(t)
	repo, outside = filepath.Join(root, "repo"), filepath.Join(root, "elsewhere")
	gittest.WriteFile(t, filepath.Join(repo, "main.go"), "package main\n")
	gittest.WriteFile(t, filepath.Join(outside, "keep.txt"), "not the Hall's\n")
	gittest.Init(t, repo)
	if err := os.Symlink(outside, filepath.Join(repo, folder)); err != nil {
		t.Fatal(err)
	}
	gittest.CommitAll(t, repo, "a folder that is a link")
	return repo, outside
}

// TestHooksInstallNeverWritesOutThroughAFolderLink (issue 40, item 2): a
// repository that commits .claude (.codex, .cursor, .gemini) as a link to
// a folder outside it: install, uninstall and --force exit 1 naming the
// link and where it leads, and nothing outside changes: no file, no
// backup, no temporary file, no lock file; --dry-run says the same.
func TestHooksInstallNeverWritesOutThroughAFolderLink(t *testing.T) {
	t.Setenv("PATH", t.TempDir()+string(os.PathListSeparator)+os.Getenv("PATH")) // git stays reachable
	t.Setenv("HOME", t.TempDir())
	for _, c := range []struct{ agent, folder, file string }{
		{"claude", ".claude", "settings.local.json"},
		{"codex", ".codex", "hooks.json"},
		{"cursor", ".cursor", "hooks.json"},
		{"gemini", ".gemini", "settings.json"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			repo, outside := linkedRepo(t, c.folder)
			t.Chdir(repo)
			check := func(args ...string) {
				t.Helper()
				before := tree(t, outside)
				code, stdout, stderr := runCLI(t, "", append([]string{"hooks"}, args...)...)
				link := filepath.Join(repo, c.folder)
				if code != 1 || !strings.Contains(stderr, link+" is a symbolic link to "+outside) || !strings.Contains(stderr, "nothing was changed") {
					t.Errorf("%v: exit %d\n%s%s; want 1 naming %s and %s", args, code, stdout, stderr, link, outside)
				}
				if after := tree(t, outside); !maps.Equal(before, after) {
					t.Errorf("%v wrote outside the project:\nbefore %q\nafter  %q", args, before, after)
				}
			}
			// No file there yet: the install would create it.
			check("install", c.agent)
			check("install", c.agent, "--force")
			check("install", c.agent, "--dry-run")
			// Another program's file there: the install would back it up
			// beside it, then replace it.
			gittest.WriteFile(t, filepath.Join(outside, c.file), "{\"theme\":\"dark\"}\n")
			check("install", c.agent)
			check("install", c.agent, "--force")
			// The Hall's hooks there: the uninstall would edit or remove it.
			other := t.TempDir()
			if code, stdout, stderr := runCLI(t, "", "hooks", "install", c.agent, "--project", other); code != 0 {
				t.Fatalf("install elsewhere: exit %d\n%s%s", code, stdout, stderr)
			}
			installed, err := os.ReadFile(filepath.Join(other, c.folder, c.file))
			if err != nil {
				t.Fatal(err)
			}
			gittest.WriteFile(t, filepath.Join(outside, c.file), string(installed))
			check("uninstall", c.agent)
			check("uninstall", c.agent, "--force")
		})
	}
}

// TestHooksInstallFollowsALinkInsideTheProject: a folder link that stays
// inside the project (.claude -> config/claude) is followed, as os.Root
// follows it: the file, its backup and its removal land in config/claude.
func TestHooksInstallFollowsALinkInsideTheProject(t *testing.T) {
	t.Setenv("PATH", t.TempDir()+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("HOME", t.TempDir())
	repo := filepath.Join(gittest.TempDir(t), "repo")
	target := filepath.Join(repo, "config", "claude")
	gittest.WriteFile(t, filepath.Join(target, "settings.local.json"), "{\"model\":\"opus\"}\n")
	gittest.Init(t, repo)
	if err := os.Symlink(filepath.Join("config", "claude"), filepath.Join(repo, ".claude")); err != nil {
		t.Fatal(err)
	}
	gittest.CommitAll(t, repo, "a folder link inside")
	code, stdout, stderr := runCLI(t, "", "hooks", "install", "claude", "--project", repo)
	if code != 0 || !strings.Contains(stdout, "backup: ") || !strings.Contains(stdout, "written") {
		t.Fatalf("install through a link inside: exit %d\n%s%s", code, stdout, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(target, "settings.local.json"))
	if !strings.Contains(string(b), `"model":"opus"`) || !strings.Contains(string(b), "hall beat --hook claude") {
		t.Errorf("config/claude/settings.local.json:\n%s", b)
	}
	backups, _ := filepath.Glob(filepath.Join(target, "settings.local.json.hall-backup-*"))
	if len(backups) != 1 {
		t.Errorf("backups in config/claude: %q; want one", backups)
	}
	if fi, err := os.Lstat(filepath.Join(repo, ".claude")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf(".claude is no longer the link: %v", err)
	}
	code, stdout, stderr = runCLI(t, "", "hooks", "uninstall", "claude", "--project", repo)
	if b, _ := os.ReadFile(filepath.Join(target, "settings.local.json")); code != 0 || strings.Contains(string(b), "hall beat") || !strings.Contains(string(b), `"model":"opus"`) {
		t.Errorf("uninstall through a link inside: exit %d\n%s%s\n%s", code, stdout, stderr, b)
	}
}

// TestHooksInstallUserFolderLink: a home whose .claude is a link out of
// it (dotfiles kept elsewhere) is refused without --force, nothing
// written, the link and --force named; with --force the person's own link
// is followed: the file is written where it leads, the link stays.
func TestHooksInstallUserFolderLink(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	home, dotfiles := gittest.TempDir(t), gittest.TempDir(t)
	t.Setenv("HOME", home)
	link := filepath.Join(home, ".claude")
	if err := os.Symlink(dotfiles, link); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, filepath.Join(dotfiles, "settings.json"), "{\"model\":\"opus\"}\n")
	before := tree(t, dotfiles)
	code, stdout, stderr := runCLI(t, "", "hooks", "install", "claude", "--user")
	if code != 1 || !strings.Contains(stderr, link+" is a symbolic link to "+dotfiles) || !strings.Contains(stderr, "--force") {
		t.Errorf("--user through a link out of home: exit %d\n%s%s; want 1 naming the link and --force", code, stdout, stderr)
	}
	if after := tree(t, dotfiles); !maps.Equal(before, after) {
		t.Errorf("refused, yet written:\nbefore %q\nafter  %q", before, after)
	}
	code, stdout, stderr = runCLI(t, "", "hooks", "install", "claude", "--user", "--force")
	if code != 0 || !strings.Contains(stdout, "written") || !strings.Contains(stdout, "backup: "+link+string(filepath.Separator)+"settings.json.hall-backup-") {
		t.Fatalf("--user --force: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dotfiles, "settings.json")); !strings.Contains(string(b), "hall beat --hook claude") || !strings.Contains(string(b), `"model":"opus"`) {
		t.Errorf("the dotfiles' settings.json:\n%s", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("~/.claude is no longer the link: %v", err)
	}
}

// TestHooksGitExcludeNeverWritesOutThroughALink: a repository whose
// .git/info is a link out of its git folder (an unpacked archive can
// hold one): --git-exclude exits 1 naming it, and nothing outside
// changes.
func TestHooksGitExcludeNeverWritesOutThroughALink(t *testing.T) {
	t.Setenv("PATH", t.TempDir()+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("HOME", t.TempDir())
	root := gittest.TempDir(t)
	repo, outside := filepath.Join(root, "repo"), filepath.Join(root, "elsewhere")
	gittest.WriteFile(t, filepath.Join(repo, "main.go"), "package main\n")
	gittest.WriteFile(t, filepath.Join(outside, "exclude"), "# not the repository's\n")
	gittest.Init(t, repo)
	gittest.CommitAll(t, repo, "main")
	info := filepath.Join(repo, ".git", "info")
	if err := os.RemoveAll(info); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, info); err != nil {
		t.Fatal(err)
	}
	before := tree(t, outside)
	code, stdout, stderr := runCLI(t, "", "hooks", "install", "codex", "--project", repo, "--git-exclude")
	if code != 1 || !strings.Contains(stderr, info+" is a symbolic link to "+outside) {
		t.Errorf("--git-exclude through .git/info -> elsewhere: exit %d\n%s%s; want 1 naming the link", code, stdout, stderr)
	}
	if after := tree(t, outside); !maps.Equal(before, after) {
		t.Errorf("--git-exclude wrote outside the repository:\nbefore %q\nafter  %q", before, after)
	}
}
