package contract

// Line types: what one Line says happened.
const (
	LineSnapshot           = "snapshot"
	LineJoin               = "join"
	LineUpdate             = "update"
	LineLeave              = "leave"
	LineCollisionOpened    = "collision_opened"
	LineCollisionChanged   = "collision_changed"
	LineCollisionClosed    = "collision_closed"
	LineCollisionUnlisted  = "collision_unlisted" // still open, no longer listed: the bound
	LineRegistryUnreadable = "registry_unreadable"
	LineRegistryReadable   = "registry_readable"
	LineStoreUnreachable   = "store_unreachable"
	LineStoreReachable     = "store_reachable"
	LineOverlapOpened      = "overlap_opened"
	LineOverlapChanged     = "overlap_changed" // e.g. it became a conflict
	LineOverlapClosed      = "overlap_closed"
)

// Line is one thing that happened on the stream, told on its own: `hall
// watch --json` prints one a line, and GET /api/events serves the Hall's
// recent ones. The JSON field names are a public contract. It lives here,
// not with the stream that tells it, so the page and the CLI read it
// without knowing any transport.
type Line struct {
	Type      string             `json:"type"`
	EventID   string             `json:"event_id"`
	Seq       uint64             `json:"seq,omitempty"`
	AtMs      int64              `json:"at_ms"`            // when the teller saw it (watch: received; the Hall: emitted)
	Resync    bool               `json:"resync,omitempty"` // from a snapshot after a reconnect
	Snapshot  *PresencesResponse `json:"snapshot,omitempty"`
	Presence  *Presence          `json:"presence,omitempty"` // for a leave: as last seen
	Collision *Collision         `json:"collision,omitempty"`
	Overlap   *Overlap           `json:"overlap,omitempty"`
	Detail    string             `json:"detail,omitempty"`
	// OpenedAtMs is when the teller saw the collision open, on
	// collision_changed and collision_closed lines; absent when it was
	// already open when the teller first looked.
	OpenedAtMs int64 `json:"opened_at_ms,omitempty"`
	// LastedMs is how long a closed collision was open, present when
	// OpenedAtMs is known.
	LastedMs *int64 `json:"lasted_ms,omitempty"`
}

// Brain is the brain a line is about; "" for a line about every brain
// (a snapshot, the store's state).
func (l Line) Brain() string {
	switch {
	case l.Presence != nil:
		return l.Presence.Brain
	case l.Collision != nil:
		return l.Collision.Brain
	case l.Overlap != nil:
		return l.Overlap.Brain
	}
	return ""
}

// OnBrain reports whether the line belongs to the brain's events: its
// brain (Brain, "" for none, on every brain's), or, for an overlap of
// two clones, side b's brain too.
func (l Line) OnBrain(brain string) bool {
	b := l.Brain()
	return b == "" || b == brain || (l.Overlap != nil && l.Overlap.OnBrain(brain))
}

// Opened is when a teller saw a collision open. Seen is false for one that
// was already open when the teller first looked: AtMs is then that first
// look, and the collision is at least that old.
type Opened struct {
	AtMs int64
	Seen bool
}

// EventsResponse is GET /api/events: the recent events, newest first;
// LeftOut counts the matching events the history holds beyond the limit,
// Kept is how many events the history holds at most (all brains together).
type EventsResponse struct {
	Events  []Line `json:"events"`
	LeftOut int    `json:"left_out"`
	Kept    int    `json:"kept"`
}
