package overlap

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hall-dev/hall/internal/presence"
)

// Source is what showed a side's file: one evidence label.
type Source string

// The evidence labels, each a measure of its own.
const (
	SourceDeclared Source = "declared" // the presence's declared working set
	SourceObserved Source = "observed" // its hooks saw its tool change the file
	SourceGit      Source = "git"      // git says the worktree changed it against its base
)

// Verdict is what an overlap amounts to.
type Verdict string

// The verdicts.
const (
	// VerdictOverlap: the same file changed on both sides; git predicts
	// a clean merge, or cannot say (see Found.Merge).
	VerdictOverlap Verdict = "overlap"
	// VerdictConflict: git predicts the two sides will not merge cleanly.
	VerdictConflict Verdict = "conflict"
)

// MergeState is what git predicted of merging the two sides.
type MergeState string

// The merge states.
const (
	MergeClean    MergeState = "clean"
	MergeConflict MergeState = "conflict"
	// MergeUnknown: no prediction, because git cannot see a side (see
	// its Git.Reason) or has not predicted this pair yet.
	MergeUnknown MergeState = "unknown"
)

// Across is what lies between an overlap's two sides (docs/worktrees.md,
// one repository): two worktrees of one clone, two clones on this
// machine, another machine's worktree, or a branch pushed to the remote.
type Across string

// The acrosses.
const (
	AcrossWorktree Across = "worktree"
	AcrossClone    Across = "clone"
	AcrossHost     Across = "host"
	AcrossPushed   Across = "pushed"
)

// Git is one side's git answer, as plain data.
// NotScanned is Git.Reason when git has not answered for the worktree
// yet (the Hall's scanner has not scanned it since it first saw it).
const NotScanned = "not_scanned"

type Git struct {
	// Available is false when git could not answer for the worktree:
	// git missing or too old, the worktree not on this machine, a
	// timeout. The side then counts its observed files only.
	Available bool
	Reason    string // why not, a code (gitscan's), when not Available
	Branch    string
	// Files are the paths git says the worktree changed against its
	// base, relative to the worktree's root; Total counts them all, so a
	// list cut short is known to be.
	Files []string
	Total int
	// FromRecord: the files are git's answer on the host that took the
	// presence's beats, carried by its record (RecordGit), because this
	// Hall's git cannot see the worktree. They count as git's evidence,
	// but no merge is predicted for the side: that needs one git seeing
	// both worktrees.
	FromRecord bool
	// AtMs is when git scanned, where known (a record's changed_at_ms):
	// a file the hooks saw change after it counts as observed whatever
	// the list says, since git had not seen it yet.
	AtMs int64
	// Repository is the repository's identity as that git measured it
	// (gitscan.Changes.Repository); "" where unknown.
	Repository string
	// Clone is the clone's common git directory where this Hall's git
	// answered (gitscan.Changes.CommonDir): two worktrees of one clone
	// share it; "" otherwise.
	Clone string
}

// RecordGit is the git answer a record carries (Record.Changed), as the
// side's evidence where this Hall's git cannot see its worktree; false
// when the record carries none.
func RecordGit(r *presence.Record) (Git, bool) {
	if r.ChangedAtMs <= 0 {
		return Git{}, false
	}
	return Git{Available: true, FromRecord: true, Files: r.Changed, Total: r.ChangedTotal, AtMs: r.ChangedAtMs, Repository: r.Repository}, true
}

// Party is what the derivation reads of one live presence.
type Party struct {
	ID, Brain string
	// Repository is the identity of the repository the worktree belongs
	// to: git's answer here, else the record's (Record.Repository); ""
	// when neither is known. Two parties of one repository overlap
	// whatever their brains (clones); without it, only within a brain.
	Repository string
	Worktree   string // absolute; a party without one never overlaps
	// Team: two parties of one non-empty team (a session and its
	// subagents) never overlap.
	Team     string
	Mutating bool
	// WorkingSet is the declared working set: absolute, or relative to
	// the worktree.
	WorkingSet []string
	// Touched are the files the hooks saw change: absolute, newest first.
	Touched []string
	// Fresh is how many of the first Touched the hooks saw after git
	// scanned (Git.AtMs): they count as observed whatever git's list says.
	Fresh int
	Git   Git
	// Host is the party's host when it is not the deriving Hall's (its
	// record's host): its worktree is a path there, so it is never one
	// worktree with a party here of the same path.
	Host string
}

// PartyOf reads a record and its worktree's git answer.
func PartyOf(r *presence.Record, g Git) Party {
	fresh := 0
	if g.AtMs > 0 {
		for fresh < len(r.Touched) && r.Touched[fresh].AtMs > g.AtMs {
			fresh++
		}
	}
	repo := g.Repository
	if repo == "" {
		repo = r.Repository
	}
	return Party{
		ID: r.PresenceID, Brain: r.Brain, Repository: repo, Worktree: r.WorktreePath(), Team: r.Team(),
		Mutating: r.Mutating(), WorkingSet: r.WorkingSet, Touched: r.TouchedPaths(), Fresh: fresh, Git: g,
	}
}

