package contract

// Diff is one live change on the stream (SSE event "diff"): presences that
// joined, changed or left, and collisions that opened or closed, since the
// event before it. Seq is the event's position in this server run.
type Diff struct {
	Seq              uint64      `json:"seq"`
	Joins            []Presence  `json:"joins"`
	Updates          []Presence  `json:"updates"`
	Leaves           []string    `json:"leaves"` // presence ids
	CollisionsOpened []Collision `json:"collisions_opened"`
	CollisionsClosed []Collision `json:"collisions_closed"`
}
