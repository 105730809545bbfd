package presence

import (
	"context"
	"time"
)

// reclaimBatch bounds the removals of one reclaim pass: the live loop
// does other work (store events, flushes) between two passes, and a pass
// holds the service's lock only to pick and to forget, never while the
// store removes.
const reclaimBatch = 256

// LapseGrace is how long past its ttl a record stays in the store before
// the live loop reclaims it: a writer whose clock runs a little behind
// this Hall's, or a beat in flight, is not taken for a lapsed one.
const LapseGrace = 2 * time.Second

// shrinkFloor is the least high-water mark at which a map is rebuilt once
// it holds under a quarter of it: Go's maps never give back the room they
// grew to, and iterating one costs its room, not its entries.
const shrinkFloor = 1024

// lapse is one record queued for reclaim: its id and the beat it was
// found lapsed at (a newer beat is never removed).
type lapse struct {
	id         string
	lastBeatMs int64
}

// ReclaimLapsed removes from the store up to reclaimBatch records that
// lapsed more than LapseGrace ago, each only while the store still holds
// the lapsed beat (LapseRemover), and forgets them: a burst of short
// sessions leaves neither files nor memory behind, and the live view's
// iteration costs what is live. It reports how many it removed and
// whether more are queued for the next pass. A store that is no
// LapseRemover (its engine expires records, as NATS does) reclaims
// nothing here; over any store, the maps a burst grew are rebuilt once it
// has gone.
func (s *Service) ReclaimLapsed(ctx context.Context) (removed int, more bool) {
	lr, removes := s.store.(LapseRemover)
	cutoff := s.now().Add(-LapseGrace).UnixMilli()
	s.mirror.mu.Lock()
	s.projection.mu.Lock()
	s.mirror.cacheHigh = max(s.mirror.cacheHigh, len(s.mirror.cache))
	s.projection.entriesHigh = max(s.projection.entriesHigh, len(s.projection.entries))
	if len(s.mirror.reclaimQ) == 0 && s.mirror.cacheErr == nil && removes {
		for id, r := range s.mirror.cache {
			if e, ok := s.projection.entries[id]; ok && e.shown.LastBeatMs >= r.LastBeatMs && e.shown.PresenceID != "" {
				r = e.shown
			}
			if r.ExpiresAtMs() < cutoff {
				s.mirror.reclaimQ = append(s.mirror.reclaimQ, lapse{id: id, lastBeatMs: r.LastBeatMs})
			}
		}
	}
	n := min(len(s.mirror.reclaimQ), reclaimBatch)
	batch := make([]lapse, n)
	copy(batch, s.mirror.reclaimQ)
	s.mirror.reclaimQ = s.mirror.reclaimQ[n:]
	if len(s.mirror.reclaimQ) == 0 {
		s.mirror.reclaimQ = nil // the backing array goes with the burst
	}
	more = len(s.mirror.reclaimQ) > 0
	s.projection.mu.Unlock()
	s.mirror.mu.Unlock()

	gone := make([]lapse, 0, n)
	for _, l := range batch {
		if ctx.Err() != nil {
			break
		}
		ok, err := lr.RemoveLapsed(ctx, l.id, l.lastBeatMs)
		switch {
		case err != nil:
			s.count(func(st *Stats) { st.ReclaimErrors++ })
			s.log.Debug("lapsed presence not reclaimed", "presence_id", l.id, "err", err)
		case ok:
			gone = append(gone, l)
		}
		// Not removed and no error: rewritten or already gone; the
		// store's watch tells the cache which.
	}

	s.mirror.mu.Lock()
	for _, l := range gone {
		if r, ok := s.mirror.cache[l.id]; ok && r.LastBeatMs <= l.lastBeatMs {
			delete(s.mirror.cache, l.id)
			delete(s.mirror.lapsed, l.id)
			s.ownChangeLocked(l.id, Record{}, true)
		}
	}
	s.count(func(st *Stats) { st.Reclaimed += int64(len(gone)) })
	if !more && shrinks(len(s.mirror.cache), s.mirror.cacheHigh) {
		s.mirror.cache, s.mirror.lapsed = rebuilt(s.mirror.cache), rebuilt(s.mirror.lapsed) // lapsed ids are cached ids
		s.mirror.cacheHigh = len(s.mirror.cache)
	}
	s.projection.mu.Lock()
	if !more && shrinks(len(s.projection.entries), s.projection.entriesHigh) {
		s.projection.entries = rebuilt(s.projection.entries)
		s.projection.entriesHigh = len(s.projection.entries)
	}
	s.projection.mu.Unlock()
	s.mirror.mu.Unlock()
	if len(gone) > 0 {
		s.notify() // a brain known only by lapsed records may be gone
	}
	return len(gone), more
}

// shrinks reports whether a map of n entries whose high-water mark is
// high is worth rebuilding: it holds under a quarter of a mark past
// shrinkFloor.
func shrinks(n, high int) bool { return high >= shrinkFloor && n < high/4 }

// rebuilt returns a copy of m sized to what it holds; nil stays nil.
func rebuilt[V any](m map[string]V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
