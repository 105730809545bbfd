package contract

import "github.com/hall-dev/hall/internal/presence"

// BeatRequest is the body of POST /api/presences/beat. agent_id and brain
// are required; every other field is optional and, when absent, keeps what
// the presence declared before. working_set absent keeps the set; [] clears
// it.
type BeatRequest struct {
	AgentID        string    `json:"agent_id"`
	Brain          string    `json:"brain"`
	CallerRoot     string    `json:"caller_root,omitempty"`
	Kind           string    `json:"kind,omitempty"`
	Theme          string    `json:"theme,omitempty"`
	Worktree       string    `json:"worktree,omitempty"`
	WorkingSet     *[]string `json:"working_set,omitempty"`
	TaskRef        string    `json:"task_ref,omitempty"`
	Tool           string    `json:"tool,omitempty"`
	DeclaredIntent string    `json:"declared_intent,omitempty"`
	// Touched names the files this beat's tool call changes, absolute, as a
	// hook adapter read them from the agent's payload (at most
	// presence.MaxTouched): observed, never declared. They join the
	// presence's touched list, newest first.
	Touched []string `json:"touched,omitempty"`
	// ParentAgentID is the agent_id of the session this one is a subagent
	// of, on the same brain: the two are one team and never collide.
	ParentAgentID string `json:"parent_agent_id,omitempty"`
	// Hook is what a hook adds (hookbeat.go): the moment and the command
	// line for the shell guard. Read for the answer only, never stored.
	Hook *HookBeat `json:"hook,omitempty"`
	// Listening is false when nobody reads this beat's answer (a hook
	// event whose output the agent ignores: its beat has no Hook): the overlaps the Hall has to
	// tell wait for a beat that is heard. Nil: the answer is read. Not
	// part of the presence's state.
	Listening *bool `json:"listening,omitempty"`
}

// BeatResponse answers a beat: the stable id, whether this beat reached the
// store (false when throttled — it is held in memory and written within the
// throttle window — or when the store failed), why not, and this agent's
// north lines: one per collision partner, at most presence.NorthCap of
// them and then one "+N more" line, [] when none. CollisionsTotal counts
// the collisions the agent is a side of, listed or not.
type BeatResponse struct {
	PresenceID      string   `json:"presence_id"`
	Stored          bool     `json:"stored"`
	Throttled       bool     `json:"throttled,omitempty"` // held by the throttle, written within its window: the typed state behind reason's "throttled: …"
	Reason          string   `json:"reason,omitempty"`
	North           []string `json:"north"`
	CollisionsTotal int      `json:"collisions_total"`
	// Hook answers a beat that carried one (hookbeat.go).
	Hook *HookSay `json:"hook,omitempty"`
	// Overlaps are the overlaps this beat tells the agent (issue #20): one
	// that opened or became a conflict since it was last told, or whose
	// files this beat's tool is about to change; absent when none. The
	// Hall remembers what it told each presence in memory: a restart may
	// tell one again, once.
	Overlaps []Overlap `json:"overlaps,omitempty"`
}

// NorthResponse is GET /api/north: one presence's collision lines, bounded
// as a beat's, and the number of its collisions.
type NorthResponse struct {
	PresenceID string `json:"presence_id"`
	// Live says whether the presence is on the roster now: false for one
	// that lapsed, left or never beat, whose north is empty because there
	// is nobody to collide with, not because it collides with nobody.
	// Absent while the roster cannot be read.
	Live            *bool    `json:"live,omitempty"`
	North           []string `json:"north"`
	CollisionsTotal int      `json:"collisions_total"`
	// Others say whose uncommitted changes are in the presence's worktree
	// (the ownership lines a hook tells at a session's start); absent
	// when nobody else's are.
	Others []string `json:"others,omitempty"`
	// Overlaps are the presence's overlaps (worktrees that changed the
	// same files), at most presence.NorthCap; OverlapsTotal counts every
	// one it is a side of, listed or not.
	Overlaps      []Overlap `json:"overlaps"`
	OverlapsTotal int       `json:"overlaps_total"`
	Error         string    `json:"error,omitempty"` // RegistryUnreadable or StoreUnreachable
	Detail        string    `json:"detail,omitempty"`
}

// NorthDropped is the north answer while the roster is dropped whole: no
// lines, and why (RosterError).
func NorthDropped(id string, err error) NorthResponse {
	code, detail := RosterError(err)
	return NorthResponse{PresenceID: id, North: []string{}, Overlaps: []Overlap{}, Error: code, Detail: detail}
}

// Beat maps the request to the domain's beat.
func (b BeatRequest) Beat() presence.Beat {
	out := presence.Beat{
		AgentID: b.AgentID, Brain: b.Brain, CallerRoot: b.CallerRoot, Kind: b.Kind,
		Theme: b.Theme, Worktree: b.Worktree, TaskRef: b.TaskRef, Tool: b.Tool,
		DeclaredIntent: b.DeclaredIntent, ParentAgentID: b.ParentAgentID,
	}
	if b.Touched != nil {
		out.Touched = append([]string{}, b.Touched...)
	}
	if b.WorkingSet != nil {
		out.WorkingSet = append([]string{}, (*b.WorkingSet)...)
	}
	return out
}

// FromBeatResult maps a beat's result to its response.
func FromBeatResult(r presence.BeatResult) BeatResponse {
	return BeatResponse{
		PresenceID:      r.PresenceID,
		Stored:          r.Stored,
		Throttled:       r.Throttled,
		Reason:          r.Reason,
		North:           NorthLines(r.PresenceID, r.Collisions, r.CollisionsTotal),
		CollisionsTotal: r.CollisionsTotal,
	}
}