// Merge is git's prediction for two worktrees.
type Merge struct {
	Conflict bool
	Files    []string // the conflicting files, repository-relative
	Total    int      // conflicting files, listed or not
}

// Merges looks up the merge predicted for two worktrees (in either
// order); false when there is none.
type Merges interface {
	Merge(worktreeA, worktreeB string) (Merge, bool)
}

// MergeMap is Merges over a precomputed map, keyed by MergeKey.
type MergeMap map[[2]string]Merge

// MergeKey orders two worktrees' paths into a MergeMap key.
func MergeKey(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// Merge implements Merges.
func (m MergeMap) Merge(a, b string) (Merge, bool) {
	v, ok := m[MergeKey(a, b)]
	return v, ok
}

// File is one overlapping repository path and what showed it on each
// side.
type File struct {
	Path string   // repository-relative: the deeper of the two entries that overlap
	A, B []Source // side A's evidence, side B's, in the order declared, observed, git
}

// Found is one overlap. A and B index the parties given; A is the side
// with the smaller id, so one pair always reads the same way.
type Found struct {
	Brain string // side A's
	// Repository is the identity both sides share; "" when a side's is
	// not known (a pair of one brain).
	Repository string
	Across     Across
	A, B       int
	Verdict    Verdict
	Merge      MergeState
	// Files are the overlapping paths, sorted, at most Bound.MaxFiles;
	// FilesTotal counts them all.
	Files      []File
	FilesTotal int
	// Conflicts are the files git predicts will conflict (verdict
	// conflict), at most Bound.MaxFiles; ConflictsTotal counts them all.
	Conflicts      []string
	ConflictsTotal int
}

// Key identifies the pair, as a collision's does: the two presence ids,
// smaller first, joined by "~".
func Key(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return a + "~" + b
}

// Bound is what Within lists.
type Bound struct {
	MaxPairs int // the most overlaps listed on each brain; 0 lists all
	MaxFiles int // the most files (and conflicts) listed per overlap; 0: DefaultMaxFiles
}

// DefaultMaxFiles is the most files an overlap lists unless told.
const DefaultMaxFiles = 20

// mask is a set of Sources.
type mask uint8

const (
	mDeclared mask = 1 << iota
	mObserved
	mGit
	mChanged = mObserved | mGit
)

func (m mask) sources() []Source {
	out := make([]Source, 0, 3)
	for _, s := range []struct {
		m mask
		s Source
	}{{mDeclared, SourceDeclared}, {mObserved, SourceObserved}, {mGit, SourceGit}} {
		if m&s.m != 0 {
			out = append(out, s.s)
		}
	}
	return out
}

// side is one party's entries: repository-relative path → evidence.
type side struct {
	worktree string
	entries  map[string]mask
}

// sideOf resolves a party's declared, observed and git paths relative to
// its worktree. Where git answered in full, its list is what the side
// changed now: an observed file git does not list (reverted, or its
// change now on the base) is left out, unless the hooks saw it after git
// scanned (Party.Fresh), and one git lists carries both labels. Where
// git could not answer, or its list was cut short, the observed files
// count as they are.
func sideOf(p *Party) side {
	wt := filepath.Clean(p.Worktree)
	s := side{worktree: wt, entries: map[string]mask{}}
	add := func(rel string, m mask) {
		if rel != "" {
			s.entries[rel] |= m
		}
	}
	for _, e := range p.WorkingSet {
		if e == "" {
			continue
		}
		if !filepath.IsAbs(e) {
			e = filepath.Join(wt, e)
		}
		add(presence.RelPath(wt, e), mDeclared)
	}
	fullGit := p.Git.Available && p.Git.Total <= len(p.Git.Files)
	if p.Git.Available {
		for _, f := range p.Git.Files {
			add(cleanRel(f), mGit)
		}
	}
	for i, t := range p.Touched {
		rel := presence.RelPath(wt, t)
		if fullGit && i >= p.Fresh && s.entries[rel]&mGit == 0 {
			continue
		}
		add(rel, mObserved)
	}
	return s
}

// cleanRel cleans a repository-relative path git gave; "" for one that
// leaves the repository.
func cleanRel(p string) string {
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) {
		return ""
	}
	return c
}

// ancestors calls f with p and each directory above it, up to ".":
// "a/b/c", "a/b", "a", ".". It stops when f returns false.
func ancestors(p string, f func(q string) bool) {
	for {
		if !f(p) {
			return
		}
		if p == "." {
			return
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			p = "."
		} else {
			p = p[:i]
		}
	}
}

