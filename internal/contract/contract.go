package contract

import (
	"encoding/json"

	"github.com/hall-dev/hall/internal/presence"
)

// Presence is one live presence on the wire: m1nd's P1-UI PresenceEntry
// (agent_id, root, caller_root, first_seen_ms, last_seen_ms, query_count,
// mutation, task_ref, with m1nd's names and rules) and the Hall's own
// fields beside it (docs/api.md).
type Presence struct {
	PresenceID string `json:"presence_id"`
	AgentID    string `json:"agent_id"`
	Brain      string `json:"brain"`
	// Root is the brain again, under m1nd's name for it.
	Root string `json:"root"`
	// CallerRoot is absent when unknown or equal to the brain, as m1nd's
	// wire_entry omits it: Where reads the same either way.
	CallerRoot    string   `json:"caller_root,omitempty"`
	Kind          string   `json:"kind,omitempty"`
	Theme         string   `json:"theme,omitempty"`
	Worktree      string   `json:"worktree,omitempty"`
	WorkingSet    []string `json:"working_set"`
	TaskRef       string   `json:"task_ref,omitempty"`
	Mutation      Mutation `json:"mutation"`
	MutationLevel string   `json:"mutation_level"` // LevelObserved, LevelDeclared or LevelNone
	// Touched is what the Hall observed the presence's tools change, newest
	// first, at most 32 ([] when none); TouchedOmitted counts older files
	// dropped from it. Observed, never declared.
	Touched        []Touch `json:"touched"`
	TouchedOmitted int64   `json:"touched_omitted,omitempty"`
	// ParentPresenceID is set on a subagent: the session that runs it.
	ParentPresenceID string `json:"parent_presence_id,omitempty"`
	// Changed is git's answer for the worktree on the host whose Hall
	// took the beat: repository-relative files, sorted, at most 200;
	// ChangedTotal counts them all; ChangedAtMs is when that git scanned.
	// All three absent when the record carries no git answer. Measured.
	Changed      []string `json:"changed,omitempty"`
	ChangedTotal int      `json:"changed_total,omitempty"`
	ChangedAtMs  int64    `json:"changed_at_ms,omitempty"`
	// Host names the machine whose Hall took the presence's last beat;
	// absent when unknown (m1nd's records, an older Hall's). Measured.
	Host string `json:"host,omitempty"`
	// Repository is the identity of the repository the worktree belongs
	// to, from the same git answer (docs/worktrees.md, one repository):
	// absent when the record carries none. Measured, never declared.
	Repository  string `json:"repository,omitempty"`
	FirstSeenMs int64  `json:"first_seen_ms"`
	LastBeatMs  int64  `json:"last_beat_ms"`
	LastSeenMs  int64  `json:"last_seen_ms"` // the last beat again, under m1nd's name
	QueryCount  int64  `json:"query_count"`
	TTLMs       int64  `json:"ttl_ms"`
	ExpiresAtMs int64  `json:"expires_at_ms"`
}

// Where is the place the presence works: its worktree, else its
// caller_root, else its brain (presence.Where).
func (p Presence) Where() string { return presence.Where(p.Worktree, p.CallerRoot, p.Brain) }

// The mutation levels, as Presence.MutationLevel carries them.
const (
	LevelObserved = string(presence.LevelObserved)
	LevelDeclared = string(presence.LevelDeclared)
	LevelNone     = string(presence.LevelNone)
)

// The clauses of a collision, as Collision.Clauses carries them.
const (
	ClauseCallerRoot = string(presence.ClauseCallerRoot)
	ClauseWorktree   = string(presence.ClauseWorktree)
	ClauseWorkingSet = string(presence.ClauseWorkingSet)
	ClauseTouched    = string(presence.ClauseTouched)
)

// Mutation is the two honest levels, as stored.
type Mutation struct {
	ObservedAtMs   int64  `json:"observed_at_ms,omitempty"`
	DeclaredIntent string `json:"declared_intent,omitempty"`
}

// Touch is one file a presence's tool changed, and when.
type Touch struct {
	Path string `json:"path"`
	AtMs int64  `json:"at_ms"`
}

