package presence

import "context"

// LiveBeside returns the presence id's record as a snapshot would show it
// and the live records of its brain (itself among them), in roster order:
// what a hook answer reads around one presence (the shell guard's scene,
// the ownership lines). Unlike Snapshot it derives nothing (no collision,
// no overlap) and keeps only that brain's records, so a shell command's
// hook answer pays for a pass over the roster, not for the whole roster's
// derivation. When id is not live, self is zero and live is every live
// record, as Snapshot.Live. The error is Snapshot's: the store cannot be
// read.
func (s *Service) LiveBeside(ctx context.Context, id string) (self Record, live []Record, err error) {
	if !s.watching.Load() {
		if _, err := s.Refresh(ctx); err != nil && ctx.Err() != nil {
			return Record{}, nil, err
		}
	}
	now := s.now()
	s.mirror.mu.Lock()
	defer s.mirror.mu.Unlock()
	s.projection.mu.Lock()
	defer s.projection.mu.Unlock()
	if s.mirror.cacheErr != nil {
		return Record{}, nil, s.mirror.cacheErr
	}
	brain := ""
	if r, ok := s.mirror.cache[id]; ok {
		brain = r.Brain
		if e, ok := s.projection.entries[id]; ok && e.shown.LastBeatMs >= r.LastBeatMs && e.shown.PresenceID != "" {
			brain = e.shown.Brain // the record eachLiveLocked shows
		}
	}
	// Counted first, so the records (312 bytes each) are copied once into
	// a slice of their number, not through every doubling of one: this
	// runs for every shell command's hook answer.
	n := 0
	s.eachLiveLocked(now, brain, func(Record) { n++ })
	live = s.appendLiveLocked(make([]Record, 0, n), now, brain)
	for i := range live {
		if live[i].PresenceID == id {
			self = live[i]
			break
		}
	}
	if self.PresenceID == "" && brain != "" {
		// Known but not live: as Snapshot.Live, every live record.
		live = s.appendLiveLocked(live[:0], now, "")
	}
	return self, sortedRoster(live), nil
}
