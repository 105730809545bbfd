package presence

import "context"

// Overlap is one overlap as the roster carries it (docs/worktrees.md): two
// live presences of one repository (one brain, or one identity measured
// on both sides), in different worktrees, that changed the
// same repository file, and git's word on their merge where one Hall sees
// both worktrees. The derivation lives in package presence/overlap and
// the git half in package gitscan; the domain only defines what a
// snapshot holds of it and the port that fills it (OverlapFinder), so it
// stays free of git.
type Overlap struct {
	ID    string // the pair's presence ids, the smaller first, joined by "~"
	Brain string // side A's
	// BrainB is side B's brain where it is not Brain (two clones, each its
	// own brain): the overlap is on both brains' rosters. "" otherwise.
	BrainB string
	// Repository is the identity of the repository both sides work on
	// (docs/worktrees.md, one repository); "" when a side's is unknown
	// and the two share a brain.
	Repository string
	// Across is what lies between the sides: "worktree" (two worktrees
	// of one clone), "clone" (two clones on this machine), "host"
	// (another machine's worktree), "pushed" (a branch on the remote).
	Across string
	A, B   OverlapSide // A has the smaller presence id
	// Verdict is "overlap", or "conflict" on git's word only.
	Verdict string
	// Merge is git's prediction: "clean", "conflict" or "unknown" (git
	// cannot see a side, or has not predicted this pair yet).
	Merge string
	// Files are the overlapping repository-relative paths, sorted, at most
	// the finder's bound; FilesTotal counts them all.
	Files      []OverlapFile
	FilesTotal int
	// Conflicts are the files git predicts will conflict (verdict
	// conflict), bounded as Files; ConflictsTotal counts them all.
	Conflicts      []string
	ConflictsTotal int
	// SinceMs is when this Hall first derived the overlap (any verdict);
	// a restart starts it again.
	SinceMs int64

	// MergeReason says why Merge is unknown across hosts (Across "host":
	// contract.MergeReason* codes); MergeHost names the host whose Hall's
	// git predicted the merge across hosts, this Hall's own or the
	// peer's whose verdict it read: measured there, labelled apart.
	MergeReason string
	MergeHost   string
}

// AcrossPushed is Overlap.Across when its side B is a pushed branch.
const AcrossPushed = "pushed"

// PushedBranch is a branch on a remote, as git has it: a side of an
// overlap that is no presence (docs/worktrees.md#pushed-work).
type PushedBranch struct {
	Remote      string // the remote's identity
	Branch      string // short: "feat"
	Commit      string // its tip
	Author      string // the tip's author, as git has it
	CommittedMs int64
	// SeenMs is when a Hall (this one, or the one sharing its watch of
	// the remote) first saw this tip on the remote: not the push time,
	// which only the remote knows. 0: unknown.
	SeenMs  int64
	Default bool // the remote's default branch, moved past the worktree's HEAD
}

// OverlapSide is one presence of an overlap.
type OverlapSide struct {
	PresenceID, AgentID, Theme string
	Worktree, Branch           string
	// Git is "" when git answered for the side's worktree on this Hall;
	// "record" when git on the host that took the side's beats did, its
	// answer carried by the record (no merge predicted); else why not, a
	// code (worktree_not_here: another host's worktree; git_missing…):
	// the side counts its observed files only.
	Git string
	// Host is the host whose Hall took the side's beats, when that is
	// not this Hall's host (the record's host); "" on this one.
	Host string
	// Pushed is the branch when the side is a pushed branch, no
	// presence (PresenceID, AgentID and Worktree empty).
	Pushed PushedBranch
}

// OverlapFile is one overlapping path and the evidence on each side:
// "declared", "observed", "git", in that order.
type OverlapFile struct {
	Path string
	A, B []string
}

// Relates reports whether the presence id is a side of o.
func (o *Overlap) Relates(id string) bool { return o.A.PresenceID == id || o.B.PresenceID == id }

