package hall

import (
	"context"
	"maps"
	"path/filepath"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/overlap"
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
	return out, counts
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
