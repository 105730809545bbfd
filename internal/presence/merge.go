package presence

// Merge folds a state of one presence that a writer brings (in) into the
// state a store holds (cur): the one rule by which two writers of one
// presence meet, wherever they meet. The NATS store applies it on a
// compare-and-set conflict (two Halls, or two relays, writing one key);
// the Service applies it before each write, folding in what an outside
// writer put in the store since (an m1nd runtime declaring on the same
// presence), so the Hall's next write never reverts it. Both describe one
// presence, and beats only move forward, so:
//
//   - the state with the newer last_beat_ms is the base: its declarations
//     (theme, working set, intent…) are the presence's latest word; on a
//     tie the incoming state wins, as a plain write would;
//   - last_beat_ms, query_count and mutation.observed_at_ms take the max:
//     each is monotone, so the max is the most the presence has done, and
//     no beat taken by either writer is lost. (Counts are not summed: two
//     Halls seed from the same stored count, and a sum would count the
//     shared part twice.)
//   - first_seen_ms takes the earliest known (0 or less is unknown).
//   - touched joins both lists (each file at the latest time either saw
//     it): both are measured facts, and neither writer's is lost.
//   - changed (git's answer for the worktree) is the one git gave last
//     (changed_at_ms), when it is for the result's worktree: a Hall that
//     cannot see the worktree writes none, and never hides the one
//     another Hall's git gave.
//
// The result shares no slice with either input but Changed, which no one
// writes into (see Clone).
func Merge(cur, in Record) Record {
	out := in.Clone()
	if cur.LastBeatMs > in.LastBeatMs {
		out = cur.Clone()
	}
	out.LastBeatMs = max(cur.LastBeatMs, in.LastBeatMs)
	out.QueryCount = max(cur.QueryCount, in.QueryCount)
	out.Mutation.ObservedAtMs = max(cur.Mutation.ObservedAtMs, in.Mutation.ObservedAtMs)
	out.FirstSeenMs = minKnown(cur.FirstSeenMs, in.FirstSeenMs)
	out.Touched, out.TouchedOmitted = MergeTouched(cur.Touched, in.Touched, cur.TouchedOmitted, in.TouchedOmitted)
	for _, o := range []*Record{&cur, &in} {
		if o.ChangedAtMs > out.ChangedAtMs && o.Worktree == out.Worktree {
			out.Changed = o.Changed // never written into: shared, as Clone shares it
			out.ChangedTotal, out.ChangedAtMs, out.Repository = o.ChangedTotal, o.ChangedAtMs, o.Repository
		}
	}
	return out
}

// minKnown is the smaller of two stamps, where 0 or less is unknown.
func minKnown(a, b int64) int64 {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	default:
		return min(a, b)
	}
}
