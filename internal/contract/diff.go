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
type Diff struct {
	Seq              uint64      `json:"seq"`
	Joins            []Presence  `json:"joins"`
	Updates          []Presence  `json:"updates"`
	Leaves           []string    `json:"leaves"` // presence ids
	CollisionsOpened []Collision `json:"collisions_opened"`
	CollisionsClosed []Collision `json:"collisions_closed"`
	Error            string      `json:"error,omitempty"`  // RegistryUnreadable or StoreUnreachable
	Detail           string      `json:"detail,omitempty"` // why, when Error is set
}
