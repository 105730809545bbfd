package views

import (
	"strconv"

	"github.com/hall-dev/hall/internal/contract"
)

// rowNotShown are the wire fields of a presence that no row shows, so a
// change to them alone leaves a row's signature as it is (every beat
// counts a query and moves the expiry; an observed edit's time is read
// only as the level; git's list of the worktree's files is read by the
// overlaps, not the row, and so is the repository it names). Every other field is in the signature:
// TestPresenceSigSeesWhatRowsShow walks contract.Presence and holds
// writePresence to it, so a field added to the contract is either written
// here or named here.
var rowNotShown = map[string]bool{"QueryCount": true, "TTLMs": true, "ExpiresAtMs": true, "Mutation.ObservedAtMs": true,
	"Changed+": true, "Changed[0]": true, "ChangedTotal": true, "ChangedAtMs": true, "Repository": true,
	"Root": true, "LastSeenMs": true} // m1nd's names for brain and last_beat_ms, which the row shows

// PresenceSig is a short signature of everything a presence's row shows:
// rows carry it (data-h), and the page's script leaves a row whose
// signature did not change untouched.
func PresenceSig(p contract.Presence, colliding bool) string {
	s := newSig()
	s.presence(p)
	s.bool(colliding)
	return s.String()
}

// RosterSig is a short signature of what a scope's roster says: the page
// compares it with a fetched one (the strip's data-sig) to tell whether a
// quiet stream missed a change. It covers what the rows show and every
// field of the collisions and the overlaps, and not the clock.
func RosterSig(d contract.PresencesResponse) string {
	s := newSig()
	s.str(d.Error)
	s.str(d.Detail)
	for _, p := range d.Presences {
		s.presence(p)
	}
	s.str("|")
	for _, c := range d.Collisions {
		s.collision(c)
	}
	s.str("|")
	s.num(int64(d.OverlapsTotal))
	for _, o := range d.Overlaps {
		s.overlap(o)
	}
	return s.String()
}

// sig is 64-bit FNV-1a over the fields written, each closed by a zero
// byte: written field by field, with nothing allocated.
type sig uint64

func newSig() sig { return 14695981039346656037 }

const sigPrime = 1099511628211

// str and num work on a local copy: through the pointer, every byte
// would be a load and a store.
func (s *sig) str(v string) {
	h := *s
	for i := 0; i < len(v); i++ {
		h ^= sig(v[i])
		h *= sigPrime
	}
	*s = h * sigPrime // the closing zero byte: h ^ 0 is h
}

func (s *sig) num(n int64) {
	h := *s
	for i := range 8 {
		h ^= sig(byte(n >> (8 * i)))
		h *= sigPrime
	}
	*s = h * sigPrime
}

func (s *sig) bool(b bool) {
	if b {
		*s = (*s ^ 1) * sigPrime
	}
	*s *= sigPrime
}

func (s *sig) strs(vs []string) {
	s.num(int64(len(vs)))
	for _, v := range vs {
		s.str(v)
	}
}

func (s sig) String() string { return strconv.FormatUint(uint64(s), 36) }

// presence writes what a presence's row shows: every wire field but
// rowNotShown.
func (s *sig) presence(p contract.Presence) {
	s.str(p.PresenceID)
	s.str(p.AgentID)
	s.str(p.Brain)
	s.str(p.CallerRoot)
	s.str(p.Kind)
	s.str(p.Theme)
	s.str(p.Worktree)
	s.strs(p.WorkingSet)
	s.str(p.TaskRef)
	s.str(p.Mutation.DeclaredIntent)
	s.str(p.MutationLevel)
	s.num(int64(len(p.Touched)))
	for _, t := range p.Touched {
		s.str(t.Path)
		s.num(t.AtMs)
	}
	s.num(p.TouchedOmitted)
	s.str(p.ParentPresenceID)
	s.num(p.FirstSeenMs)
	s.num(p.LastBeatMs)
	s.str(p.Host) // shown when another machine's (OtherHost)
}

// overlap writes every field of an overlap.
func (s *sig) overlap(o contract.Overlap) {
	s.str(o.OverlapID)
	s.str(o.Brain)
	s.str(o.BrainB)
	s.str(o.Repository)
	s.str(o.Across)
	for _, x := range []contract.OverlapSide{o.A, o.B} {
		s.str(x.PresenceID)
		s.str(x.AgentID)
		s.str(x.Theme)
		s.str(x.Worktree)
		s.str(x.Branch)
		s.str(x.Git)
		s.str(x.Host)
		s.str(x.Pushed.Remote)
		s.str(x.Pushed.Branch)
		s.str(x.Pushed.Commit)
		s.str(x.Pushed.Author)
		s.num(x.Pushed.CommittedMs)
		s.num(x.Pushed.SeenMs)
		s.bool(x.Pushed.Default)
	}
	s.str(o.Verdict)
	s.str(o.Merge)
	s.str(o.Basis)
	s.num(int64(len(o.Files)))
	for _, f := range o.Files {
		s.str(f.Path)
		s.strs(f.A)
		s.strs(f.B)
	}
	s.num(int64(o.FilesTotal))
	s.strs(o.Conflicts)
	s.num(int64(o.ConflictsTotal))
	s.num(o.SinceMs)
	s.str(o.Across)
	s.str(o.MergeReason)
	s.str(o.MergeHost)
}

// collision writes every field of a collision.
func (s *sig) collision(c contract.Collision) {
	s.str(c.CollisionID)
	s.str(c.Brain)
	for _, x := range []contract.Side{c.A, c.B} {
		s.str(x.PresenceID)
		s.str(x.AgentID)
		s.str(x.Theme)
	}
	s.strs(c.Clauses)
	s.str(c.Place)
	s.strs(c.Paths)
	s.str(c.BrainRoot)
	s.str(c.CallerRoot)
	s.strs(c.AgentIDs[:])
	s.str(c.Reason)
}
