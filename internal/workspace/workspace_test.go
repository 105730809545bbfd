package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
)

// TestFill measures real directories: a subfolder of a linked git
// worktree, the main worktree, and a folder outside git; declared fields
// are kept.
func TestFill(t *testing.T) {
	repo := realPath(t, t.TempDir())
	git(t, repo, "init", "-q")
	git(t, repo, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x")
	wt := filepath.Join(realPath(t, t.TempDir()), "wt2")
	git(t, repo, "worktree", "add", "-q", wt)
	sub := filepath.Join(wt, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := realPath(t, t.TempDir())

	cases := []struct {
		name string
		req  contract.BeatRequest
		dir  string
		want contract.BeatRequest
	}{
		{"linked worktree subfolder", contract.BeatRequest{CallerRoot: sub}, "",
			contract.BeatRequest{CallerRoot: sub, Worktree: wt, Brain: repo}},
		{"caller root from dir", contract.BeatRequest{}, sub,
			contract.BeatRequest{CallerRoot: sub, Worktree: wt, Brain: repo}},
		{"main worktree", contract.BeatRequest{}, repo,
			contract.BeatRequest{CallerRoot: repo, Worktree: repo, Brain: repo}},
		{"outside git", contract.BeatRequest{}, outside,
			contract.BeatRequest{CallerRoot: outside, Brain: outside}},
		{"declared fields kept", contract.BeatRequest{Brain: "/srv/shop", Worktree: "/srv/shop-wt"}, sub,
			contract.BeatRequest{CallerRoot: sub, Worktree: "/srv/shop-wt", Brain: "/srv/shop"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.req
			if err := Fill(&got, tc.dir); err != nil {
				t.Fatal(err)
			}
			if got.CallerRoot != tc.want.CallerRoot || got.Worktree != tc.want.Worktree || got.Brain != tc.want.Brain {
				t.Errorf("got caller_root %q worktree %q brain %q\nwant %q %q %q",
					got.CallerRoot, got.Worktree, got.Brain, tc.want.CallerRoot, tc.want.Worktree, tc.want.Brain)
			}
		})
	}
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
