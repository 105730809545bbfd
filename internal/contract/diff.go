package contract

// Diff is one live change on the stream (SSE event "diff"): presences that
// joined, changed or left, and collisions that opened or closed, since the
// event before it. Seq is the event's position in this server run.
//
// CollisionsOpened is an upsert: a collision already open whose clauses,
// place, paths or sides changed appears there again, whole. Error is the
// registry's state after the diff: RegistryUnreadable or StoreUnreachable
// when the roster was dropped whole (the diff then leaves every presence), absent once it is
// readable again; a diff that changes it reaches every subscriber.
//
// The collisions listed are bounded as the contract's are: a collision
// enters the list in CollisionsOpened and leaves it in CollisionsClosed.
// One that left the list though it is still open (a pair earlier in the
// order opened and took its place) is in CollisionsClosed too, and its id
// in CollisionsUnlisted. CollisionsTotal is the view's true number of
// colliding pairs after the diff, present when it changed: a diff may
// carry it alone.
type Diff struct {
	Seq                uint64      `json:"seq"`
	Joins              []Presence  `json:"joins"`
	Updates            []Presence  `json:"updates"`
	Leaves             []string    `json:"leaves"` // presence ids
	CollisionsOpened   []Collision `json:"collisions_opened"`
	CollisionsClosed   []Collision `json:"collisions_closed"`
	CollisionsUnlisted []string    `json:"collisions_unlisted,omitempty"` // ids in CollisionsClosed still open
	CollisionsTotal    *int        `json:"collisions_total,omitempty"`
	// OverlapsOpened (an upsert: opened, or open and changed, e.g. become
	// a conflict) and OverlapsClosed are the overlaps that entered and
	// left the list; OverlapsTotal the view's true count after the diff,
	// when it changed. All three absent when nothing of overlaps changed.
	OverlapsOpened []Overlap `json:"overlaps_opened,omitempty"`
	OverlapsClosed []Overlap `json:"overlaps_closed,omitempty"`
	OverlapsTotal  *int      `json:"overlaps_total,omitempty"`
	Error          string    `json:"error,omitempty"`  // RegistryUnreadable or StoreUnreachable
	Detail         string    `json:"detail,omitempty"` // why, when Error is set
}
