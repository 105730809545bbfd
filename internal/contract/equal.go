package contract

import "slices"

// Equal reports whether p and q say the same on the wire, every field of
// Presence compared (TestPresenceEqualSeesEveryField holds it to the
// struct): a stream's view takes any difference for an update.
func (p Presence) Equal(q Presence) bool {
	return p.PresenceID == q.PresenceID && p.AgentID == q.AgentID && p.Brain == q.Brain && p.Root == q.Root &&
		p.CallerRoot == q.CallerRoot && p.Kind == q.Kind && p.Theme == q.Theme &&
		p.Worktree == q.Worktree && slices.Equal(p.WorkingSet, q.WorkingSet) &&
		p.TaskRef == q.TaskRef && p.Mutation == q.Mutation && p.MutationLevel == q.MutationLevel &&
		p.FirstSeenMs == q.FirstSeenMs && p.LastBeatMs == q.LastBeatMs && p.LastSeenMs == q.LastSeenMs &&
		p.QueryCount == q.QueryCount && p.TTLMs == q.TTLMs && p.ExpiresAtMs == q.ExpiresAtMs &&
		slices.Equal(p.Touched, q.Touched) && p.TouchedOmitted == q.TouchedOmitted && p.ParentPresenceID == q.ParentPresenceID &&
		slices.Equal(p.Changed, q.Changed) && p.ChangedTotal == q.ChangedTotal && p.ChangedAtMs == q.ChangedAtMs && p.Repository == q.Repository &&
		p.Host == q.Host
}

// Equal reports whether c and d say the same on the wire, every field of
// Collision compared (TestCollisionEqualSeesEveryField): a changed
// collision is one still open with other sides, place, clauses or paths.
func (c Collision) Equal(d Collision) bool {
	return c.CollisionID == d.CollisionID && c.Brain == d.Brain && c.A == d.A && c.B == d.B && c.Place == d.Place &&
		slices.Equal(c.Clauses, d.Clauses) && slices.Equal(c.Paths, d.Paths) &&
		c.BrainRoot == d.BrainRoot && c.CallerRoot == d.CallerRoot && c.AgentIDs == d.AgentIDs && c.Reason == d.Reason
}
