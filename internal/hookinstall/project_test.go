package hookinstall

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
)

// TestMainWorktree: a linked worktree names its repository's main
// worktree; the main worktree itself, a folder in no repository and a
// linked worktree of a bare repository (which has no main worktree)
// name none.
func TestMainWorktree(t *testing.T) {
	ctx := context.Background()
	root := gittest.TempDir(t)
	main, linked := filepath.Join(root, "main"), filepath.Join(root, "linked")
	gittest.WriteFile(t, filepath.Join(main, "a.txt"), "a\n")
	gittest.Init(t, main)
	gittest.CommitAll(t, main, "a")
	gittest.Worktree(t, main, linked, "linked", "main")
	bare, ofBare := filepath.Join(root, "bare.git"), filepath.Join(root, "of-bare")
	gittest.Git(t, root, "clone", "-q", "--bare", main, bare)
	gittest.Git(t, bare, "worktree", "add", "-q", "-b", "side", ofBare, "main")
	outside := filepath.Join(root, "plain")
	gittest.WriteFile(t, filepath.Join(outside, "x"), "x\n")

	g := NewGit(ctx)
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"a linked worktree", linked, main},
		{"the main worktree", main, ""},
		{"a linked worktree of a bare repository", ofBare, ""},
		{"no repository", outside, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := g.MainWorktree(ctx, tc.dir)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("MainWorktree(%s) = %q, %v; want %q", tc.dir, got, ok, tc.want)
			}
		})
	}
}
