package presence

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hall-dev/hall/internal/presence/collision"
)

// DefaultThrottle is the least time between two store writes of one
// presence, unless its signal changed.
const DefaultThrottle = 5 * time.Second

// DefaultMaxCollisions is the most collisions a snapshot lists on one
// brain; the rest are counted (Snapshot.CollisionsTotal), not listed.
const DefaultMaxCollisions = 1000

// NorthCap is the most collisions a beat's answer and a presence's north
// list; the rest are counted.
const NorthCap = 10

// Config configures a Service. Zero values take the defaults noted.
type Config struct {
	Now        func() time.Time // the clock; time.Now when nil
	TTL        time.Duration    // ttl written into beaten records; DefaultTTL
	Throttle   time.Duration    // DefaultThrottle
	Brains     []string         // brains known before anyone beats, canonical
	Classifier *Classifier      // DefaultMutatingTools when nil
	Logger     *slog.Logger     // slog.Default() when nil
	// MaxCollisions is the most collisions a snapshot lists on one brain,
	// the first by the sides' ids; DefaultMaxCollisions when 0 or less.
	MaxCollisions int

	// ListingTime, when set, is told how long each whole listing of the
	// store took (a rescan, a watch that could not name what changed, a
	// read while not watching); RereadTime, each reread of the entries a
	// watch named. Neither is on the beat path.
	ListingTime, RereadTime Observer

	// Overlaps, when set, derives each snapshot's overlaps (issue #20):
	// the port package hall fills with git's answers. None when nil.
	Overlaps OverlapFinder
}

// Service is the Hall's one view of the presences: it reads the store,
// overlays the beats it took itself (so its projection stays exact between
// throttled writes), filters staleness at read, and derives collisions.
//
// Without Run, every read lists the store. While Run is active, reads come
// from a cache that the store's watch, a periodic rescan and this Hall's own
// writes keep current, and Changed signals each change.
type Service struct {
	// Set by NewService and read-only after: no lock.
	store    Store
	now      func() time.Time
	ttl      time.Duration
	throttle time.Duration
	brains   map[string]bool
	classify Classifier
	log      *slog.Logger
	maxColl  int

	listingTime, rereadTime Observer

	// The owned parts, each with its own lock (the order is in doc.go):
	// a field is named through its part (s.mirror.cache), so a call site
	// shows which lock guards it.
	mirror     mirror
	projection projection
	derivation derivation

	// watching: reads come from the mirror, which Run keeps current.
	watching atomic.Bool

	changed chan struct{}
	paths   pathCache     // canonical brains, caller roots and worktrees of recent beats; its own mu, a leaf
	version atomic.Uint64 // advanced by every notify

	statsMu sync.Mutex // a leaf: taken last, alone
	stats   Stats
}

// mirror is the Service's copy of the store: what the last listing and
// the rereads since found, with this Hall's own writes laid over it.
// mirror.mu guards every field but refreshMu; mirror.refreshMu is taken
// before mirror.mu, never after it.
type mirror struct {
	// refreshMu orders refreshes and rereads, so a listing that began
	// before a reread can never land after it and undo it.
	refreshMu sync.Mutex

	mu       sync.Mutex
	cache    map[string]Record // the store's records, stale included
	skipped  int
	repaired int // records the store brought inside the contract (Listing.Repaired)
	cacheErr error
	listed   bool // cache came from a listing (and rereads since), not an error
	// lapsed holds, by presence id, the last_beat_ms of a version found
	// stale: it stays gone though the clock is set back, until rewritten.
	lapsed map[string]int64
	// own holds this Hall's own cache changes (stored beats, flushes,
	// leaves) by the generation they were made in, until a store listing
	// begun after them makes them redundant: a listing begun before a
	// write must not undo it, or a beat flickers out of the roster (a
	// spurious leave on the live stream) until the store is read again.
	own    map[string]ownChange
	ownGen uint64
	// reclaimQ holds the lapsed records found by the last look and not yet
	// reclaimed (ReclaimLapsed); cacheHigh is the most the cache held
	// since its map was last rebuilt.
	reclaimQ  []lapse
	cacheHigh int
	scratch   []Record // Snapshot's live records before sorting
}

