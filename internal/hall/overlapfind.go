package hall

import (
	"cmp"
	"context"
	"maps"
	"path/filepath"
	"slices"
	"sync"

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
	// AcrossHosts tells the scanner each worktree's files in an overlap
	// with another host's side, which its own pairs cannot show it.
	AcrossHosts(files map[string][]string)
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
//
// A side whose record names another host than this Hall's (Host) is that
// host's, whatever its path: its worktree is never asked of this Hall's
// git nor tracked, its git evidence is its record's, and two sides of one
// path on two hosts are two worktrees. The merge of such a pair comes
// from Peers (package peershare), never waited on.
type OverlapFinder struct {
	Git Git
	// Pushed is the watch of the remotes (*remotewatch.Watcher): a
	// worktree's overlaps with branches pushed there; nil: none.
	Pushed PushedView
	// NoGit is the code each side carries when Git is nil.
	NoGit string
	Bound overlap.Bound // MaxPairs 0: DefaultMaxOverlaps
	// Host is this Hall's host name; "" takes every side for this host's
	// (as before hosts were named).
	Host string
	// Peers is what Halls on other hosts share of the sides in an
	// overlap across hosts; nil: no merge predicted across hosts
	// (reason not_shared).
	Peers Peers

	mu       sync.Mutex
	toldHot  bool                // told the scanner at least once
	lastHost map[string][]string // what AcrossHosts was told last
}

// Peers is the finder's port to the sharing of sides across hosts
// (*peershare.Sharer): Want hands it the overlaps across hosts found now
// (it works on them in the background, never here), Verdict reads the
// latest verdict known for a pair. Neither waits on NATS or git.
type Peers interface {
	Want(pairs []PeerPair)
	Verdict(local, peer PeerSide) (PeerVerdict, bool)
}

// PeerSide is one side of an overlap across hosts: its host and its
// worktree there.
type PeerSide struct{ Host, Worktree string }

// PeerPair is one overlap across hosts as this Hall sees it: its own
// side (a worktree this Hall's git answered for), the other host's, the
// repository they share and the files they both changed.
type PeerPair struct {
	Repository  string
	Local, Peer PeerSide
	Files       []string // repository-relative, sorted, at most the overlap's listed files
}

// PeerVerdict is the merge across hosts as far as it is known: Merge
// clean or conflict from the git of the host By, or unknown and why
// (Reason, a peershare code).
type PeerVerdict struct {
	Merge          string // overlap.MergeClean, MergeConflict or MergeUnknown
	Reason         string
	By             string // the host whose Hall's git predicted it
	Conflicts      []string
	ConflictsTotal int
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
		if f.elsewhere(r) {
			// Another host's: its record's git answer, or its observed
			// files only, never this Hall's git on a path of that host.
			g = overlap.Git{Reason: string(gitscan.NotOnMachine)}
			if rg, ok := overlap.RecordGit(r); ok {
				g = rg
				g.Files, g.Total = withoutInstallerPaths(g.Files, g.Total)
			}
			p := overlap.PartyOf(r, g)
			p.Host = r.Host
			parties = append(parties, p)
			from = append(from, i)
			continue
		}
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
	var across []PeerPair
	counts := presence.OverlapCounts{Total: tally.Pairs, Brains: map[string]int{}, Presences: map[string]int{}}
	maps.Copy(counts.Brains, tally.Brains)
	for i, n := range tally.Degrees {
		counts.Presences[parties[i].ID] += n
	}
	for _, fo := range found {
		o := overlapOf(fo, &parties[fo.A], &parties[fo.B], &live[from[fo.A]], &live[from[fo.B]])
		if pair, ok := f.acrossHosts(&o, &parties[fo.A], &parties[fo.B]); ok {
			across = append(across, pair)
		}
		out = append(out, o)
	}
	if f.Git != nil {
		f.tellAcross(across)
	}
	if f.Peers != nil {
		f.Peers.Want(across)
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
			Remote: ps.Remote, Branch: ps.Branch.Name, Commit: ps.Branch.Commit, Author: ps.Branch.Author, CommittedMs: ps.Branch.CommittedMs, SeenMs: ps.Branch.SeenMs, Default: ps.Default}},
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

// tellAcross tells the scanner each local worktree's files in an overlap
// across hosts, when they changed since it was last told (a map swap
// under the scanner's lock otherwise at every derivation).
func (f *OverlapFinder) tellAcross(across []PeerPair) {
	hot := map[string][]string{}
	for _, p := range across {
		hot[p.Local.Worktree] = append(hot[p.Local.Worktree], p.Files...)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.toldHot && maps.EqualFunc(hot, f.lastHost, slices.Equal) {
		return
	}
	f.toldHot, f.lastHost = true, hot
	f.Git.AcrossHosts(hot)
}

// elsewhere reports whether the record's beats were taken by a Hall on
// another host than this one: its paths are that host's.
func (f *OverlapFinder) elsewhere(r *presence.Record) bool {
	return f.Host != "" && r.Host != "" && r.Host != f.Host
}

// acrossHosts labels an overlap whose sides are on two hosts (Across,
// the far side's Host) and gives it the merge known across them: from
// Peers, for a pair of which one side is this Hall's own, answered for
// by its git, and the other's files are its git's (its record's). It
// answers the pair to hand Peers, if any.
func (f *OverlapFinder) acrossHosts(o *presence.Overlap, a, b *overlap.Party) (PeerPair, bool) {
	if a.Host == b.Host {
		return PeerPair{}, false
	}
	o.Across = string(overlap.AcrossHost)
	local, peer, lp, pp := &o.A, &o.B, a, b
	if a.Host != "" {
		local, peer, lp, pp = &o.B, &o.A, b, a
	}
	if lp.Host != "" || !lp.Git.Available || lp.Git.FromRecord || !pp.Git.FromRecord {
		// Both far, or a side git has not answered for: no pair to share.
		o.MergeReason = contract.MergeReasonNoGit
		return PeerPair{}, false
	}
	pair := PeerPair{
		Repository: cmp.Or(o.Repository, o.Brain),
		Local:      PeerSide{Host: f.Host, Worktree: local.Worktree},
		Peer:       PeerSide{Host: pp.Host, Worktree: peer.Worktree},
	}
	for _, fl := range o.Files {
		pair.Files = append(pair.Files, fl.Path)
	}
	if f.Peers == nil {
		o.MergeReason = contract.MergeReasonNotShared
		return pair, false
	}
	v, ok := f.Peers.Verdict(pair.Local, pair.Peer)
	if !ok {
		o.MergeReason = contract.MergeReasonPending
		return pair, true
	}
	switch v.Merge {
	case string(overlap.MergeClean):
		o.Merge, o.MergeHost = v.Merge, v.By
	case string(overlap.MergeConflict):
		o.Merge, o.Verdict, o.MergeHost = v.Merge, string(overlap.VerdictConflict), v.By
		o.Conflicts, o.ConflictsTotal = v.Conflicts, max(v.ConflictsTotal, len(v.Conflicts))
	default:
		o.MergeReason = v.Reason
	}
	return pair, true
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
	s := presence.OverlapSide{PresenceID: p.ID, AgentID: r.AgentID, Theme: r.Theme, Worktree: filepath.Clean(p.Worktree), Branch: p.Git.Branch, Host: p.Host}
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
