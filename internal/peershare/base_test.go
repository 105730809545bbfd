package peershare_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/peershare"
	"github.com/hall-dev/hall/internal/remotewatch"
)

// TestSharerFetchesThePeersBase: bravo committed notes.txt on top of the
// remote's main and kept a.txt's edit uncommitted; alpha (the predictor)
// never fetched that commit. Pushed to the remote, alpha finds it by
// fetching it into its own store of the remote and predicts the
// conflict on a.txt; not pushed, the merge is unknown, base_not_here.
// Alpha's clone is byte for byte as it was: refs, no FETCH_HEAD, objects,
// config.
func TestSharerFetchesThePeersBase(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig")) // the person's own helpers stay out
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, c := range []struct {
		name   string
		pushed bool
		merge  string
		reason string
	}{
		{"pushed", true, contract.MergeConflict, ""},
		{"not pushed", false, contract.MergeUnknown, contract.MergeReasonBaseNotHere},
	} {
		t.Run(c.name, func(t *testing.T) {
			var alphaGit, before string
			var stores string
			a, b := twoHostsWith(t, peershare.Bounds{}, func(host, clone, remote string, cfg *peershare.Config) {
				switch host {
				case "alpha":
					alphaGit, before = filepath.Join(clone, ".git"), gittest.GitDirPrint(t, filepath.Join(clone, ".git"))
					run, err := gitscan.NewRunner(context.Background(), gitscan.RunnerConfig{Timeout: time.Minute})
					if err != nil {
						t.Fatal(err)
					}
					stores = filepath.Join(t.TempDir(), "remotes")
					cfg.Bases = remotewatch.NewCommits(run, stores, 0)
				case "bravo":
					gittest.WriteFile(t, filepath.Join(clone, "notes.txt"), "bravo's notes\n")
					gittest.Git(t, clone, "add", "notes.txt")
					gittest.Git(t, clone, "commit", "-q", "-m", "bravo's notes")
					if c.pushed {
						gittest.Git(t, clone, "push", "-q", "origin", "HEAD:refs/heads/bravo")
					}
				}
			})
			aa, bb := want(a, b)
			eventually.True(t, within, "alpha's verdict", func() bool {
				v, ok := a.sharer.Verdict(aa, bb)
				return ok && v.Merge == c.merge && v.Reason == c.reason
			})
			if after := gittest.GitDirPrint(t, alphaGit); after != before {
				t.Errorf("alpha's clone changed:\nbefore\n%s\nafter\n%s", before, after)
			}
			if _, err := os.Stat(filepath.Join(alphaGit, "FETCH_HEAD")); err == nil {
				t.Error("alpha's clone has a FETCH_HEAD")
			}
			head := strings.TrimSpace(gittest.Git(t, b.clone, "rev-parse", "HEAD"))
			if err := exec.Command("git", "--git-dir", alphaGit, "cat-file", "-e", head).Run(); err == nil {
				t.Error("alpha's clone has bravo's HEAD")
			}
			if c.pushed {
				if ents, _ := os.ReadDir(stores); len(ents) != 1 {
					t.Errorf("stores: got %d, want the remote's one", len(ents))
				}
			}
		})
	}
}
