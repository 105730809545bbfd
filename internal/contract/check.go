package contract

// CheckRequest is POST /api/presences/check: what a beat would carry,
// asked "would this collide?" without beating. brain, or caller_root (or
// worktree) for the Hall to derive it from, is required.
type CheckRequest struct {
	AgentID    string   `json:"agent_id,omitempty"` // who asks: its own presence and team are left out
	Brain      string   `json:"brain,omitempty"`
	CallerRoot string   `json:"caller_root,omitempty"`
	Worktree   string   `json:"worktree,omitempty"`
	Paths      []string `json:"paths,omitempty"`    // files or directories, absolute or relative to the worktree (at most 64)
	Mutating   *bool    `json:"mutating,omitempty"` // whether the work would change files; absent: true
}

// CheckResponse answers a check: the live presences the work would
// collide with (one place now) or overlap (another worktree, the same
// files), and why. Nothing is written.
type CheckResponse struct {
	Brain        string     `json:"brain"`
	WouldCollide bool       `json:"would_collide"`
	Collisions   []CheckHit `json:"collisions"`
	Overlaps     []CheckHit `json:"overlaps"`
	Error        string     `json:"error,omitempty"` // the roster could not be read (RosterError)
	Detail       string     `json:"detail,omitempty"`
}

// CheckHit is one live presence a check meets. Clauses name a collision's
// reasons (caller_root, worktree, working_set, touched); Paths are its
// shared absolute paths, or an overlap's repository-relative files.
type CheckHit struct {
	PresenceID string   `json:"presence_id"`
	AgentID    string   `json:"agent_id"`
	Kind       string   `json:"kind,omitempty"`
	Theme      string   `json:"theme,omitempty"`
	Worktree   string   `json:"worktree,omitempty"`
	Clauses    []string `json:"clauses,omitempty"`
	Paths      []string `json:"paths,omitempty"`
	Merge      string   `json:"merge,omitempty"` // an overlap's merge prediction: clean, conflict or unknown
}
