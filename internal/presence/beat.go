package presence

import (
	"path/filepath"
	"slices"
	"strings"
)

// Limits on what an agent may send. Every field is bounded so one agent
// cannot inflate the store, the page or the cockpit text.
const (
	MaxIDLen         = 128  // agent_id, task_ref, tool, kind
	MaxThemeLen      = 200  // theme, declared_intent
	MaxPathLen       = 1024 // brain, caller_root, worktree, each working-set entry
	MaxWorkingSetLen = 64   // entries in working_set
)

// Beat is one report from a session: "I am here, doing this". Empty fields
// are "not said": they keep what the presence already declared. WorkingSet
// nil keeps the previous set; a non-nil empty slice clears it.
type Beat struct {
	AgentID        string
	Brain          string
	CallerRoot     string
	Kind           string
	Theme          string
	Worktree       string
	WorkingSet     []string
	TaskRef        string
	Tool           string // the tool the agent just ran, classified by the Hall
	DeclaredIntent string
	// Touched names the files this beat's tool call changes, absolute, as
	// a hook adapter read them from the agent's payload: observed, so a
	// beat naming any is an observed mutation.
	Touched []string
	// ParentAgentID is the agent_id of the session this one is a subagent
	// of, on the same brain (the record keeps the parent's presence id).
	ParentAgentID string
	// Git, when set, answers git's latest changed files for a worktree
	// from what a background scanner already knows (it must never run
	// git: it is called on the beat path, under the presence's lock).
	// The Service asks it for the record's worktree once the beat has
	// applied; false leaves the record's git answer as it was (git could
	// not see the worktree here, or has not scanned it yet).
	Git func(worktree string) (GitChanges, bool)
	// Host is the name of the machine whose Hall takes the beat (set by
	// the Hall, never by the agent): the record's host. "" keeps it.
	Host string
}

// Normalize validates the beat against the limits and returns it with its
// paths canonical. Any violation is an EINVALID or ETOOLARGE error naming
// the field.
func (b Beat) Normalize() (Beat, error) { return b.normalize(CanonicalPath) }

// normalize is Normalize with the path canonicalizer given: the Service
// passes a memoizing one, since agents repeat their paths in every beat.
func (b Beat) normalize(canon func(string) (string, error)) (Beat, error) {
	type field struct {
		name, value string
		max         int
		required    bool
		kind        textKind
	}
	for _, f := range []field{
		{"agent_id", b.AgentID, MaxIDLen, true, identifier},
		{"brain", b.Brain, MaxPathLen, true, prose},
		{"caller_root", b.CallerRoot, MaxPathLen, false, prose},
		{"worktree", b.Worktree, MaxPathLen, false, prose},
		{"kind", b.Kind, MaxIDLen, false, identifier},
		{"task_ref", b.TaskRef, MaxIDLen, false, identifier},
		{"tool", b.Tool, MaxIDLen, false, identifier},
		{"theme", b.Theme, MaxThemeLen, false, prose},
		{"declared_intent", b.DeclaredIntent, MaxThemeLen, false, prose},
		{"parent_agent_id", b.ParentAgentID, MaxIDLen, false, identifier},
		{"host", b.Host, MaxIDLen, false, identifier},
	} {
		if err := checkText(f.name, f.value, f.max, f.required, f.kind); err != nil {
			return Beat{}, err
		}
	}
	if len(b.WorkingSet) > MaxWorkingSetLen {
		return Beat{}, Errorf(ETOOLARGE, "working_set has %d entries, limit %d", len(b.WorkingSet), MaxWorkingSetLen)
	}
	if b.ParentAgentID != "" && b.ParentAgentID == b.AgentID {
		return Beat{}, Errorf(EINVALID, "parent_agent_id is the agent itself")
	}
	if len(b.Touched) > MaxTouched {
		return Beat{}, Errorf(ETOOLARGE, "touched has %d entries, limit %d", len(b.Touched), MaxTouched)
	}
	if b.Touched != nil {
		ts := make([]string, 0, len(b.Touched))
		for i, p := range b.Touched {
			if err := checkText("touched entry", p, MaxPathLen, true, prose); err != nil {
				return Beat{}, Errorf(ErrorCode(err), "touched[%d]: %s", i, ErrorMessage(err))
			}
			if !filepath.IsAbs(p) {
				return Beat{}, Errorf(EINVALID, "touched[%d]: %q is not an absolute path", i, p)
			}
			ts = append(ts, filepath.Clean(p))
		}
		b.Touched = ts
	}
	var err error
	if b.Brain, err = canonicalField(canon, "brain", b.Brain); err != nil {
		return Beat{}, err
	}
	if b.CallerRoot, err = canonicalField(canon, "caller_root", b.CallerRoot); err != nil {
		return Beat{}, err
	}
	if b.Worktree, err = canonicalField(canon, "worktree", b.Worktree); err != nil {
		return Beat{}, err
	}
	if b.WorkingSet != nil {
		ws := make([]string, 0, len(b.WorkingSet))
		for i, p := range b.WorkingSet {
			if err := checkText("working_set entry", p, MaxPathLen, true, prose); err != nil {
				return Beat{}, Errorf(ErrorCode(err), "working_set[%d]: %s", i, ErrorMessage(err))
			}
			ws = append(ws, filepath.Clean(p))
		}
		b.WorkingSet = ws
	}
	return b, nil
}

