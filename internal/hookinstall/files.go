package hookinstall

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/hall-dev/hall/internal/hook"
)

// backupInfix names a backup Write leaves beside the file it replaces:
// <file>.hall-backup-<time>[-n].
const backupInfix = ".hall-backup-"

// ProjectFiles are the files `hall hooks install` writes into a project
// (a worktree's root), repository-relative with "/", sorted: each agent's
// project hook configuration, Claude Code's personal and shared ones.
// Beside each, Write may leave backups (Installed knows them too).
func ProjectFiles() []string { return slices.Clone(projectFiles()) }

// projectFiles is ProjectFiles, read once from the capability table
// (hook.Capability.ProjectFile and SharedProjectFile): the one list.
var projectFiles = sync.OnceValue(func() []string {
	var out []string
	for _, agent := range Agents() {
		capa, _ := hook.CapabilityOf(agent)
		for _, f := range []string{capa.ProjectFile, capa.SharedProjectFile} {
			if f != "" && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
})

// Installed reports whether rel, a path relative to a worktree's root
// with "/", is one of the installer's own files there (ProjectFiles, or a
// backup Write left beside one). They are the Hall's configuration, not
// an agent's work: the Hall keeps them out of overlaps, out of git's
// answers it shows, and out of the shell guard's scene, wherever git
// lists them (untracked in every worktree, they would otherwise make
// every pair of worktrees overlap). It is cheap: a few string compares.
func Installed(rel string) bool {
	if name, _, ok := strings.Cut(rel, backupInfix); ok {
		rel = name
	}
	_, found := slices.BinarySearch(projectFiles(), rel)
	return found
}

// Tracked reports whether git tracks file in the worktree at root (it
// is in the index). False outside a repository or without git.
func (g Git) Tracked(ctx context.Context, root, file string) bool {
	out, ok := g.git(ctx, root, []string{"ls-files", "--error-unmatch", "--", file}, 1)
	return ok && out.Exit == 0
}
