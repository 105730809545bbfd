package contract

import (
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/overlap"
)

// The verdicts, merges and bases of an overlap, as Overlap carries them.
const (
	VerdictOverlap  = "overlap"
	VerdictConflict = "conflict"

	MergeClean    = "clean"
	MergeConflict = "conflict"
	MergeUnknown  = "unknown"

	// BasisGit: this Hall's git sees both worktrees; the merge is
	// predicted (or will be, at the next scan).
	BasisGit = "git"
	// BasisPaths: git cannot see a side here (another host's worktree,
	// git missing or too old): the overlap is of paths only (a side's
	// files may still be git's answer from its own host, its git
	// GitRecord), and its merge stays unknown.
	BasisPaths = "paths"

	// GitOK is an overlap side's git state when git answered for it.
	GitOK = "ok"
	// GitRecord is an overlap side's git state when this Hall's git
	// cannot see its worktree (another machine's) and its files are git's
	// answer on the host that took its beats, carried by its record
	// (Presence.Changed): git evidence, but no merge predicted.
	GitRecord = "record"
	// GitNotScanned is an overlap side's git state while this Hall's git
	// has not answered for its worktree yet.
	GitNotScanned = overlap.NotScanned

	// What lies between an overlap's sides (Overlap.Across): two
	// worktrees of one clone, two clones on this machine, another
	// machine's worktree, a branch pushed to the remote.
	AcrossWorktree = string(overlap.AcrossWorktree)
	AcrossClone    = string(overlap.AcrossClone)
	AcrossHost     = string(overlap.AcrossHost)
	AcrossPushed   = string(overlap.AcrossPushed)
)

// OverlapSide names one presence of an overlap and what git said of its
// worktree.
type OverlapSide struct {
	PresenceID string `json:"presence_id,omitempty"` // every side but a pushed branch's
	AgentID    string `json:"agent_id,omitempty"`
	Theme      string `json:"theme,omitempty"`
	Worktree   string `json:"worktree,omitempty"`
	Branch     string `json:"branch,omitempty"`
	// Git is GitOK; GitRecord when this Hall's git cannot see the
	// worktree and the side's git evidence is the answer its record
	// carries from the host that took its beats; or why git could not
	// answer for the worktree on this Hall (worktree_not_here,
	// worktree_not_owned: another user's, git_missing, git_too_old, not_a_worktree, git_timeout, git_failed,
	// not_scanned): the side then counts its observed files only.
	Git string `json:"git"`
	// Host is the host whose Hall took the side's beats, when it is not
	// this Hall's (the overlap is then across hosts); absent here.
	Host string `json:"host,omitempty"`
	// Pushed is the branch when the side is one pushed to the remote
	// (the overlap's across is AcrossPushed), no presence.
	Pushed OverlapPushed `json:"pushed,omitzero"`
}

// OverlapPushed is a pushed branch as git has it: nothing more is
// claimed (no agent is made up from a branch's name).
type OverlapPushed struct {
	Remote      string `json:"remote"` // the remote's identity (host/owner/name, or file:// and a path)
	Branch      string `json:"branch"`
	Commit      string `json:"commit"`       // the branch's tip
	Author      string `json:"author"`       // the tip's author's name, as git has it
	CommittedMs int64  `json:"committed_ms"` // the tip's committer date
	// SeenMs is when a Hall (this one, or the one on the same NATS store
	// that watches the remote for it) first saw this tip on the remote.
	// Not the push time, which only the remote knows. Absent: unknown.
	SeenMs int64 `json:"seen_ms,omitempty"`
	// Default: the branch is the remote's default branch, moved past the
	// worktree's HEAD (the files are what it changed since they parted).
	Default bool `json:"default,omitempty"`
}

// OverlapFile is one overlapping repository-relative path and, for each
// side, what showed it: declared, observed, git (in that order, never
// one taken for another).
type OverlapFile struct {
	Path string   `json:"path"`
	A    []string `json:"a"`
	B    []string `json:"b"`
}