// Side names one presence of a collision.
type Side struct {
	PresenceID string `json:"presence_id"`
	AgentID    string `json:"agent_id"`
	Theme      string `json:"theme,omitempty"`
}

// Collision is two mutating presences sharing a place on one brain: the
// Hall's own fields (collision_id, brain, a, b, clauses, place, paths) and
// m1nd's P1-UI PresenceCollision beside them (brain_root, caller_root,
// agent_ids, reason; see ReasonOf).
type Collision struct {
	CollisionID string    `json:"collision_id"` // "<a presence_id>~<b presence_id>"
	Brain       string    `json:"brain"`
	A           Side      `json:"a"`
	B           Side      `json:"b"`
	Clauses     []string  `json:"clauses"`               // same_caller_root, same_worktree, working_set_overlap, touched_overlap
	Place       string    `json:"place"`                 // the shared worktree, caller_root or path
	Paths       []string  `json:"paths"`                 // overlapping working-set and touched paths
	BrainRoot   string    `json:"brain_root"`            // the brain again, under m1nd's name
	CallerRoot  string    `json:"caller_root,omitempty"` // with ReasonSameWorktree: the shared caller_root, else the shared worktree; absent otherwise
	AgentIDs    [2]string `json:"agent_ids"`             // a's agent_id, then b's (an array: no allocation a collision)
	Reason      string    `json:"reason"`                // ReasonSameWorktree or ReasonDeclaredOverlap
}

// The reasons of a collision, m1nd's two arms, as Collision.Reason
// carries them.
const (
	ReasonSameWorktree    = "same_worktree"
	ReasonDeclaredOverlap = "declared_overlap"
)

// ReasonOf maps a collision's clauses onto m1nd's two arms, once for every
// surface. A shared caller_root or worktree is "same_worktree", with the
// place in callerRoot (the caller_root preferred, as m1nd's wire_collision
// does); declared working sets that meet, and no shared place, are
// "declared_overlap", with no place. A pair that meets only at a file a
// side was observed changing (touched_overlap alone) is neither of m1nd's
// arms: it is "same_worktree", the arm m1nd calls measured, with no
// caller_root (no caller_root or worktree is shared; the file is in place
// and paths); never "declared_overlap", which would call an observation a
// declaration. On m1nd's own fields (no touched files) the reason is
// m1nd's.
func ReasonOf(c presence.Collision) (reason, callerRoot string) {
	var sameRoot, sameTree, declared bool
	for _, cl := range c.Clauses {
		switch cl {
		case presence.ClauseCallerRoot:
			sameRoot = true
		case presence.ClauseWorktree:
			sameTree = true
		case presence.ClauseWorkingSet:
			declared = true
		}
	}
	switch {
	case sameRoot:
		return ReasonSameWorktree, c.A.CallerRoot
	case sameTree:
		return ReasonSameWorktree, c.A.Worktree
	case declared:
		return ReasonDeclaredOverlap, ""
	}
	return ReasonSameWorktree, ""
}

// PresencesResponse is GET /api/presences: THE contract for UI clients and
// pollers. Collisions is always present ([] when none) and bounded: at
// most the Hall's --max-collisions on each brain, the first by the sides'
// presence ids; CollisionsTotal is the true number of colliding pairs in
// the response's scope, listed or not (for a presence's stream view, the
// pairs it is a side of). Error is set, with both lists empty and the
// total 0, when the registry cannot be read.
type PresencesResponse struct {
	Presences       []Presence  `json:"presences"`
	Collisions      []Collision `json:"collisions"`
	CollisionsTotal int         `json:"collisions_total"`
	// Overlaps is always present ([] when none) and bounded as collisions
	// are (1,000 on each brain, the first by overlap_id); OverlapsTotal
	// counts every overlapping pair in scope. Additive: issue #20.
	Overlaps      []Overlap `json:"overlaps"`
	OverlapsTotal int       `json:"overlaps_total"`
	// ServedBrain echoes the brain asked for, as m1nd's P1-UI ServedBrain;
	// nil (absent) when owner-wide.
	ServedBrain *ServedBrain `json:"served_brain,omitempty"`
	ServedAtMs  int64        `json:"served_at_ms"`
	Cursor      string       `json:"cursor,omitempty"` // the stream event id this state matches
	Error       string       `json:"error,omitempty"`  // RegistryUnreadable or StoreUnreachable
	Detail      string       `json:"detail,omitempty"` // why, when Error is set
}

