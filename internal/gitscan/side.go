package gitscan

import "context"

// A side is one thing the Scanner compares with the others: git's answer
// for what it changed, and a commit of its content that a merge with
// another side is predicted from. Today every side is a local worktree
// (worktreeSide), of any clone on this machine: two clones of one
// repository (compares) are two sides as two worktrees of one are.
// Another kind (a peer's report, a remote's pushed branch) is one more
// implementation:
// the scheduling (schedule.go), the meet rule (meet.go), the pairing
// (compares) and the predictions (scan.go) take any side as it comes.
type side interface {
	// changes asks git what the side changed: all of it, or, with a
	// scope, the scoped paths over prev (the side's last answer).
	changes(ctx context.Context, r *Runner, prev Changes, scope []string, o ChangesOptions) (Changes, error)
	// snapshot commits the side's content as res (its latest answer)
	// lists it, its objects written where env says (the scratch).
	snapshot(ctx context.Context, r *Runner, res Result, env envFor) (Snapshot, error)
}

// worktreeSide is a worktree on this machine, by its cleaned path.
type worktreeSide string

func (w worktreeSide) changes(ctx context.Context, r *Runner, prev Changes, scope []string, o ChangesOptions) (Changes, error) {
	if len(scope) > 0 {
		return r.ChangesOf(ctx, prev, scope, o)
	}
	return r.Changes(ctx, string(w), o)
}

func (w worktreeSide) snapshot(ctx context.Context, r *Runner, res Result, env envFor) (Snapshot, error) {
	if res.Err == nil && res.Changes.Worktree == string(w) {
		// From the scan's list: the files it names, not a walk of the tree.
		return r.snapshotListed(ctx, res.Changes, env)
	}
	return r.snapshot(ctx, string(w), nil, env)
}

// compares reports whether the scanner compares two sides' answers
// (overlap, a change that meets, a merge to predict): those of one
// repository, not one worktree under two names. One repository is one
// clone (its worktrees share a common directory) or one identity
// (identity.go: two clones of it on this machine, each a side as a
// worktree is; PredictMerge reads both clones' objects). The one place
// the pairing rule lives; overlap.SameRepository is its twin for the
// roster, where a brain stands for a clone.
func compares(a, b Changes) bool {
	one := a.CommonDir == b.CommonDir || (a.Repository != "" && a.Repository == b.Repository)
	return one && a.Root != b.Root
}