// Overlap is two live presences of one repository (one brain, or one
// repository identity measured on both sides), in different worktrees,
// both mutating, that changed the same repository file
// (docs/worktrees.md); verdict conflict when git, seeing both worktrees,
// predicts their merge will not be clean.
type Overlap struct {
	OverlapID string `json:"overlap_id"` // "<a presence_id>~<b presence_id>", as a collision's
	Brain     string `json:"brain"`      // side A's
	// BrainB is side b's brain where it is not brain (two clones, each
	// its own brain): the overlap is on both brains' rosters.
	BrainB string `json:"brain_b,omitempty"`
	// Repository is the identity of the repository both sides work on
	// (Presence.Repository); "" when a side's is not known and the two
	// share a brain.
	Repository string `json:"repository"`
	// Across is AcrossWorktree, AcrossClone, AcrossHost or AcrossPushed.
	Across  string      `json:"across"`
	A       OverlapSide `json:"a"`
	B       OverlapSide `json:"b"`
	Verdict string      `json:"verdict"` // VerdictOverlap or VerdictConflict
	Merge   string      `json:"merge"`   // MergeClean, MergeConflict or MergeUnknown
	Basis   string      `json:"basis"`   // BasisGit or BasisPaths
	// Files are the overlapping paths, sorted, the first 20; FilesTotal
	// counts them all.
	Files      []OverlapFile `json:"files"`
	FilesTotal int           `json:"files_total"`
	// Conflicts are the files git predicts will conflict, the first 20
	// ([] unless the verdict is conflict); ConflictsTotal counts them.
	Conflicts      []string `json:"conflicts"`
	ConflictsTotal int      `json:"conflicts_total"`
	SinceMs        int64    `json:"since_ms"` // when this Hall first saw it, any verdict
	// MergeReason says why merge is unknown across hosts (MergeReason*
	// codes, docs/worktrees.md#several-machines); MergeHost names the
	// host whose Hall's git predicted the merge across hosts (this Hall's
	// or the other's, whose verdict it read).
	MergeReason string `json:"merge_reason,omitempty"`
	MergeHost   string `json:"merge_host,omitempty"`
}

// FromOverlap maps a domain overlap to its wire form.
func FromOverlap(o presence.Overlap) Overlap {
	out := Overlap{
		OverlapID: o.ID, Brain: o.Brain, BrainB: o.BrainB, Repository: o.Repository, Across: o.Across, A: overlapSide(o.A), B: overlapSide(o.B),
		Verdict: o.Verdict, Merge: o.Merge, Basis: BasisGit,
		Files: make([]OverlapFile, len(o.Files)), FilesTotal: o.FilesTotal,
		Conflicts: append([]string{}, o.Conflicts...), ConflictsTotal: o.ConflictsTotal,
		SinceMs:     o.SinceMs,
		MergeReason: o.MergeReason, MergeHost: o.MergeHost,
	}
	if (o.A.Git != "" || o.B.Git != "") && o.MergeHost == "" {
		// A merge across hosts predicted by a Hall's git (MergeHost) is
		// git's basis, labelled with the host that ran it.
		out.Basis = BasisPaths
	}
	if out.Across == "" {
		out.Across = AcrossWorktree // an overlap within a brain, as before identities
	}
	for i, f := range o.Files {
		out.Files[i] = OverlapFile{Path: f.Path, A: append([]string{}, f.A...), B: append([]string{}, f.B...)}
	}
	return out
}

func overlapSide(s presence.OverlapSide) OverlapSide {
	git := s.Git
	if git == "" {
		git = GitOK
	}
	out := OverlapSide{PresenceID: s.PresenceID, AgentID: s.AgentID, Theme: s.Theme, Worktree: s.Worktree, Branch: s.Branch, Git: git, Host: s.Host}
	if p := s.Pushed; p.Branch != "" {
		out.Pushed = OverlapPushed{Remote: p.Remote, Branch: p.Branch, Commit: p.Commit, Author: p.Author, CommittedMs: p.CommittedMs, SeenMs: p.SeenMs, Default: p.Default}
	}
	return out
}

// Overlaps maps overlaps, never returning nil.
func Overlaps(os []presence.Overlap) []Overlap {
	out := make([]Overlap, len(os))
	for i, o := range os {
		out[i] = FromOverlap(o)
	}
	return out
}

// OnBrain reports whether the overlap is on the brain's roster: a side's
// brain is it.
func (o Overlap) OnBrain(brain string) bool { return o.Brain == brain || o.BrainB == brain }

// Partner is the side of o that is not the presence id.
func (o Overlap) Partner(id string) OverlapSide {
	if o.A.PresenceID == id {
		return o.B
	}
	return o.A
}

// Paths lists the overlap's file paths.
func (o Overlap) Paths() []string {
	out := make([]string, len(o.Files))
	for i, f := range o.Files {
		out[i] = f.Path
	}
	return out
}