// ServedBrain is which brain answered: m1nd's P1-UI ServedBrain.
type ServedBrain struct {
	ProjectRoot string `json:"project_root"` // the canonical brain
	// DisplayName is always null: the Hall names no brain beyond its
	// path (m1nd's type allows null).
	DisplayName *string `json:"display_name"`
}

// UnmarshalJSON reads m1nd's object, and the string a Hall sent before
// issue 41 (the canonical brain), so a client of this Hall (hall watch)
// still reads an older one.
func (s *ServedBrain) UnmarshalJSON(b []byte) error {
	var old string
	if err := json.Unmarshal(b, &old); err == nil {
		*s = ServedBrain{ProjectRoot: old}
		return nil
	}
	type plain ServedBrain // without this method
	return json.Unmarshal(b, (*plain)(s))
}

// Served is the served_brain echo for a scope: nil for owner-wide ("").
func Served(brain string) *ServedBrain {
	if brain == "" {
		return nil
	}
	return &ServedBrain{ProjectRoot: brain}
}

// Root is the brain the echo names, "" for nil.
func (s *ServedBrain) Root() string {
	if s == nil {
		return ""
	}
	return s.ProjectRoot
}

// Why a roster was dropped whole: the Error of the contract, of health, of
// a stream's snapshot and diff.
const (
	// RegistryUnreadable: the sidecar folder (or another store) cannot be
	// read.
	RegistryUnreadable = "registry_unreadable"
	// StoreUnreachable: the store is a server on the network (NATS) and
	// the Hall cannot reach it.
	StoreUnreachable = "store_unreachable"
)

// RosterError names why the roster was dropped, from the error that
// dropped it: the code and the sentence every read surface carries.
func RosterError(err error) (code, detail string) {
	if presence.ErrorCode(err) == presence.EUNREACHABLE {
		return StoreUnreachable, presence.ErrorMessage(err)
	}
	return RegistryUnreadable, presence.ErrorMessage(err)
}

// RosterErrorLabel says a roster error code in words, for people:
// "registry unreadable", "store unreachable".
func RosterErrorLabel(code string) string {
	if code == StoreUnreachable {
		return "store unreachable"
	}
	return "registry unreadable"
}

// Dropped is the contract's answer while the roster is dropped whole: both
// lists empty, why (RosterError), served at atMs. The caller sets what
// else it echoes (cursor, served brain).
func Dropped(err error, atMs int64) PresencesResponse {
	code, detail := RosterError(err)
	return PresencesResponse{
		Presences:  []Presence{},
		Collisions: []Collision{},
		Overlaps:   []Overlap{},
		ServedAtMs: atMs,
		Error:      code,
		Detail:     detail,
	}
}

// ErrorResponse is every JSON error: a snake_case code and a sentence.
type ErrorResponse struct {
	Error  string `json:"error"`
	Detail string `json:"detail"`
}

// Health is GET /api/health.
type Health struct {
	Status         string          `json:"status"`
	StartedAtMs    int64           `json:"started_at_ms"`
	UptimeMs       int64           `json:"uptime_ms"`
	Presences      *HealthRoster   `json:"presences,omitempty"`
	PresencesError string          `json:"presences_error,omitempty"` // "<label>: <detail>" when the roster was dropped
	Error          string          `json:"error,omitempty"`           // RegistryUnreadable or StoreUnreachable, with Presences dropped
	Detail         string          `json:"detail,omitempty"`          // why, when Error is set
	Store          HealthStoreStat `json:"store"`
	Stream         *HealthStream   `json:"stream,omitempty"`
	Git            *HealthGit      `json:"git,omitempty"`
	// Remotes is the watch of pushed work (docs/worktrees.md#pushed-work):
	// each remote a live worktree fetches from, the first
	// MaxHealthRemotes by identity; absent when the watch is off.
	Remotes      []HealthRemote `json:"remotes,omitempty"`
	RemotesTotal int            `json:"remotes_total,omitempty"`
}

