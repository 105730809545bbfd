package presence

import (
	"context"
	"time"
)

// BeatResult is what a beat answers: the stable id, whether this beat's
// state reached the store (false when throttled or when the store failed),
// why not, and the collisions the beating presence is a side of.
type BeatResult struct {
	PresenceID string
	Stored     bool
	Throttled  bool   // the state is held in memory and will be written
	Reason     string // why it was not stored, when it was not
	// Collisions lists the first NorthCap collisions the presence is a
	// side of; CollisionsTotal counts them all.
	Collisions      []Collision
	CollisionsTotal int
}

// Beat takes one beat: it folds the beat into the presence's state, writes
// the store at most once per throttle window (at once when the signal
// changed), and answers with the presence's own collisions. A store that
// cannot be written never fails the beat: Stored is false, Reason says why,
// and the failure is logged and counted. Only a beat that breaks the input
// rules is an error, and it changes nothing.
func (s *Service) Beat(ctx context.Context, b Beat) (BeatResult, error) {
	b, err := b.normalize(s.paths.canonical)
	if err != nil {
		return BeatResult{}, err
	}
	id := ID(b.AgentID, b.Brain)
	e := s.lockedEntry(id)
	s.seed(ctx, e, id, LegacyID(b.AgentID, b.Brain))
	s.fold(e, id)
	now := s.now()
	prevBeatMs := e.rec.LastBeatMs
	e.rec = b.apply(e.rec, now.UnixMilli(), s.ttl.Milliseconds(), s.classify)
	if wt := e.rec.WorktreePath(); b.Git != nil && wt != "" {
		if g, ok := b.Git(wt); ok {
			e.rec.setChanged(g)
		}
	}
	sig := signal(e.rec)
	res := BeatResult{PresenceID: id}
	// A clock that went back since the last beat is written through at
	// once: the stored copy, stamped ahead of every new beat, would
	// otherwise win over them at read until the window passed.
	clockBack := now.UnixMilli() < prevBeatMs
	if e.written && sig.same(e.signal) && !clockBack && withinThrottle(now, e.lastWrite, s.throttle) {
		e.dirty = true
		res.Throttled = true
		res.Reason = "throttled: held in memory, written within " + s.throttle.String()
		s.count(func(st *Stats) { st.Throttled++ })
	} else {
		res.Stored, res.Reason = s.write(ctx, e, now)
	}
	// Publish while still holding e.mu, so concurrent beats of one
	// presence publish in the order they applied: a reader never sees an
	// older state after a newer one.
	// The mirror and the projection change together: a reader holds both.
	rec := e.rec.Clone()
	s.mirror.mu.Lock()
	s.projection.mu.Lock()
	e.shown = rec
	s.projection.mu.Unlock()
	if res.Stored && s.mirror.cacheErr == nil {
		if s.mirror.cache == nil {
			s.mirror.cache = map[string]Record{}
		}
		s.mirror.cache[id] = rec
		s.ownChangeLocked(id, rec, false)
	}
	s.mirror.mu.Unlock()
	e.mu.Unlock()
	s.count(func(st *Stats) { st.Beats++ })
	s.notify()

	if rec.MutatingAt(now) { // a side without a mutation signal never collides
		res.Collisions, res.CollisionsTotal = s.collisionsOf(ctx, rec)
	}
	return res, nil
}

// entry returns this Hall's projection of a presence, new when unknown.
func (s *Service) entry(id string) *entry {
	s.projection.mu.Lock()
	defer s.projection.mu.Unlock()
	e, ok := s.projection.entries[id]
	if !ok {
		e = &entry{}
		s.projection.entries[id] = e
	}
	return e
}

// lockedEntry is entry, locked: never one the presence left while the
// caller waited for it (see leftLocked), so a beat after a leave starts a
// new projection.
func (s *Service) lockedEntry(id string) *entry {
	for {
		e := s.entry(id)
		e.mu.Lock()
		if !e.left.Load() {
			return e
		}
		e.mu.Unlock()
	}
}

// fold brings into e what the store holds of its presence (Merge): a newer
// state another writer put there (an m1nd runtime declaring on the same
// presence, another Hall) becomes the base the next beat applies to, so
// this Hall's next write keeps its declarations rather than reverting
// them; counters take the max. It reads the cache the store's watch keeps
// (a stale copy is left alone, as seed leaves it); the caller holds e.mu.
func (s *Service) fold(e *entry, id string) {
	s.mirror.mu.Lock()
	cur, ok := s.mirror.cache[id]
	s.mirror.mu.Unlock()
	if !ok || cur.Stale(s.now()) {
		return
	}
	newer := cur.LastBeatMs > e.rec.LastBeatMs
	e.rec = Merge(cur, e.rec)
	if newer {
		// The store holds these declarations already: only a change to
		// them forces a write.
		e.written, e.signal = true, signal(cur)
	}
}

// seed loads a new projection from the store, so first_seen_ms and
// query_count survive a Hall restart; the caller holds e.mu.
func (s *Service) seed(ctx context.Context, e *entry, id, legacy string) {
	if e.seeded {
		return
	}
	e.seeded = true
	if r, err := s.store.Get(ctx, id); err == nil && !r.Stale(s.now()) {
		e.rec = r
		e.written, e.signal = true, signal(r)
		return
	}
	// A session an older Hall recorded under its old id goes on under
	// m1nd's: first seen, its count and its declarations carry over (the
	// old record, not written again, lapses as any record does).
	if r, err := s.store.Get(ctx, legacy); err == nil && !r.Stale(s.now()) && r.PresenceID == legacy {
		r.PresenceID = id
		e.rec = r
	}
}