// projection is this Hall's own beats: one entry per presence it takes
// beats for, each with the exact current state and its copy for readers
// (entry.shown). projection.mu guards the map, entriesHigh and every
// entry's shown; an entry's own mu serializes that presence's beats.
type projection struct {
	mu          sync.Mutex
	entries     map[string]*entry // by presence id
	entriesHigh int               // the most entries held since the map was last rebuilt
}

// derivation is what snapshots derive from their own records, off the
// mirror's and the projection's locks: a derivation holds up no beat.
// derivation.collMu guards collisions, allCollisions and allCounts;
// derivation.overMu guards overlapSince; overlaps is set by NewService and
// read-only after; lastOverlaps is published whole (atomic, no lock).
type derivation struct {
	// collisions holds, by brain, the collisions the last Snapshot derived
	// and the live records they came from: the next one derives again
	// only the brains whose live records changed. collMu guards them.
	collMu        sync.Mutex
	collisions    map[string]*brainCollisions
	allCollisions []Collision      // every brain's listed, joined
	allCounts     *CollisionCounts // every brain's counts, joined
	// overlaps derives overlaps (nil: none); overlapSince holds when each
	// open one was first derived, under overMu, which a derivation holds
	// (not collMu: a beat's own collisions never wait for the overlaps of
	// every brain). lastOverlaps is the last snapshot's list, published
	// whole: a beat reads it without a lock.
	overlaps     OverlapFinder
	overMu       sync.Mutex
	overlapSince map[string]int64
	lastOverlaps atomic.Pointer[[]Overlap]
}

// entry is this Hall's projection of one presence it takes beats for.
type entry struct {
	mu        sync.Mutex // serializes beats (and their writes) of one presence
	seeded    bool       // rec was loaded from the store (or found absent)
	rec       Record     // the exact current state
	written   bool       // rec (or an earlier state) reached the store once
	lastWrite time.Time  // clock time of the last store write
	dirty     bool       // rec is newer than the store's copy
	signal    beatSignal // signal(rec) at the last write
	// left is set, and the entry forgotten, when the store's copy went
	// away by another's hand (see leftLocked): what it holds is never
	// written again.
	left atomic.Bool
	// shown is a copy of rec for readers. It is guarded by projection.mu,
	// not by mu, so a snapshot never reads rec while a beat rewrites it.
	shown Record
}

// Stats counts what the service did, for health and benchmarks.
type Stats struct {
	Beats        int64
	Writes       int64
	WriteErrors  int64
	Throttled    int64
	Refreshes    int64
	RefreshError int64
	Rereads      int64 // partial refreshes: only the entries a watch named
	// BusyReads counts reads the store refused for a moment (EBUSY: out
	// of file descriptors): the last good roster was kept and the read
	// retried.
	BusyReads int64
	// Reclaimed counts lapsed records the live loop removed from the
	// store while running; ReclaimErrors, the removals that failed (and
	// are tried again on a later pass).
	Reclaimed     int64
	ReclaimErrors int64
}

// NewService returns a Service over store.
func NewService(store Store, cfg Config) *Service {
	s := &Service{
		store:      store,
		now:        cfg.Now,
		ttl:        cfg.TTL,
		throttle:   cfg.Throttle,
		brains:     map[string]bool{},
		log:        cfg.Logger,
		maxColl:    cfg.MaxCollisions,
		derivation: derivation{overlaps: cfg.Overlaps},
		projection: projection{entries: map[string]*entry{}},
		mirror:     mirror{lapsed: map[string]int64{}},
		changed:    make(chan struct{}, 1),

		listingTime: cfg.ListingTime,
		rereadTime:  cfg.RereadTime,
	}
	if s.now == nil {
		s.now = time.Now
	}
	// The path cache ages on the monotonic clock: a jump of the wall
	// clock must not keep an answer forever.
	s.paths.now = time.Now
	if s.ttl <= 0 {
		s.ttl = DefaultTTL
	}
	if s.throttle <= 0 {
		s.throttle = DefaultThrottle
	}
	if s.maxColl <= 0 {
		s.maxColl = DefaultMaxCollisions
	}
	if cfg.Classifier != nil {
		s.classify = *cfg.Classifier
	} else {
		s.classify = NewClassifier(DefaultMutatingTools)
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	for _, b := range cfg.Brains {
		s.brains[b] = true
	}
	return s
}

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.now() }