// MaxHealthRemotes is the most remotes health lists.
const MaxHealthRemotes = 100

// HealthRemote is one watched remote: its active branches, and whether
// the last look succeeded, with the time of the last good one.
type HealthRemote struct {
	Remote        string `json:"remote"`                   // the identity
	DefaultBranch string `json:"default_branch,omitempty"` // "" before the first good look
	Branches      int    `json:"branches"`                 // active branches kept
	Omitted       int    `json:"omitted"`                  // active past the bound (--remote-max-branches)
	Worktrees     int    `json:"worktrees"`                // live worktrees fetching from it
	LastGoodMs    int64  `json:"last_good_ms,omitempty"`   // the last look that succeeded; absent: none yet
	// Error is the last look's failure (unreachable, refused, timed
	// out), absent when it succeeded; FailingSinceMs when they began.
	Error          string `json:"error,omitempty"`
	FailingSinceMs int64  `json:"failing_since_ms,omitempty"`
	// SharedBy is the host of the Hall on the same NATS store whose look
	// the last answer was (docs/nats.md#the-shared-watch), LastGoodMs
	// then the time of that look; absent: this Hall's own.
	SharedBy string `json:"shared_by,omitempty"`
}

// HealthGit is what the Hall's git scanner can do (docs/worktrees.md):
// status ok, or observed_only when git is missing or too old (overlaps
// then count the hooks' observed files only, and no merge is predicted).
type HealthGit struct {
	Status  string `json:"status"`           // GitOK or GitObservedOnly
	Code    string `json:"code,omitempty"`   // git_missing or git_too_old, with observed_only
	Detail  string `json:"detail,omitempty"` // in words: "observed files only: …"
	Version string `json:"version,omitempty"`
}

// GitObservedOnly is HealthGit.Status when git cannot be used.
const GitObservedOnly = "observed_only"

// HealthStream counts the live stream's traffic since start.
type HealthStream struct {
	Subscribers int    `json:"subscribers"` // open now
	Subscribed  int64  `json:"subscribed"`  // ever
	Dropped     int64  `json:"dropped"`     // cut off for falling behind (their clients resume)
	Resumed     int64  `json:"resumed"`     // reconnects served from the history
	Snapshots   int64  `json:"snapshots"`   // connects served a snapshot
	Diffs       uint64 `json:"diffs"`       // diffs emitted
	Refused     int64  `json:"refused"`     // connects refused with a 503: max_streams were open
	MaxStreams  int    `json:"max_streams"` // streams served at once (--max-streams); 0: no bound
}

// HealthSample is the most presences, and the most collisions, health
// shows: a sample, counted in full by Live and CollisionCount.
const HealthSample = 20

// HealthRoster is the owner-wide roster as a diagnostic: its counts, and a
// sample of at most HealthSample presences (the first in roster order) and
// HealthSample collisions (the first listed).
type HealthRoster struct {
	Live           int         `json:"live"`
	CollisionCount int         `json:"collision_count"` // every colliding pair, listed or not
	OverlapCount   int         `json:"overlap_count"`   // every overlapping pair, listed or not
	Skipped        int         `json:"skipped"`
	Presences      []Presence  `json:"presences"`
	Collisions     []Collision `json:"collisions"`
}

// HealthStoreStat counts the store traffic since start.
type HealthStoreStat struct {
	Kind        string `json:"kind"`
	Beats       int64  `json:"beats"`
	Writes      int64  `json:"writes"`
	WriteErrors int64  `json:"write_errors"`
	Throttled   int64  `json:"throttled"`
	// BusyReads counts reads of the store refused for a moment (out of
	// file descriptors): the last good roster was kept and the read
	// retried.
	BusyReads int64 `json:"busy_reads"`
}