func canonicalField(canon func(string) (string, error), name, p string) (string, error) {
	if p == "" {
		return "", nil
	}
	c, err := canon(p)
	if err != nil {
		return "", Errorf(EINVALID, "%s: %s", name, ErrorMessage(err))
	}
	if len(c) > MaxPathLen {
		// Symlinks resolved may lengthen it: a record over the limit
		// would be refused at read (see withinLimits).
		return "", Errorf(ETOOLARGE, "%s resolves to %d bytes, limit %d", name, len(c), MaxPathLen)
	}
	return c, nil
}

// beatSignal is what forces a write at once when it changes: every
// declaration, whether a mutation has been observed at all, and git's
// list of changed files (not when git last scanned: a rescan that found
// the same files is no news).
type beatSignal struct {
	decl         string
	changed      []string // shared with the record: never written into
	changedTotal int
	repository   string
}

// same reports whether two signals are one. Comparing git's list costs
// no allocation, and two lists that share their strings compare by
// pointer.
func (a beatSignal) same(b beatSignal) bool {
	return a.decl == b.decl && a.changedTotal == b.changedTotal && a.repository == b.repository && slices.Equal(a.changed, b.changed)
}

func signal(r Record) beatSignal {
	return beatSignal{
		decl: strings.Join([]string{
			r.CallerRoot, r.Kind, r.Theme, r.Worktree, strings.Join(r.WorkingSet, "\x00"),
			r.TaskRef, r.Mutation.DeclaredIntent, boolString(r.Mutation.ObservedAtMs > 0), r.Host,
			strings.Join(sortedTouched(r.Touched), "\x00"), r.ParentPresenceID,
		}, "\x01"),
		changed: r.Changed, changedTotal: r.ChangedTotal, repository: r.Repository,
	}
}

// sortedTouched is the set of touched paths, in one order: a file touched
// again changes no signal, a new one does.
func sortedTouched(ts []Touch) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Path
	}
	slices.Sort(out)
	return out
}

func boolString(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// apply folds a normalized beat into the presence's previous state (zero
// when new) at nowMs, returning the next state.
func (b Beat) apply(prev Record, nowMs int64, ttlMs int64, c Classifier) Record {
	r := prev.Clone()
	if r.PresenceID == "" {
		r = Record{Schema: Schema, PresenceID: ID(b.AgentID, b.Brain), AgentID: b.AgentID, Brain: b.Brain, FirstSeenMs: nowMs}
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&r.CallerRoot, b.CallerRoot)
	set(&r.Kind, b.Kind)
	set(&r.Theme, b.Theme)
	if b.Worktree != "" && b.Worktree != r.Worktree {
		r.Worktree = b.Worktree
		r.clearChanged() // git's answer was for the worktree left
	}
	set(&r.TaskRef, b.TaskRef)
	set(&r.Host, b.Host)
	set(&r.Mutation.DeclaredIntent, b.DeclaredIntent)
	if b.WorkingSet != nil {
		r.WorkingSet = append([]string(nil), b.WorkingSet...)
		if len(r.WorkingSet) == 0 {
			r.WorkingSet = nil
		}
	}
	if b.ParentAgentID != "" {
		r.ParentPresenceID = ID(b.ParentAgentID, b.Brain)
	}
	if len(b.Touched) > 0 {
		r.Touched, r.TouchedOmitted = touch(r.Touched, r.TouchedOmitted, b.Touched, nowMs)
	}
	if r.FirstSeenMs <= 0 {
		// Seeded from a writer that left it out: the earliest beat known.
		r.FirstSeenMs = r.FirstSeen()
	}
	if (b.Tool != "" && c.Mutating(b.Tool)) || len(b.Touched) > 0 {
		r.Mutation.ObservedAtMs = nowMs
	}
	r.LastBeatMs = nowMs
	r.QueryCount++
	r.TTLMs = ttlMs
	return r
}
