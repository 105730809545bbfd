package recovery_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hall-dev/hall/internal/recovery"
)

// TestRestoreNamesAreLiteral (issue 40 item 4): a file whose name git
// would read as pathspec magic (a leading ':') or a glob ('[ab].txt',
// which as a glob also names a.txt) is saved and restored by its name,
// and only it.
func TestRestoreNamesAreLiteral(t *testing.T) {
	_, wt := newRepo(t, false)
	ctx := context.Background()
	names := []string{":odd.txt", "[ab].txt", ":(glob)*.txt"}
	for _, n := range names {
		write(t, filepath.Join(wt, n), "content of "+n+"\n", 0o644)
	}
	store := openStore(t, recovery.Limits{}, nil)
	snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := os.Remove(filepath.Join(wt, n)); err != nil {
			t.Fatal(err)
		}
		res, err := store.Restore(ctx, snap.ID, recovery.RestoreOptions{Paths: []string{n}})
		if err != nil || !slices.Equal(res.Restored, []string{n}) {
			t.Errorf("restore %q: restored %q, %v; want it alone", n, res.Restored, err)
		}
		if got, _ := os.ReadFile(filepath.Join(wt, n)); string(got) != "content of "+n+"\n" {
			t.Errorf("%q restored as %q", n, got)
		}
	}
}