// eligible reports whether a party can be a side of an overlap at all.
func eligible(p *Party) bool { return p.Worktree != "" && p.Mutating }

// pairable reports whether two eligible parties may overlap: one
// repository (SameRepository), two worktrees, two teams.
func pairable(a, b *Party) bool {
	return a.ID != b.ID && SameRepository(a, b) &&
		(a.Host != b.Host || filepath.Clean(a.Worktree) != filepath.Clean(b.Worktree)) &&
		(a.Team == "" || a.Team != b.Team)
}

// SameRepository reports whether two parties work on one repository: one
// brain (worktrees of one clone, as before identities), or one identity
// measured on both sides (two clones, two machines). The one place the
// rule lives.
func SameRepository(a, b *Party) bool {
	return a.Brain == b.Brain || (a.Repository != "" && a.Repository == b.Repository)
}

// AcrossOf says what lies between two parties of one repository: where
// this Hall's git answered for both, one clone's common directory or
// two; where a side's answer came from its record or its worktree is not
// on this machine, another host; else (git not answered yet) one brain
// or two.
func AcrossOf(a, b *Party) Across {
	ga, gb := &a.Git, &b.Git
	local := func(g *Git) bool { return g.Available && !g.FromRecord && g.Clone != "" }
	switch {
	case a.Host != b.Host:
		return AcrossHost // the records name two hosts
	case local(ga) && local(gb) && ga.Clone == gb.Clone:
		return AcrossWorktree
	case local(ga) && local(gb):
		return AcrossClone
	case ga.FromRecord || gb.FromRecord || ga.Reason == ReasonNotHere || gb.Reason == ReasonNotHere:
		return AcrossHost
	case a.Brain == b.Brain:
		return AcrossWorktree
	}
	return AcrossClone
}

// ReasonNotHere is Git.Reason for a worktree not on this machine
// (gitscan.NotOnMachine's code).
const ReasonNotHere = "worktree_not_here"

// between derives the overlap of two pairable parties from their sides,
// a the side with the smaller id.
func between(pa, pb *Party, sa, sb *side, merges Merges, maxFiles int) (Found, bool) {
	files := map[string][2]mask{}
	// Each entry of one side against the other's entries at it and above
	// it; a pair is kept when either entry is a change, not two
	// declarations (that is a collision's working-set clause, if any).
	match := func(from, to *side, flip bool) {
		for p, mp := range from.entries {
			ancestors(p, func(q string) bool {
				mq, ok := to.entries[q]
				if !ok || (mp|mq)&mChanged == 0 {
					return true
				}
				ev := files[p]
				if flip {
					ev[0] |= mq
					ev[1] |= mp
				} else {
					ev[0] |= mp
					ev[1] |= mq
				}
				files[p] = ev
				return true
			})
		}
	}
	match(sa, sb, false)
	match(sb, sa, true)
	if len(files) == 0 {
		return Found{}, false
	}
	f := Found{Brain: pa.Brain, Across: AcrossOf(pa, pb), Verdict: VerdictOverlap, Merge: MergeUnknown, FilesTotal: len(files)}
	if pa.Repository == pb.Repository {
		f.Repository = pa.Repository
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if len(paths) > maxFiles {
		paths = paths[:maxFiles]
	}
	f.Files = make([]File, len(paths))
	for i, p := range paths {
		ev := files[p]
		f.Files[i] = File{Path: p, A: ev[0].sources(), B: ev[1].sources()}
	}
	if pa.Git.Available && pb.Git.Available && !pa.Git.FromRecord && !pb.Git.FromRecord && merges != nil {
		if m, ok := merges.Merge(sa.worktree, sb.worktree); ok {
			f.Merge = MergeClean
			if m.Conflict {
				f.Merge, f.Verdict = MergeConflict, VerdictConflict
				f.ConflictsTotal = max(m.Total, len(m.Files))
				f.Conflicts = slices.Clone(m.Files[:min(len(m.Files), maxFiles)])
			}
		}
	}
	return f, true
}

// Between derives the overlap of two parties, if they have one. A is the
// side with the smaller id (0 for a, 1 for b).
func Between(a, b Party, merges Merges, maxFiles int) (Found, bool) {
	if !eligible(&a) || !eligible(&b) || !pairable(&a, &b) {
		return Found{}, false
	}
	maxFiles = orDefault(maxFiles)
	sa, sb := sideOf(&a), sideOf(&b)
	if b.ID < a.ID {
		f, ok := between(&b, &a, &sb, &sa, merges, maxFiles)
		f.A, f.B = 1, 0
		return f, ok
	}
	f, ok := between(&a, &b, &sa, &sb, merges, maxFiles)
	f.A, f.B = 0, 1
	return f, ok
}

func orDefault(maxFiles int) int {
	if maxFiles <= 0 {
		return DefaultMaxFiles
	}
	return maxFiles
}
