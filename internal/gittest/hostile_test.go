package gittest_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
)

// TestHostileArms: git as a person runs it in an armed repository runs
// the repository's commands (the fixture is worth asserting against).
func TestHostileArms(t *testing.T) {
	wt := gittest.TempDir(t)
	gittest.Init(t, wt)
	gittest.WriteFile(t, filepath.Join(wt, "a.txt"), "a\n")
	gittest.CommitAll(t, wt, "init")
	s := gittest.Hostile(t, wt)
	gittest.WriteFile(t, filepath.Join(wt, "a.txt"), "b\n")
	gittest.Git(t, wt, "status", "--porcelain")
	gittest.Git(t, wt, "add", "-A")
	ran := gittest.Ran(t, s)
	for _, want := range []string{"core.fsmonitor", "filter.clean", "hook.post-index-change"} {
		if !slices.Contains(ran, want) {
			t.Errorf("ran %v, want %s among them", ran, want)
		}
	}
}
