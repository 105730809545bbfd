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
// the installer's files out of what its hooks saw change (Touched) and of
// the git answer it carries (Changed, another Hall's). The record itself
// is not written: a changed list is a new slice.
func withoutInstallerFiles(r *presence.Record) *presence.Record {
	touched := slices.ContainsFunc(r.Touched, func(t presence.Touch) bool { return installerFile(r.Worktree, t.Path) })
	changed := slices.ContainsFunc(r.Changed, hookinstall.Installed)
	if !touched && !changed {
		return r
	}
	out := *r
	if touched {
		out.Touched = slices.DeleteFunc(slices.Clone(r.Touched), func(t presence.Touch) bool { return installerFile(r.Worktree, t.Path) })
	}
	if changed {
		n := len(r.Changed)
		out.Changed = slices.DeleteFunc(slices.Clone(r.Changed), hookinstall.Installed)
		out.ChangedTotal -= n - len(out.Changed)
	}
	return &out
}