// Changed delivers a token after each change the service knows of: a beat
// written or projected, a leave, a store refresh that saw new content. Many
// changes between two reads coalesce into one token.
func (s *Service) Changed() <-chan struct{} { return s.changed }

func (s *Service) notify() {
	s.version.Add(1)
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// Version advances with every change the service signals. A reader that
// saw version v and a Snapshot taken after it knows nothing it was told of
// has happened since while Version still returns v; ttl expiries are the
// reader's to time (Snapshot.NextExpiryMs).
func (s *Service) Version() uint64 { return s.version.Load() }

// Stats returns a copy of the counters.
func (s *Service) Stats() Stats {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return s.stats
}

// Refresh lists the store into the cache. A store that cannot be read
// empties the cache and records the error: the roster is dropped whole,
// never half-shown. A store busy for a moment (EBUSY: out of file
// descriptors) is not an unreadable one: the cache keeps the last good
// roster, the read is counted (Stats.BusyReads) and the error returned,
// for the caller to try again. It reports whether anything the cache held
// changed.
func (s *Service) Refresh(ctx context.Context) (bool, error) {
	s.mirror.refreshMu.Lock()
	defer s.mirror.refreshMu.Unlock()
	defer ObserveSince(s.listingTime, time.Now())
	s.mirror.mu.Lock()
	from := s.mirror.ownGen
	s.mirror.mu.Unlock()
	l, err := s.store.List(ctx)
	s.mirror.mu.Lock()
	defer s.mirror.mu.Unlock()
	s.count(func(st *Stats) { st.Refreshes++ })
	if err != nil && ErrorCode(err) == EBUSY && s.mirror.listed {
		s.count(func(st *Stats) { st.BusyReads++ })
		return false, err
	}
	if err != nil {
		s.count(func(st *Stats) { st.RefreshError++ })
		changed := s.mirror.cacheErr == nil || len(s.mirror.cache) > 0
		s.mirror.cache, s.mirror.skipped, s.mirror.repaired, s.mirror.cacheErr, s.mirror.listed = nil, 0, 0, err, false
		return changed, err
	}
	next := make(map[string]Record, len(l.Records))
	for _, r := range l.Records {
		if old, ok := next[r.PresenceID]; !ok || r.LastBeatMs > old.LastBeatMs {
			next[r.PresenceID] = r
		}
	}
	for id, c := range s.mirror.own {
		switch {
		case c.gen <= from: // made before the listing began: it shows it
			delete(s.mirror.own, id)
		case c.gone:
			delete(next, id)
		default:
			if r, ok := next[id]; !ok || r.LastBeatMs < c.rec.LastBeatMs {
				next[id] = c.rec
			}
		}
	}
	if s.mirror.cacheErr == nil && s.mirror.listed {
		var left []string
		for id := range s.mirror.cache {
			if _, ok := next[id]; !ok {
				left = append(left, id)
			}
		}
		s.leftLocked(left...)
	}
	// The skip count is part of every snapshot (health shows it): a
	// change to it alone is a change readers must hear of.
	changed := s.mirror.cacheErr != nil || s.mirror.skipped != l.Skipped || s.mirror.repaired != l.Repaired || !sameRecords(s.mirror.cache, next)
	s.mirror.cache, s.mirror.skipped, s.mirror.repaired, s.mirror.cacheErr, s.mirror.listed = next, l.Skipped, l.Repaired, nil, true
	for id := range s.mirror.lapsed {
		if _, ok := next[id]; !ok {
			delete(s.mirror.lapsed, id)
		}
	}
	return changed, nil
}

// rereadMin is the most keys a reread takes however small the roster; past
// it, and past a quarter of the roster, a whole listing costs no more.
const rereadMin = 64

// reread brings the cache up to date with the store entries of keys only,
// as a KeyWatcher named them: the same result as Refresh for those
// entries, at the cost of reading them alone. Whenever the store cannot
// answer so (no KeyWatcher, nothing listed yet, the store unreadable, too
// many keys) it refreshes whole. It reports whether the cache changed, and
// the keys to reread a moment later (Delta.Unsettled).
func (s *Service) reread(ctx context.Context, keys []string) (changed bool, again []string, err error) {
	kw, ok := s.store.(KeyWatcher)
	s.mirror.refreshMu.Lock()
	s.mirror.mu.Lock()
	from, listed, n := s.mirror.ownGen, s.mirror.listed, len(s.mirror.cache)
	s.mirror.mu.Unlock()
	if !ok || !listed || len(keys) > max(rereadMin, n/4) {
		s.mirror.refreshMu.Unlock()
		changed, err = s.Refresh(ctx)
		return changed, nil, err
	}
	start := time.Now()
	d, err := kw.Reread(ctx, keys)
	if err != nil {
		s.mirror.refreshMu.Unlock()
		if ctx.Err() != nil {
			return false, nil, err
		}
		changed, err = s.Refresh(ctx)
		return changed, nil, err
	}
	defer s.mirror.refreshMu.Unlock()
	defer ObserveSince(s.rereadTime, start)
	s.mirror.mu.Lock()
	defer s.mirror.mu.Unlock()
	s.count(func(st *Stats) { st.Rereads++ })
	for id, r := range d.Touched {
		// This Hall's own changes hold as in Refresh, for the ids the
		// reread saw: one made after it began wins over what it read.
		if c, ok := s.mirror.own[id]; ok {
			switch {
			case c.gen <= from:
				delete(s.mirror.own, id)
			case c.gone:
				r = nil
			case r == nil || r.LastBeatMs < c.rec.LastBeatMs:
				r = &c.rec
			}
		}
		old, had := s.mirror.cache[id]
		switch {
		case r == nil:
			if had {
				delete(s.mirror.cache, id)
				s.leftLocked(id)
				changed = true
			}
			delete(s.mirror.lapsed, id)
		case !had || !old.Equal(r):
			s.mirror.cache[id] = *r
			changed = true
		}
	}
	changed = changed || s.mirror.skipped != d.Skipped || s.mirror.repaired != d.Repaired
	s.mirror.skipped, s.mirror.repaired = d.Skipped, d.Repaired
	return changed, d.Unsettled, nil
}

// leftLocked forgets this Hall's projection of a presence whose stored
// copy a listing or reread of a readable store no longer finds, though
// this Hall did not remove it: it left elsewhere (a leave through another
// Hall, its file removed). A beat held by the throttle is dropped, never
// written to bring the presence back; the presence's next beat is a new
// one, written at once. (A store that cannot be read drops the cache
// whole and says nothing of who left: held beats survive an outage.) The
// caller holds mirror.mu; it takes projection.mu.
func (s *Service) leftLocked(ids ...string) {
	if len(ids) == 0 {
		return
	}
	s.projection.mu.Lock()
	defer s.projection.mu.Unlock()
	for _, id := range ids {
		if e, ok := s.projection.entries[id]; ok {
			e.left.Store(true)
			delete(s.projection.entries, id)
		}
	}
}

// ownChange is one change this Hall made to the store and its cache.
type ownChange struct {
	gen  uint64
	rec  Record
	gone bool // a leave
}

// ownChangeLocked records a change this Hall just made to the store and
// the cache; the caller holds mirror.mu.
func (s *Service) ownChangeLocked(id string, rec Record, gone bool) {
	s.mirror.ownGen++
	if s.mirror.own == nil {
		s.mirror.own = map[string]ownChange{}
	}
	s.mirror.own[id] = ownChange{gen: s.mirror.ownGen, rec: rec, gone: gone}
}

// Snapshot returns the live roster. When the store cannot be read it returns
// an empty snapshot (still with the configured brains) and the error.
func (s *Service) Snapshot(ctx context.Context) (Snapshot, error) {
	if !s.watching.Load() {
		if _, err := s.Refresh(ctx); err != nil && ctx.Err() != nil {
			return Snapshot{}, err
		}
	}
	now := s.now()
	s.mirror.mu.Lock()
	snap := Snapshot{AtMs: now.UnixMilli(), Skipped: s.mirror.skipped, Repaired: s.mirror.repaired, brains: make(map[string]bool, len(s.brains))}
	for b := range s.brains {
		snap.brains[b] = true
	}
	if s.mirror.cacheErr != nil {
		err := s.mirror.cacheErr
		s.mirror.mu.Unlock()
		return snap, err
	}
	for _, r := range s.mirror.cache {
		snap.brains[r.Brain] = true
	}
	s.projection.mu.Lock()
	s.mirror.scratch = s.appendLiveLocked(s.mirror.scratch[:0], now, "")
	s.projection.mu.Unlock()
	snap.Live = sortedRoster(s.mirror.scratch)
	clear(s.mirror.scratch) // hold no records past their snapshot
	s.mirror.mu.Unlock()
	// The derivation reads only the snapshot's own records: beats go on
	// meanwhile, under the mirror's and the projection's locks, and wait
	// for none of it.
	s.derivation.collMu.Lock()
	snap.Collisions, snap.Counts = s.collisionsLocked(snap.Live, now)
	s.derivation.collMu.Unlock()
	s.derivation.overMu.Lock()
	s.deriveOverlapsLocked(ctx, &snap)
	s.derivation.overMu.Unlock()
	snap.CollisionsTotal = snap.Counts.Total
	return snap, nil
}

// rosterKey is a record's newest-first key and where the record is:
// sorting these moves two words per swap, not whole records, and no
// pointer (a pointer moved while the collector runs costs a barrier).
type rosterKey struct {
	beat int64
	at   int
}

// sortedRoster returns rs in roster order (SortRoster's), in a new slice.
func sortedRoster(rs []Record) []Record {
	keys := make([]rosterKey, len(rs))
	for i := range rs {
		keys[i] = rosterKey{beat: rs[i].LastBeatMs, at: i}
	}
	slices.SortFunc(keys, func(a, b rosterKey) int {
		if a.beat != b.beat {
			return cmp.Compare(b.beat, a.beat)
		}
		ra, rb := &rs[a.at], &rs[b.at]
		if ra.AgentID != rb.AgentID {
			return strings.Compare(ra.AgentID, rb.AgentID)
		}
		return strings.Compare(ra.PresenceID, rb.PresenceID)
	})
	out := make([]Record, len(rs))
	for k, key := range keys {
		out[k] = rs[key.at]
	}
	return out
}

// brainCollisions is what CollisionsWithin found on one brain, and the
// live mutating records of the brain it was given (by id): the only
// records that can take part in a collision.
type brainCollisions struct {
	live       map[string]Record
	collisions []Collision  // listed: the first MaxCollisions
	counts     *BrainCounts // nil when the brain has none
}

// holds reports whether the records of live at idx are exactly the records
// bc was derived from.
func (bc *brainCollisions) holds(live []Record, idx []int) bool {
	if len(idx) != len(bc.live) {
		return false
	}
	for _, i := range idx {
		if old, ok := bc.live[live[i].PresenceID]; !ok || !old.Equal(&live[i]) {
			return false
		}
	}
	return true
}

// collisionsLocked returns the listed collisions of live and their counts
// (CollisionsWithin on each brain, bounded at MaxCollisions), deriving
// again only the brains whose live mutating records changed since the last
// call (a beat, a write, a leave, a stale-out). CollisionsWithin orders by
// brain first and a collision never spans two brains, so the brains'
// answers joined in brain order are the whole answer. When no brain
// changed it returns the last answer itself: snapshots are read-only. The
// caller holds derivation.collMu.
//
// A brain's records are its live records mutating at now: an observed
// mutation that lapsed (LevelAt) takes its record out, so the brain is
// derived again, as when a record changes.
func (s *Service) collisionsLocked(live []Record, now time.Time) ([]Collision, *CollisionCounts) {
	byBrain := make(map[string][]int, len(s.derivation.collisions))
	for i := range live {
		if live[i].MutatingAt(now) { // a side without a mutation signal never collides
			byBrain[live[i].Brain] = append(byBrain[live[i].Brain], i)
		}
	}
	brains := make([]string, 0, len(byBrain))
	for b := range byBrain {
		brains = append(brains, b)
	}
	slices.Sort(brains)
	next := make(map[string]*brainCollisions, len(byBrain))
	changed := len(byBrain) != len(s.derivation.collisions) || s.derivation.allCounts == nil
	listed := 0
	for _, b := range brains {
		idx := byBrain[b]
		bc := s.derivation.collisions[b]
		if bc == nil || !bc.holds(live, idx) {
			rs := make([]Record, len(idx))
			bc = &brainCollisions{live: make(map[string]Record, len(idx))}
			for k, i := range idx {
				rs[k] = live[i]
				bc.live[live[i].PresenceID] = live[i]
			}
			var tally CollisionTally
			bc.collisions, tally = CollisionsWithin(b, rs, now, CollisionBound{Max: s.maxColl, Degrees: true})
			if tally.Pairs > 0 {
				bc.counts = &BrainCounts{Total: tally.Pairs, ByPresence: map[string]int{}}
				for k, d := range tally.Degrees {
					if d > 0 {
						bc.counts.ByPresence[rs[k].PresenceID] += int(d)
					}
				}
				// Counts equal to the last keep the last's pointer.
				if prev := s.derivation.allCounts.Brain(b); prev != nil && prev.Total == bc.counts.Total && maps.Equal(prev.ByPresence, bc.counts.ByPresence) {
					bc.counts = prev
				}
			}
			changed = true
		}
		next[b] = bc
		listed += len(bc.collisions)
	}
	s.derivation.collisions = next
	if !changed {
		return s.derivation.allCollisions, s.derivation.allCounts
	}
	var out []Collision
	counts := &CollisionCounts{Brains: map[string]*BrainCounts{}}
	if listed > 0 {
		out = make([]Collision, 0, listed)
	}
	same := s.derivation.allCounts != nil
	for _, b := range brains {
		bc := next[b]
		out = append(out, bc.collisions...)
		if bc.counts != nil {
			counts.Total += bc.counts.Total
			counts.Brains[b] = bc.counts
		}
		same = same && s.derivation.allCounts.Brain(b) == bc.counts
	}
	// The same counts keep the same object: a reader that compares
	// pointers (the stream hub) then knows at once that none changed.
	if same && len(s.derivation.allCounts.Brains) == len(counts.Brains) {
		counts = s.derivation.allCounts
	}
	s.derivation.allCollisions, s.derivation.allCounts = out, counts
	return out, counts
}

// appendLiveLocked appends the live records on brain ("" for all) to
// live, each the newer of the store's copy and this Hall's projection; the
// caller holds mirror.mu and projection.mu.
func (s *Service) appendLiveLocked(live []Record, now time.Time, brain string) []Record {
	s.eachLiveLocked(now, brain, func(r Record) {
		live = append(live, r) // no copy of the working set: records are read-only
	})
	return live
}

// eachLiveLocked calls fn with each live record on brain ("" for all),
// each the newer of the store's copy and this Hall's projection; the
// caller holds mirror.mu and projection.mu.
func (s *Service) eachLiveLocked(now time.Time, brain string, fn func(r Record)) {
	for id, r := range s.mirror.cache {
		if brain != "" && r.Brain != brain {
			continue
		}
		if e, ok := s.projection.entries[id]; ok && e.shown.LastBeatMs >= r.LastBeatMs && e.shown.PresenceID != "" {
			r = e.shown
		}
		// A version once found stale never comes back, though the clock
		// goes back or catches up on a beat stamped too far ahead: a
		// presence that stopped does not rise again.
		if lb, ok := s.mirror.lapsed[id]; ok && lb == r.LastBeatMs {
			continue
		}
		if r.Stale(now) {
			s.mirror.lapsed[id] = r.LastBeatMs
			continue
		}
		fn(r)
	}
}

// nextExpiryMs is the first millisecond at which a live record goes stale
// or its observed mutation lapses (its collisions may end then), 0 when
// none is live: Snapshot.NextExpiryMs without building a snapshot.
func (s *Service) nextExpiryMs(now time.Time) int64 {
	s.mirror.mu.Lock()
	defer s.mirror.mu.Unlock()
	s.projection.mu.Lock()
	defer s.projection.mu.Unlock()
	var next int64
	for id, r := range s.mirror.cache {
		if e, ok := s.projection.entries[id]; ok && e.shown.LastBeatMs >= r.LastBeatMs && e.shown.PresenceID != "" {
			r = e.shown
		}
		if !r.Stale(now) {
			next = r.nextChangeMs(now.UnixMilli(), next)
		}
	}
	return next
}

// nextChangeMs is the earlier of next (0: none yet) and the first
// millisecond after nowMs at which the live record changes by itself: it
// goes stale, or its observed mutation lapses before that.
func (r *Record) nextChangeMs(nowMs, next int64) int64 {
	e := r.ExpiresAtMs() + 1
	if l := r.SignalLapsesAtMs(); l > nowMs && l < e {
		e = l
	}
	if next == 0 || e < next {
		return e
	}
	return next
}

// collisionsOf returns the first NorthCap live collisions the record self
// is a side of, and how many it has in all: what a beat answers with. One
// pass compares self with each live record of its brain, straight off the
// cache: the cost grows with that brain's roster, not with its pairs nor
// with the other brains, and only the records kept are copied.
func (s *Service) collisionsOf(ctx context.Context, self Record) ([]Collision, int) {
	if !s.watching.Load() {
		if _, err := s.Refresh(ctx); err != nil {
			return nil, 0
		}
	}
	const selfHandle = -1
	now := s.now()
	f := collision.NewFocus(selfHandle, self.party(now), NorthCap)
	defer f.Release()
	kept := map[int]Record{}
	handle := 0
	s.mirror.mu.Lock()
	s.projection.mu.Lock()
	s.eachLiveLocked(now, self.Brain, func(r Record) {
		if r.PresenceID == self.PresenceID {
			return
		}
		if _, keep := f.Offer(handle, r.party(now)); keep {
			kept[handle] = r
		}
		handle++
	})
	s.projection.mu.Unlock()
	s.mirror.mu.Unlock()
	var out []Collision
	for _, p := range f.Kept() {
		other := p[0]
		if other == selfHandle {
			other = p[1]
		}
		if c, ok := CollisionBetween(self, kept[other], now); ok {
			out = append(out, c)
		}
	}
	return out, f.Pairs()
}

// SortRoster orders records newest beat first, then by agent_id, then by
// presence_id, so every surface shows one order.
func SortRoster(rs []Record) { copy(rs, sortedRoster(rs)) }

func sameRecords(a, b map[string]Record) bool {
	if len(a) != len(b) {
		return false
	}
	for id, ra := range a {
		rb, ok := b[id]
		if !ok || !ra.Equal(&rb) {
			return false
		}
	}
	return true
}

// Mutating reports whether this Hall counts running tool as a mutation:
// what a hook asks about before the tool runs.
func (s *Service) Mutating(tool string) bool { return s.classify.Mutating(tool) }
