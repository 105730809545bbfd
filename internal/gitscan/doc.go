// Package gitscan asks git what each worktree of a repository changed, and
// whether two worktrees' changes would merge: the one package of the Hall
// that runs the git program.
//
// It holds the runner (which git, its version, a timeout and a bounded
// output per process, a cap on processes at once: runner.go), the one
// environment every git runs with, which turns off every command a
// repository's configuration can name and reads paths literally
// (gitenv.go), a
// worktree's changes against the point its branch left the base branch,
// each file with how it differs (committed on the branch, staged,
// modified, untracked: changes.go), a commit of a worktree's working tree built through a
// temporary copy of its index (snapshot.go), the merge of two such
// commits predicted by git merge-tree and cached by their ids (merge.go),
// and the background Scanner that keeps those answers fresh off the hot
// path: debounced per worktree, on a slow timer too, counted (scanner.go).
// The Scanner is two rooms: its schedule decides when each side (a
// worktree, side.go) is scanned (schedule.go; meet.go, how soon a
// reported change needs git), its reader runs git for one and builds the
// answers (scan.go).
//
// What it never does: write into a worktree, its index, its refs or its
// stash. Every command runs with GIT_OPTIONAL_LOCKS=0 (git status does not
// refresh the index); the snapshot's index is a copy in a temporary
// directory; the objects it writes (the snapshot's blobs, trees and
// commit, merge-tree's result) are unreachable loose objects, which git's
// own gc prunes. docs/worktrees.md says the same for a reader.
//
// What it does not know: presences, brains as the Hall names them, or
// overlap. Package presence/overlap derives the relation from plain data;
// the application joins the two.
package gitscan
