// Package remotewatch watches the remote each live worktree fetches from
// and makes the branches pushed there sides of an overlap (issue #44):
// work a cloud agent or a teammate pushed while a local agent edits the
// same files.
//
// One watch per remote (by gitscan.RemoteIdentity), however many
// worktrees fetch from it: `git ls-remote --heads` every interval, and a
// fetch only when a tip moved, into a store the Hall owns (a bare
// partial clone under the Hall's data directory, --filter=blob:none:
// commits and trees, blobs only as a merge prediction asks for them).
// git runs with gitscan's neutral environment and the person's own
// transport and credentials (gitscan.RunRemote), never prompting. The
// active branches are read from the store (store.go); for each worktree
// with changes, each active branch that changed one of the same files is
// a Pushed overlap, with git merge-tree's prediction of merging the
// worktree's working tree (a snapshot, as the scanner takes it) with the
// branch's tip, computed in the store with the repository's objects read
// as alternates (pushed.go).
//
// What it never does: write into a person's repository. Its refs,
// FETCH_HEAD, objects, index and config stay as they were; in a
// worktree it runs only git commands that read (symbolic-ref,
// for-each-ref, config --get, ls-remote --get-url, which connects to
// nothing) and the scanner's snapshot, whose objects go to the Hall's
// scratch.
//
// What it does not know: presences, the roster or its surfaces. Package
// hall joins a worktree's Pushed overlaps to its presence.
package remotewatch