// FromRecord maps a domain record to its wire form.
func FromRecord(r presence.Record) Presence {
	ws := r.WorkingSet
	if ws == nil {
		ws = []string{}
	}
	return Presence{
		PresenceID:       r.PresenceID,
		AgentID:          r.AgentID,
		Brain:            r.Brain,
		Root:             r.Brain,
		CallerRoot:       callerRoot(r),
		Kind:             r.Kind,
		Theme:            r.Theme,
		Worktree:         r.Worktree,
		WorkingSet:       append([]string{}, ws...),
		TaskRef:          r.TaskRef,
		Mutation:         Mutation{ObservedAtMs: r.Mutation.ObservedAtMs, DeclaredIntent: r.Mutation.DeclaredIntent},
		MutationLevel:    string(r.Mutation.Level()),
		Touched:          touches(r.Touched),
		TouchedOmitted:   r.TouchedOmitted,
		ParentPresenceID: r.ParentPresenceID,
		Changed:          r.Changed, // the record's slices are never written into
		ChangedTotal:     r.ChangedTotal,
		ChangedAtMs:      r.ChangedAtMs,
		Host:             r.Host,
		Repository:       r.Repository,
		FirstSeenMs:      r.FirstSeen(),
		LastBeatMs:       r.LastBeatMs,
		LastSeenMs:       r.LastBeatMs,
		QueryCount:       r.QueryCount,
		TTLMs:            r.TTL().Milliseconds(),
		ExpiresAtMs:      r.ExpiresAtMs(),
	}
}

// callerRoot is the record's caller_root as m1nd's wire_entry shows it:
// "" when it equals the brain.
func callerRoot(r presence.Record) string {
	if r.CallerRoot == r.Brain {
		return ""
	}
	return r.CallerRoot
}

func touches(ts []presence.Touch) []Touch {
	out := make([]Touch, len(ts))
	for i, t := range ts {
		out[i] = Touch{Path: t.Path, AtMs: t.AtMs}
	}
	return out
}

// FromCollision maps a domain collision to its wire form.
func FromCollision(c presence.Collision) Collision {
	clauses := make([]string, len(c.Clauses))
	for i, cl := range c.Clauses {
		clauses[i] = string(cl)
	}
	paths := c.Paths
	if paths == nil {
		paths = []string{}
	}
	reason, root := ReasonOf(c)
	return Collision{
		CollisionID: c.Key(),
		Brain:       c.Brain,
		A:           Side{PresenceID: c.A.PresenceID, AgentID: c.A.AgentID, Theme: c.A.Theme},
		B:           Side{PresenceID: c.B.PresenceID, AgentID: c.B.AgentID, Theme: c.B.Theme},
		Clauses:     clauses,
		Place:       c.Place,
		Paths:       append([]string{}, paths...),
		BrainRoot:   c.Brain,
		CallerRoot:  root,
		AgentIDs:    [2]string{c.A.AgentID, c.B.AgentID},
		Reason:      reason,
	}
}

// Presences maps records, never returning nil.
func Presences(rs []presence.Record) []Presence {
	out := make([]Presence, len(rs))
	for i, r := range rs {
		out[i] = FromRecord(r)
	}
	return out
}

// Collisions maps collisions, never returning nil.
func Collisions(cs []presence.Collision) []Collision {
	out := make([]Collision, len(cs))
	for i, c := range cs {
		out[i] = FromCollision(c)
	}
	return out
}

// FromSnapshot builds the contract response for a snapshot already narrowed
// to servedBrain ("" for owner-wide).
func FromSnapshot(s presence.Snapshot, servedBrain string) PresencesResponse {
	return PresencesResponse{
		Presences:       Presences(s.Live),
		Collisions:      Collisions(s.Collisions),
		CollisionsTotal: s.CollisionsTotal,
		Overlaps:        Overlaps(s.Overlaps),
		OverlapsTotal:   s.OverlapsTotal,
		ServedBrain:     Served(servedBrain),
		ServedAtMs:      s.AtMs,
	}
}

// HealthRosterOf is health's roster block for a whole snapshot: the counts
// and the samples.
func HealthRosterOf(s presence.Snapshot) *HealthRoster {
	return &HealthRoster{
		Live:           len(s.Live),
		CollisionCount: s.CollisionsTotal,
		OverlapCount:   s.OverlapsTotal,
		Skipped:        s.Skipped,
		Presences:      Presences(s.Live[:min(len(s.Live), HealthSample)]),
		Collisions:     Collisions(s.Collisions[:min(len(s.Collisions), HealthSample)]),
	}
}
