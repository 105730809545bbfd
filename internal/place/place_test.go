package place

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
)

// gitSays is what git itself answers for dir: the answer Locate must give
// without running it.
func gitSays(t *testing.T, dir string) Repo {
	t.Helper()
	out, err := gittest.Command(context.Background(), dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir").Output()
	if err != nil {
		return Repo{}
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("git rev-parse in %s: %q", dir, out)
	}
	main := lines[0]
	if filepath.Base(lines[1]) == ".git" {
		main = filepath.Dir(lines[1])
	}
	return Repo{Top: lines[0], Main: main}
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLocateAgreesWithGit builds real repositories (a plain one, a linked
// worktree, a bare repository's worktree, a submodule) and checks Locate
// against `git rev-parse` in each folder, including subfolders and a
// symlink into one.
func TestLocateAgreesWithGit(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	shop := mkdir(t, filepath.Join(root, "shop"))
	gittest.Git(t, shop, "init")
	mkdir(t, filepath.Join(shop, "src", "checkout"))
	os.WriteFile(filepath.Join(shop, "src", "checkout", "cart.go"), []byte("package checkout\n"), 0o644)
	gittest.Git(t, shop, "add", ".")
	gittest.Git(t, shop, "commit", "-m", "one")
	gittest.Git(t, shop, "worktree", "add", filepath.Join(root, "shop-wt2"), "-b", "wt2")

	bare := filepath.Join(root, "lib.git")
	gittest.Git(t, root, "clone", "--bare", shop, bare)
	gittest.Git(t, bare, "worktree", "add", filepath.Join(root, "lib-wt"), "wt2")

	gittest.Git(t, shop, "submodule", "add", bare, "vendor/lib")

	outside := mkdir(t, filepath.Join(root, "notes", "deep"))
	if err := os.Symlink(filepath.Join(shop, "src"), filepath.Join(root, "link-to-src")); err != nil {
		t.Fatal(err)
	}

	for _, dir := range []string{
		shop,
		filepath.Join(shop, "src", "checkout"),
		filepath.Join(root, "shop-wt2"),
		filepath.Join(root, "shop-wt2", "src", "checkout"),
		filepath.Join(root, "lib-wt"),
		filepath.Join(shop, "vendor", "lib"),
		filepath.Join(shop, "vendor", "lib", "src"),
		outside,
		filepath.Join(root, "link-to-src"),
	} {
		want := gitSays(t, dir)
		if got := Locate(dir); got != want {
			t.Errorf("Locate(%s) = %+v, git says %+v", dir, got, want)
		}
	}
	// The cases git answered are the ones that matter: check a few by hand
	// so the test cannot pass with both sides empty.
	if got := Locate(filepath.Join(root, "shop-wt2", "src")); got.Top != filepath.Join(root, "shop-wt2") || got.Main != shop {
		t.Errorf("linked worktree: got %+v, want top %s and main %s", got, filepath.Join(root, "shop-wt2"), shop)
	}
	if got := Locate(outside); got != (Repo{}) {
		t.Errorf("outside git: got %+v, want empty", got)
	}
}

func TestLocateRefusesBrokenGitFiles(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{
		"empty":        "",
		"no-prefix":    "/somewhere/.git/worktrees/x\n",
		"blank-gitdir": "gitdir:   \n",
		"missing":      "gitdir: " + filepath.Join(root, "nowhere") + "\n",
	} {
		dir := mkdir(t, filepath.Join(root, name))
		if err := os.WriteFile(filepath.Join(dir, ".git"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := Locate(dir); got != (Repo{}) {
			t.Errorf("%s: Locate = %+v, want empty", name, got)
		}
	}
	// A .git folder without HEAD is not a repository.
	dir := mkdir(t, filepath.Join(root, "fake", ".git"))
	if got := Locate(filepath.Dir(dir)); got != (Repo{}) {
		t.Errorf("fake .git folder: Locate = %+v, want empty", got)
	}
}

func TestComplete(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	shop := mkdir(t, filepath.Join(root, "shop"))
	gittest.Git(t, shop, "init")
	os.WriteFile(filepath.Join(shop, "a"), []byte("a"), 0o644)
	gittest.Git(t, shop, "add", ".")
	gittest.Git(t, shop, "commit", "-m", "one")
	wt := filepath.Join(root, "shop-wt2")
	gittest.Git(t, shop, "worktree", "add", wt, "-b", "wt2")
	sub := mkdir(t, filepath.Join(wt, "src"))
	plain := mkdir(t, filepath.Join(root, "plain"))

	for _, tc := range []struct {
		name     string
		in, want Place
	}{
		{"linked worktree subfolder", Place{CallerRoot: sub}, Place{CallerRoot: sub, Worktree: wt, Brain: shop}},
		{"main worktree", Place{CallerRoot: shop}, Place{CallerRoot: shop, Worktree: shop, Brain: shop}},
		{"outside git", Place{CallerRoot: plain}, Place{CallerRoot: plain, Brain: plain}},
		{"given fields kept", Place{CallerRoot: sub, Worktree: "/w", Brain: "/b"}, Place{CallerRoot: sub, Worktree: "/w", Brain: "/b"}},
		{"no caller root", Place{Brain: "/b"}, Place{Brain: "/b"}},
	} {
		if got := tc.in.Complete(context.Background()); got != tc.want {
			t.Errorf("%s: Complete(%+v) = %+v, want %+v", tc.name, tc.in, got, tc.want)
		}
	}
}
