package presence

import "context"

// Hooks into the Service's internals for its tests, which live in the
// external package presence_test (they run on the real sidecar store,
// internal/dirstore, which imports this package). Compiled into the test
// binary only.

// CacheRecord puts r in the watched cache, as a reread that read it would.
func (s *Service) CacheRecord(r Record) {
	s.mirror.mu.Lock()
	s.mirror.cache[r.PresenceID] = r
	s.mirror.mu.Unlock()
}

// CachedRecord is the watched cache's copy of id.
func (s *Service) CachedRecord(id string) (Record, bool) {
	s.mirror.mu.Lock()
	defer s.mirror.mu.Unlock()
	r, ok := s.mirror.cache[id]
	return r, ok
}

// HoldsOwn reports whether an own change to id is held against rereads.
func (s *Service) HoldsOwn(id string) bool {
	s.mirror.mu.Lock()
	defer s.mirror.mu.Unlock()
	_, ok := s.mirror.own[id]
	return ok
}

// Projections counts the beat projections the Service keeps.
func (s *Service) Projections() int {
	s.projection.mu.Lock()
	defer s.projection.mu.Unlock()
	return len(s.projection.entries)
}

// ReadFromCache makes reads come from the watched cache, as under Run.
func (s *Service) ReadFromCache() {
	s.watching.Store(true)
}

// RereadKeys is the live loop's reread of the entries keys name.
func (s *Service) RereadKeys(ctx context.Context, keys []string) error {
	_, _, err := s.reread(ctx, keys)
	return err
}

// CachedCount is how many records the watched cache holds, lapsed ones
// included: what an iteration of the live view walks.
func (s *Service) CachedCount() int {
	s.mirror.mu.Lock()
	defer s.mirror.mu.Unlock()
	return len(s.mirror.cache)
}

// ReclaimBatch is the most records one reclaim pass removes.
const ReclaimBatch = reclaimBatch
