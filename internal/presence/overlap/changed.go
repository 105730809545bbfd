package overlap

import (
	"path/filepath"
	"slices"

	"github.com/hall-dev/hall/internal/presence"
)

// Change is one file a presence changed, repository-relative, and what
// showed it: observed, git, or both.
type Change struct {
	Path    string
	Sources []Source
}

// Changed lists what one presence changed (issue #20, item 1): its
// observed files and git's, each made relative to its worktree and
// labelled apart, sorted by path, at most limit (0: DefaultMaxFiles), with
// the count of all. Unlike an overlap, it keeps an observed file git no
// longer lists: the hooks did see it change, and the two labels say which
// source says what. A party without a worktree changed nothing here.
func Changed(p Party, limit int) ([]Change, int) {
	if p.Worktree == "" {
		return nil, 0
	}
	wt := filepath.Clean(p.Worktree)
	m := map[string]mask{}
	for _, t := range p.Touched {
		if rel, ok := presence.RelFile(wt, t); ok {
			m[rel] |= mObserved
		}
	}
	if p.Git.Available {
		for _, f := range p.Git.Files {
			if rel := cleanRel(f); rel != "" && rel != "." {
				m[rel] |= mGit
			}
		}
	}
	paths := make([]string, 0, len(m))
	for p := range m {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	total := len(paths)
	if n := orDefault(limit); len(paths) > n {
		paths = paths[:n]
	}
	out := make([]Change, len(paths))
	for i, p := range paths {
		out[i] = Change{Path: p, Sources: m[p].sources()}
	}
	return out, total
}