// write stores e.rec; the caller holds e.mu.
func (s *Service) write(ctx context.Context, e *entry, now time.Time) (bool, string) {
	if err := s.store.Upsert(ctx, e.rec); err != nil {
		e.dirty = true
		s.count(func(st *Stats) { st.WriteErrors++ })
		s.log.Warn("presence not stored", "presence_id", e.rec.PresenceID, "err", err)
		return false, "store unavailable: " + ErrorMessage(err)
	}
	e.written, e.dirty, e.lastWrite, e.signal = true, false, now, signal(e.rec)
	s.count(func(st *Stats) { st.Writes++ })
	return true, ""
}

// withinThrottle reports whether now is still inside the throttle window
// the write at last opened. A clock set back before last closes it: the
// window is measured forward only, or a jump back would hold writes for as
// long as the jump.
func withinThrottle(now, last time.Time, throttle time.Duration) bool {
	d := now.Sub(last)
	return d >= 0 && d < throttle
}

// count updates the counters under their own lock, a leaf: it may be
// called holding any other.
func (s *Service) count(f func(*Stats)) {
	s.statsMu.Lock()
	f(&s.stats)
	s.statsMu.Unlock()
}

// FlushDue writes every held state whose throttle window has passed (all of
// them when force is set), so a throttled beat is never lost: the last
// state reaches the store. It returns how many it wrote.
func (s *Service) FlushDue(ctx context.Context, force bool) int {
	s.projection.mu.Lock()
	var due []*entry
	for _, e := range s.projection.entries {
		due = append(due, e)
	}
	s.projection.mu.Unlock()
	n := 0
	for _, e := range due {
		e.mu.Lock()
		now := s.now()
		// A presence that left elsewhere (another Hall's leave, its file
		// removed) is not brought back by a beat this Hall held.
		if e.dirty && !e.left.Load() && (force || !withinThrottle(now, e.lastWrite, s.throttle)) && !e.rec.Stale(now) {
			s.fold(e, e.rec.PresenceID)
			if ok, _ := s.write(ctx, e, now); ok {
				n++
				rec := e.rec.Clone()
				s.mirror.mu.Lock()
				if s.mirror.cacheErr == nil && s.mirror.cache != nil {
					s.mirror.cache[rec.PresenceID] = rec
					s.ownChangeLocked(rec.PresenceID, rec, false)
				}
				s.mirror.mu.Unlock()
			}
		}
		e.mu.Unlock()
	}
	s.prune()
	if n > 0 {
		// A held state just reached the cache: readers must hear of it, as
		// the store's own echo of the write finds the cache already equal.
		s.notify()
	}
	return n
}

// prune forgets projections that went stale, so memory stays bounded by the
// live sessions. A stale state is never written (FlushDue skips it), so one
// still dirty, because the store refused it, is dropped all the same.
func (s *Service) prune() {
	now := s.now()
	s.projection.mu.Lock()
	defer s.projection.mu.Unlock()
	for id, e := range s.projection.entries {
		if e.mu.TryLock() {
			if e.rec.Stale(now) {
				delete(s.projection.entries, id)
			}
			e.mu.Unlock()
		}
	}
}

// Leave removes a presence at once: the explicit end of a session. Its
// subagents (the presences whose parent_presence_id is id) leave with it.
// It is an ENOTFOUND error when neither the store nor this Hall knows the
// id (its subagents still leave).
func (s *Service) Leave(ctx context.Context, id string) error {
	if err := CheckID(id); err != nil {
		return err
	}
	err := s.leave(ctx, id)
	for _, kid := range s.subagentsOf(ctx, id) {
		if kerr := s.leave(ctx, kid); kerr != nil && ErrorCode(kerr) != ENOTFOUND {
			s.log.Warn("subagent not left with its session", "presence_id", kid, "parent_presence_id", id, "err", kerr)
		}
	}
	return err
}

// subagentsOf returns the ids of the presences this Hall knows whose
// parent is id.
func (s *Service) subagentsOf(ctx context.Context, id string) []string {
	if !s.watching.Load() {
		_, _ = s.Refresh(ctx) // an unreadable store leaves what this Hall holds
	}
	s.mirror.mu.Lock()
	defer s.mirror.mu.Unlock()
	s.projection.mu.Lock()
	defer s.projection.mu.Unlock()
	var kids []string
	for kid, r := range s.mirror.cache {
		if r.ParentPresenceID == id {
			kids = append(kids, kid)
		}
	}
	for kid, e := range s.projection.entries {
		if _, cached := s.mirror.cache[kid]; !cached && e.shown.ParentPresenceID == id {
			kids = append(kids, kid)
		}
	}
	return kids
}

// leave removes one presence.
func (s *Service) leave(ctx context.Context, id string) error {
	s.projection.mu.Lock()
	e := s.projection.entries[id]
	delete(s.projection.entries, id)
	s.projection.mu.Unlock()
	if e != nil {
		e.left.Store(true) // a beat waiting for it starts a new projection
		e.mu.Lock()        // wait out a beat in flight
		e.dirty = false
		e.mu.Unlock()
	}
	err := s.store.Delete(ctx, id)
	if err != nil && !(ErrorCode(err) == ENOTFOUND && e != nil) {
		return err
	}
	s.mirror.mu.Lock()
	delete(s.mirror.cache, id)
	s.ownChangeLocked(id, Record{}, true)
	s.mirror.mu.Unlock()
	s.notify()
	return nil
}
