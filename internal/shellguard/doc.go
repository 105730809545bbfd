// Package shellguard reads a shell command line an agent is about to run
// and says whether it would stage, commit, discard, stash, unstage,
// overwrite, move, delete or move the branch under the uncommitted work of
// another live presence in the same worktree, or touch a worktree that
// belongs to another live presence.
//
// It is pure: it gets the scene (where the command runs, whose work is
// where and in which git state) as data from its caller and never runs
// git, opens a file or speaks HTTP. The command line is read with a real
// shell parser (mvdan.cc/sh/v3/syntax), so spacing, quoting, `cd … &&`,
// `git -C`, env prefixes, `sh -c '…'`, lists, pipes and subshells do not
// change the answer. A file list computed at run time ($(…), xargs,
// find -exec) is "cannot tell", which warns.
//
// The Hall only warns: a Verdict is never a reason to block a command.
// Work is bounded before it grows (MaxCommandLen, MaxNesting, MaxDepth,
// MaxFindings, the scene's Max* bounds) and linear in the command's
// length; every step is counted so a test can hold it to that. Verdict.Lines
// renders the answer for the model within MaxLines. See docs/shell-guard.md.
package shellguard
