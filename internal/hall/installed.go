package hall

import (
	"slices"

	"github.com/hall-dev/hall/internal/hookinstall"
	"github.com/hall-dev/hall/internal/presence"
)

// installerFile reports whether abs, a file under the worktree root, is
// one of the files `hall hooks install` writes into a worktree
// (hookinstall.Installed, the one list): the Hall's configuration, never
// an agent's work, so it is in no overlap and in no shell guard's scene.
// The scanner leaves the same files out of git's answers
// (gitscan.ScannerConfig.Omit); this is for the files the hooks saw.
func installerFile(root, abs string) bool {
	rel, ok := presence.RelFile(root, abs)
	return ok && hookinstall.Installed(rel)
}

// withoutInstallerFiles is the record as the overlap derivation reads it:
// the installer's files out of what its hooks saw change (Touched, at
// most presence.MaxTouched). The record itself is not written: a changed
// list is a new slice.
func withoutInstallerFiles(r *presence.Record) *presence.Record {
	installer := func(t presence.Touch) bool { return installerFile(r.WorktreePath(), t.Path) }
	if !slices.ContainsFunc(r.Touched, installer) {
		return r
	}
	out := *r
	out.Touched = slices.DeleteFunc(slices.Clone(r.Touched), installer)
	return &out
}

// withoutInstallerPaths drops the installer's files from a git answer's
// repository-relative files (another host's, carried by a record), total
// counting them out. The list given is not written.
func withoutInstallerPaths(files []string, total int) ([]string, int) {
	if !slices.ContainsFunc(files, hookinstall.Installed) {
		return files, total
	}
	out := slices.DeleteFunc(slices.Clone(files), hookinstall.Installed)
	return out, total - (len(files) - len(out))
}
