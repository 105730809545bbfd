package gitscan_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
)

// TestIdentityFallbacks holds the order of a repository's identity (issue
// #43): hall.repository, the tracked remote, origin (as git resolves its
// URL, insteadOf applied), the root commits, the common directory. Each
// case is a real repository; Changes answers the identity too.
func TestIdentityFallbacks(t *testing.T) {
	dir := t.TempDir()
	real := func(p string) string {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	bare := filepath.Join(dir, "bare.git")
	gittest.Git(t, "", "init", "-q", "--bare", bare)
	// A repository with one commit, and the bare repository to point at.
	committed := func(name string) string {
		p := filepath.Join(dir, name)
		gittest.Init(t, p)
		gittest.WriteFile(t, filepath.Join(p, "a.txt"), name+"\n")
		gittest.CommitAll(t, p, "init "+name)
		return p
	}
	root := func(p string) string { return "root:" + gittest.Git(t, p, "rev-parse", "HEAD") }

	cases := []struct {
		name  string
		setup func() string // the worktree
		want  func(wt string) string
		// noCommit: git status cannot answer (Changes fails before its
		// first commit); the identity is asked of Identity itself.
		noCommit bool
	}{{
		name: "tracked remote before origin",
		setup: func() string {
			p := committed("tracked")
			gittest.Git(t, p, "remote", "add", "origin", "https://ana@GitHub.com/ana/shop.git")
			gittest.Git(t, p, "remote", "add", "upstream", "git@github.com:team/shop.git")
			gittest.Git(t, p, "config", "branch.main.remote", "upstream")
			return p
		},
		want: func(string) string { return "github.com/team/shop" },
	}, {
		name: "origin when the branch tracks nothing",
		setup: func() string {
			p := committed("origin")
			gittest.Git(t, p, "remote", "add", "origin", "ssh://git@github.com:22/team/shop")
			return p
		},
		want: func(string) string { return "github.com/team/shop" },
	}, {
		name: "origin when the branch tracks the repository itself",
		setup: func() string {
			p := committed("dot")
			gittest.Git(t, p, "remote", "add", "origin", "git@github.com:team/shop.git")
			gittest.Git(t, p, "config", "branch.main.remote", ".")
			return p
		},
		want: func(string) string { return "github.com/team/shop" },
	}, {
		name: "origin rewritten by insteadOf to a path",
		setup: func() string {
			p := committed("insteadof")
			gittest.Git(t, p, "remote", "add", "origin", "git@example.invalid:o/r.git")
			gittest.Git(t, p, "config", "url."+bare+".insteadOf", "git@example.invalid:o/r.git")
			return p
		},
		want: func(string) string { return "file://" + real(bare) },
	}, {
		name: "a tracked remote with no URL falls to origin",
		setup: func() string {
			p := committed("nourl")
			gittest.Git(t, p, "remote", "add", "origin", "file://"+bare)
			gittest.Git(t, p, "config", "branch.main.remote", "gone")
			return p
		},
		want: func(string) string { return "file://" + real(bare) },
	}, {
		name:  "root commit without a remote",
		setup: func() string { return committed("roots") },
		want:  root,
	}, {
		name: "two root commits, sorted",
		setup: func() string {
			p := committed("tworoots")
			other := committed("other")
			gittest.Git(t, p, "fetch", "-q", other, "main:other")
			gittest.Git(t, p, "merge", "-q", "-s", "ours", "--allow-unrelated-histories", "-m", "join", "other")
			r := strings.Fields(gittest.Git(t, p, "rev-list", "--max-parents=0", "HEAD"))
			slices.Sort(r)
			if len(r) != 2 {
				t.Fatalf("roots: %v", r)
			}
			return p
		},
		want: func(wt string) string {
			r := strings.Fields(gittest.Git(t, wt, "rev-list", "--max-parents=0", "HEAD"))
			slices.Sort(r)
			return "root:" + strings.Join(r, ",")
		},
	}, {
		name: "common directory without a commit or a remote",
		setup: func() string {
			p := filepath.Join(dir, "empty")
			gittest.Init(t, p)
			return p
		},
		want: func(wt string) string {
			return "file://" + gittest.Git(t, wt, "rev-parse", "--path-format=absolute", "--git-common-dir")
		},
		noCommit: true,
	}, {
		name: "hall.repository overrides the remote",
		setup: func() string {
			p := committed("override")
			gittest.Git(t, p, "remote", "add", "origin", "git@github.com:team/shop.git")
			gittest.Git(t, p, "config", gitscan.RepositoryKey, "  shop-of-the-team  ")
			return p
		},
		want: func(string) string { return "shop-of-the-team" },
	}, {
		name: "a blank hall.repository is no override",
		setup: func() string {
			p := committed("blank")
			gittest.Git(t, p, "config", gitscan.RepositoryKey, " ")
			return p
		},
		want: root,
	}, {
		name: "a hall.repository with a control character is no override",
		setup: func() string {
			p := committed("control")
			gittest.Git(t, p, "config", gitscan.RepositoryKey, "shop\x1b[31m")
			return p
		},
		want: root,
	}, {
		name: "a worktree shares its clone's identity",
		setup: func() string {
			p := committed("withwt")
			gittest.Git(t, p, "remote", "add", "origin", "git@github.com:team/shop.git")
			wt := filepath.Join(dir, "withwt-feature")
			gittest.Worktree(t, p, wt, "feature", "main")
			return wt
		},
		want: func(string) string { return "github.com/team/shop" },
	}}
	r := newRunner(t, gitscan.RunnerConfig{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wt := tc.setup()
			want := tc.want(wt)
			if tc.noCommit {
				common := gittest.Git(t, wt, "rev-parse", "--path-format=absolute", "--git-common-dir")
				got, err := r.Identity(context.Background(), wt, "main", "", common)
				if err != nil || got != want {
					t.Errorf("Identity = %q, %v; want %q", got, err, want)
				}
				return
			}
			c, err := r.Changes(context.Background(), wt, gitscan.ChangesOptions{})
			if err != nil {
				t.Fatalf("Changes: %v", err)
			}
			if c.Repository != want {
				t.Errorf("Changes.Repository = %q, want %q", c.Repository, want)
			}
		})
	}
}

// TestIdentityIgnoresGlobalKey: a hall.repository outside the
// repository's own configuration (a global one, here through an
// included file of git's global scope) is not read: one key for every
// repository would join them all.
func TestIdentityIgnoresGlobalKey(t *testing.T) {
	home := t.TempDir()
	gittest.WriteFile(t, filepath.Join(home, "global"), "[hall]\n\trepository = everything\n")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "global"))
	p := filepath.Join(t.TempDir(), "r")
	gittest.Init(t, p)
	gittest.WriteFile(t, filepath.Join(p, "a.txt"), "a\n")
	gittest.CommitAll(t, p, "init")
	r := newRunner(t, gitscan.RunnerConfig{})
	c, err := r.Changes(context.Background(), p, gitscan.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "root:" + gittest.Git(t, p, "rev-parse", "HEAD"); c.Repository != want {
		t.Errorf("Repository = %q, want %q (the global key ignored)", c.Repository, want)
	}
}