// Partner is the side of o that is not id.
func (o *Overlap) Partner(id string) OverlapSide {
	if o.A.PresenceID == id {
		return o.B
	}
	return o.A
}

// OverlapFinder derives the overlaps among a snapshot's live records (in
// roster order): by brain, then pair, each brain's listed up to the
// finder's bound, with every brain's and every presence's count of all;
// package hall joins gitscan and presence/overlap into one. It must not
// wait on git: it reads what a background scanner already knows.
type OverlapFinder interface {
	Overlaps(ctx context.Context, live []Record) ([]Overlap, OverlapCounts)
}

// OverlapCounts is how many overlapping pairs each brain and each
// presence is in, listed or not; those with none are left out. A pair
// across two brains (two clones) counts on each; Total counts it once
// (0: the brains' sum, none being across).
type OverlapCounts struct {
	Total     int
	Brains    map[string]int
	Presences map[string]int // by presence id
}

// deriveOverlapsLocked fills snap's overlaps through the finder, stamping
// each with when this service first derived it. The caller holds
// derivation.overMu.
func (s *Service) deriveOverlapsLocked(ctx context.Context, snap *Snapshot) {
	if s.derivation.overlaps == nil {
		return
	}
	list, counts := s.derivation.overlaps.Overlaps(ctx, snap.Live)
	since := make(map[string]int64, len(list))
	for i := range list {
		o := &list[i]
		if at, ok := s.derivation.overlapSince[o.ID]; ok {
			o.SinceMs = at
		} else {
			o.SinceMs = snap.AtMs
		}
		since[o.ID] = o.SinceMs
	}
	s.derivation.overlapSince = since
	s.derivation.lastOverlaps.Store(&list)
	snap.Overlaps, snap.OverlapCounts, snap.presenceOverlaps = list, counts.Brains, counts.Presences
	snap.OverlapsTotal = counts.Total
	if counts.Total == 0 {
		for _, n := range counts.Brains {
			snap.OverlapsTotal += n
		}
	}
}

// OverlapsOf returns the overlaps the presence id is a side of, as the
// last snapshot derived them (a beat reads these: it never derives, let
// alone waits on git), and whether the service derives overlaps at all.
func (s *Service) OverlapsOf(id string) ([]Overlap, bool) {
	if s.derivation.overlaps == nil {
		return nil, false
	}
	last := s.derivation.lastOverlaps.Load()
	if last == nil {
		return nil, true
	}
	var out []Overlap
	for i := range *last {
		if (*last)[i].Relates(id) {
			out = append(out, (*last)[i])
		}
	}
	return out, true
}

// Nudge says something a snapshot derives from changed outside the store
// (git's answer for a worktree): readers that cache the roster derive it
// again, and Changed signals.
func (s *Service) Nudge() { s.notify() }

// OverlapsTotalOf counts the overlaps the presence id is a side of, listed
// or not (OverlapsFor lists at most the brain's bound of them).
func (s Snapshot) OverlapsTotalOf(id string) int { return s.presenceOverlaps[id] }

// OverlapsFor returns the listed overlaps the presence id is a side of.
func (s Snapshot) OverlapsFor(id string) []Overlap {
	var out []Overlap
	for i := range s.Overlaps {
		if s.Overlaps[i].Relates(id) {
			out = append(out, s.Overlaps[i])
		}
	}
	return out
}

// OnBrain reports whether the overlap is on the brain's roster: a side's
// brain is it.
func (o *Overlap) OnBrain(brain string) bool { return o.Brain == brain || o.BrainB == brain }

// overlapsOnBrain narrows a snapshot's overlaps to one brain.
func (s Snapshot) overlapsOnBrain(brain string) ([]Overlap, int) {
	var out []Overlap
	for _, o := range s.Overlaps {
		if o.OnBrain(brain) {
			out = append(out, o)
		}
	}
	return out, s.OverlapCounts[brain]
}
