package hall

import (
	"context"
	"maps"
	"path/filepath"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/overlap"
	"github.com/hall-dev/hall/internal/remotewatch"
)

// Git is what the Hall reads of the git scanner (*gitscan.Scanner): the
// latest answer for a worktree and the merges it predicted, never waiting
// on git; Mutated, ShellRan and Track steer what it scans next, off the
// hot path.
type Git interface {
	GitView
	overlap.Merges
	Mutated(worktree string, touched ...string)
	ShellRan(worktree string)
	Track(worktrees []string)
}

// DefaultMaxOverlaps is the most overlaps listed on one brain unless
// told, as presence.DefaultMaxCollisions is for collisions.
const DefaultMaxOverlaps = presence.DefaultMaxCollisions

// OverlapFinder is the presence service's port for overlaps
// (presence.OverlapFinder), joined here from its two halves: the pure
// derivation (presence/overlap) over git's latest answers (gitscan). It
// also tells the scanner which worktrees are live, so it scans those and
// forgets the rest. Git nil: observed files only, every side saying
// NoGit.
//
// Where this Hall's git cannot see a side's worktree (another machine's:
// not a directory here, or not a git worktree here; or no usable git
// here at all) and the side's record carries git's answer from the host
// that took its beats (Record.Changed), that answer is the side's git
// evidence, and the side says so (git "record"); the merge stays unknown,
// as only a git that sees both worktrees predicts it.
type OverlapFinder struct {
	Git Git
	// Pushed is the watch of the remotes (*remotewatch.Watcher): a
	// worktree's overlaps with branches pushed there; nil: none.
	Pushed PushedView
	// NoGit is the code each side carries when Git is nil.
	NoGit string
	Bound overlap.Bound // MaxPairs 0: DefaultMaxOverlaps
}

// Overlaps implements presence.OverlapFinder.
func (f *OverlapFinder) Overlaps(_ context.Context, live []presence.Record) ([]presence.Overlap, presence.OverlapCounts) {
	parties := make([]overlap.Party, 0, len(live))
	var from []int // each party's record in live
	var worktrees []string
	for i := range live {
		r := &live[i]
		if r.WorktreePath() == "" || !r.Mutating() {
			continue // never a side: no git asked for it either
		}
		r = withoutInstallerFiles(r)
		g := overlap.Git{Reason: f.NoGit}
		if f.Git != nil {
			g = gitscan.GitOf(f.Git.Result(r.WorktreePath()))
			worktrees = append(worktrees, r.WorktreePath())
		}
		if !g.Available && cannotSee(g.Reason) {
			if rg, ok := overlap.RecordGit(r); ok {
				g = rg
				g.Files, g.Total = withoutInstallerPaths(g.Files, g.Total)
			}
		}
		parties = append(parties, overlap.PartyOf(r, g))
		from = append(from, i)
	}
	if f.Git != nil {
		f.Git.Track(worktrees)
	}
	if f.Pushed != nil {
		f.Pushed.Track(worktrees)
	}
	bound := f.Bound
	if bound.MaxPairs <= 0 {
		bound.MaxPairs = DefaultMaxOverlaps
	}
	var merges overlap.Merges
	if f.Git != nil {
		merges = f.Git
	}
	// Every brain at once: two clones of one repository are two brains.
	found, tally := overlap.Within("", parties, merges, bound)
	var out []presence.Overlap
	counts := presence.OverlapCounts{Total: tally.Pairs, Brains: map[string]int{}, Presences: map[string]int{}}
	maps.Copy(counts.Brains, tally.Brains)
	for i, n := range tally.Degrees {
		counts.Presences[parties[i].ID] += n
	}
	for _, fo := range found {
		out = append(out, overlapOf(fo, &parties[fo.A], &parties[fo.B], &live[from[fo.A]], &live[from[fo.B]]))
	}
	if f.Pushed != nil {
		out = f.pushedOverlaps(out, counts, parties, live, from, bound)
	}
	return out, counts
}

// PushedView is what the Hall reads of the remote watch
// (*remotewatch.Watcher): a worktree's overlaps with branches pushed to
// its remote as last found, never waiting on git; Track says which
// worktrees are live.
type PushedView interface {
	Pushed(worktree string) []remotewatch.Pushed
	Track(worktrees []string)
}

// pushedOverlaps adds to out, for each party git answered for, its
// worktree's overlaps with pushed branches (docs/worktrees.md#pushed-work):
// side a the party, side b the branch, at most bound.MaxPairs a brain
// listed, all counted.
func (f *OverlapFinder) pushedOverlaps(out []presence.Overlap, counts presence.OverlapCounts, parties []overlap.Party, live []presence.Record, from []int, bound overlap.Bound) []presence.Overlap {
	listed := map[string]int{}
	for _, o := range out {
		listed[o.Brain]++
	}
	for i := range parties {
		p := &parties[i]
		if !p.Git.Available || p.Git.FromRecord {
			continue
		}
		for _, ps := range f.Pushed.Pushed(p.Worktree) {
			counts.Brains[p.Brain]++
			counts.Presences[p.ID]++
			if listed[p.Brain] >= bound.MaxPairs {
				continue
			}
			listed[p.Brain]++
			out = append(out, pushedOverlapOf(p, &live[from[i]], ps, bound))
		}
	}
	return out
}

// pushedOverlapOf is one party's overlap with a pushed branch.
func pushedOverlapOf(p *overlap.Party, r *presence.Record, ps remotewatch.Pushed, bound overlap.Bound) presence.Overlap {
	o := presence.Overlap{
		ID: p.ID + "~pushed:" + ps.Branch.Name, Brain: p.Brain, Across: presence.AcrossPushed, Repository: ps.Remote,
		A: sideOf(p, r),
		B: presence.OverlapSide{Branch: ps.Branch.Name, Pushed: presence.PushedBranch{
			Remote: ps.Remote, Branch: ps.Branch.Name, Commit: ps.Branch.Commit, Author: ps.Branch.Author, CommittedMs: ps.Branch.CommittedMs, Default: ps.Default}},
		Verdict: contract.VerdictOverlap, Merge: contract.MergeUnknown, FilesTotal: ps.FilesTotal,
	}
	max := bound.MaxFiles
	if max <= 0 {
		max = overlap.DefaultMaxFiles
	}
	for _, path := range ps.Files[:min(len(ps.Files), max)] {
		o.Files = append(o.Files, presence.OverlapFile{Path: path, A: []string{string(overlap.SourceGit)}, B: []string{string(overlap.SourceGit)}})
	}
	switch {
	case ps.Predicted && ps.Conflict:
		o.Verdict, o.Merge = contract.VerdictConflict, contract.MergeConflict
		o.Conflicts, o.ConflictsTotal = ps.Conflicts[:min(len(ps.Conflicts), max)], ps.ConflictsTotal
	case ps.Predicted:
		o.Merge = contract.MergeClean
	}
	return o
}

// cannotSee reports whether a side's git reason means this Hall's git
// cannot see the worktree at all, rather than failed on it for now (a
// timeout, a failure, not scanned yet): then git's answer from the host
// that took the side's beats, carried by its record, stands in.
func cannotSee(reason string) bool {
	switch gitscan.Code(reason) {
	case gitscan.NotOnMachine, gitscan.NotWorktree, gitscan.GitMissing, gitscan.GitTooOld:
		return true
	}
	return false
}

// overlapOf maps a derived overlap to the domain's form.
func overlapOf(f overlap.Found, a, b *overlap.Party, ra, rb *presence.Record) presence.Overlap {
	o := presence.Overlap{
		ID: overlap.Key(a.ID, b.ID), Brain: f.Brain, Repository: f.Repository, Across: string(f.Across),
		A: sideOf(a, ra), B: sideOf(b, rb),
		Verdict: string(f.Verdict), Merge: string(f.Merge),
		FilesTotal: f.FilesTotal, Conflicts: f.Conflicts, ConflictsTotal: f.ConflictsTotal,
	}
	if b.Brain != a.Brain {
		o.BrainB = b.Brain
	}
	o.Files = make([]presence.OverlapFile, len(f.Files))
	for i, fl := range f.Files {
		o.Files[i] = presence.OverlapFile{Path: fl.Path, A: sources(fl.A), B: sources(fl.B)}
	}
	return o
}

func sideOf(p *overlap.Party, r *presence.Record) presence.OverlapSide {
	s := presence.OverlapSide{PresenceID: p.ID, AgentID: r.AgentID, Theme: r.Theme, Worktree: filepath.Clean(p.Worktree), Branch: p.Git.Branch}
	switch {
	case !p.Git.Available:
		s.Git = p.Git.Reason
	case p.Git.FromRecord:
		s.Git = contract.GitRecord
	}
	return s
}

func sources(ss []overlap.Source) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}
