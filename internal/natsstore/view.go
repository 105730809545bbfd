package natsstore

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hall-dev/hall/internal/presence"
)

// view is the bucket as the running watch sees it, so List is a map copy
// rather than a read of the whole bucket on every change: the live loop
// lists after every event, and every Hall would otherwise re-read every
// record on every beat of any Hall.
//
// Slots are ordered by revision: a write this store made applies at once
// (so its own List never lags its own Upsert), and a late or repeated
// event with an older revision changes nothing.
type view struct {
	slots     map[string]slot
	lastPrune time.Time
	high      int // the most slots held since the map was last rebuilt
}

// shrinkFloor is the least high-water mark at which the slots are rebuilt
// once they hold under a quarter of it: a Go map keeps the room it grew
// to, and a listing walks the room, so a burst of one-beat sessions would
// slow every listing after it.
const shrinkFloor = 1024

type slot struct {
	rev uint64
	rec presence.Record
	bad bool // the value does not decode: counted as skipped
	// repaired: the record was brought inside the contract
	// (presence.DecodeRecordRepaired), counted.
	repaired bool
	gone     bool      // deleted or expired: a tombstone
	goneAt   time.Time // when the tombstone was set
}

// tombstoneAge is how long a tombstone is kept: long enough for any write
// this store had in flight before a delete to be ordered behind it.
const tombstoneAge = 30 * time.Second

func newView() *view { return &view{slots: map[string]slot{}} }

// apply records one revision of a key and reports whether the view
// changed. Keys that are not presence ids are not ours and are ignored.
func (v *view) apply(key string, next slot) bool {
	if !presence.ValidID(key) {
		return false
	}
	old, had := v.slots[key]
	if had && old.rev >= next.rev {
		return false
	}
	if next.gone {
		next.goneAt = time.Now()
	}
	v.slots[key] = next
	v.high = max(v.high, len(v.slots))
	v.prune()
	return !(had && old.gone && next.gone) && !(!had && next.gone)
}

// prune forgets old tombstones, so memory stays bounded by the live keys.
func (v *view) prune() {
	now := time.Now()
	if now.Sub(v.lastPrune) < tombstoneAge {
		return
	}
	v.lastPrune = now
	for k, s := range v.slots {
		if s.gone && now.Sub(s.goneAt) > tombstoneAge {
			delete(v.slots, k)
		}
	}
	if v.high >= shrinkFloor && len(v.slots) < v.high/4 {
		slots := make(map[string]slot, len(v.slots))
		for k, s := range v.slots {
			slots[k] = s
		}
		v.slots, v.high = slots, len(slots)
	}
}

func (v *view) listing() presence.Listing {
	l := presence.Listing{Records: make([]presence.Record, 0, len(v.slots))}
	for _, s := range v.slots {
		switch {
		case s.gone:
		case s.bad:
			l.Skipped++
		default:
			l.Records = append(l.Records, s.rec) // read-only, as every Record handed on
			if s.repaired {
				l.Repaired++
			}
		}
	}
	return l
}

// slotOf turns one watched entry into a slot.
func slotOf(e jetstream.KeyValueEntry) slot {
	if e.Operation() != jetstream.KeyValuePut {
		return slot{rev: e.Revision(), gone: true}
	}
	r, repaired, err := presence.DecodeRecordRepaired(e.Value())
	if err != nil || r.PresenceID != e.Key() {
		return slot{rev: e.Revision(), bad: true}
	}
	return slot{rev: e.Revision(), rec: r, repaired: repaired > 0}
}

// viewPut applies this store's own successful write to the view.
// The watch will bring the same revision and find nothing new, so this is
// where the change is announced.
func (s *Store) viewPut(id string, rev uint64, r presence.Record) {
	s.mu.Lock()
	changed := s.view != nil && s.view.apply(id, slot{rev: rev, rec: r.Clone()})
	if changed {
		// Not delivered by the watch yet (or the view would hold rev).
		s.expectEcho(rev)
	}
	notify := s.notify
	s.mu.Unlock()
	if changed && notify != nil {
		notify()
	}
}

// viewGone applies this store's own delete to the view. The purge's own
// revision is unknown (Purge returns none), so the tombstone takes the
// revision that was deleted: anything at or before it stays deleted, and
// the watched marker, newer, replaces the tombstone.
func (s *Store) viewGone(id string, deletedRev uint64) {
	s.mu.Lock()
	if s.view == nil {
		s.mu.Unlock()
		return
	}
	old, ok := s.view.slots[id]
	if ok && old.rev > deletedRev {
		s.mu.Unlock()
		return
	}
	s.view.slots[id] = slot{rev: deletedRev, gone: true, goneAt: time.Now()}
	notify := s.notify
	s.mu.Unlock()
	if ok && !old.gone && notify != nil {
		notify()
	}
}

// viewCurrent is the view's state of one key, for the first attempt of an
// upsert. It answers only for a live, decodable slot of a healthy view.
func (s *Store) viewCurrent(id string) (current, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.viewHealthy() {
		return current{}, false
	}
	sl, ok := s.view.slots[id]
	if !ok || sl.gone || sl.bad {
		return current{}, false
	}
	data, err := encode(sl.rec)
	if err != nil {
		return current{}, false
	}
	return current{found: true, ok: true, rev: sl.rev, rec: sl.rec.Clone(), data: data, fromView: true}, true
}

// viewHealthy reports whether the view may be served: a watch loaded it,
// and the connection is up or dropped less than OutageGrace ago. The
// caller holds s.mu.
func (s *Store) viewHealthy() bool {
	if s.view == nil {
		return false
	}
	return s.disconnectedAt.IsZero() || time.Since(s.disconnectedAt) <= s.opts.OutageGrace
}

// List returns every record in the bucket. While a watch is loaded and the
// connection healthy it answers from the watched view, at the cost of a
// map copy; otherwise it reads the whole bucket from the server. Values
// that do not decode, or whose presence_id is not their key, are skipped
// and counted; keys that are not presence ids are not ours and ignored.
func (s *Store) List(ctx context.Context) (presence.Listing, error) {
	s.mu.Lock()
	if s.viewHealthy() {
		l := s.view.listing()
		s.mu.Unlock()
		return l, nil
	}
	s.mu.Unlock()

	ctx, cancel := context.WithTimeoutCause(ctx, listTimeouts*s.opts.OpTimeout, errOpTimeout)
	defer cancel()
	kv, err := s.bucket(ctx)
	if err != nil {
		return presence.Listing{}, err
	}
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return presence.Listing{}, s.unavailable(ctx, err, "list bucket %s", s.opts.Bucket)
	}
	defer s.stopWatcher(w)
	v := newView()
	for {
		select {
		case <-ctx.Done():
			return presence.Listing{}, s.unavailable(ctx, ctx.Err(), "list bucket %s", s.opts.Bucket)
		case e, ok := <-w.Updates():
			if !ok {
				return presence.Listing{}, presence.Errorf(presence.EUNREACHABLE, "nats: list bucket %s: watch closed", s.opts.Bucket)
			}
			if e == nil { // every current value delivered
				return v.listing(), nil
			}
			v.apply(e.Key(), slotOf(e))
		}
	}
}

// echoTimeout is how long a write of this store may go unseen by its own
// watch before the watch is taken for stalled (its consumer lost with a
// cluster node) and replaced. An echo takes milliseconds.
const echoTimeout = 3 * time.Second

// expectEcho notes a write at rev that the watch should deliver; the
// caller holds s.mu.
func (s *Store) expectEcho(rev uint64) {
	if s.echoSince.IsZero() {
		s.echoSince = time.Now()
	}
	s.echoRev = max(s.echoRev, rev)
}

// echoed notes that the watch delivered rev; the caller holds s.mu.
func (s *Store) echoed(rev uint64) {
	if rev >= s.echoRev {
		s.echoRev, s.echoSince = 0, time.Time{}
	}
}

func (s *Store) echoOverdue() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.echoSince.IsZero() && time.Since(s.echoSince) > echoTimeout
}

// errRewatch ends one watch so Watch opens a fresh one at once.
var errRewatch = errors.New("nats store: rewatch")

// Watch follows the bucket until ctx ends: it loads every current value
// into the view, calls notify, then calls notify after every put, delete,
// purge and expiry marker. After a reconnect it reloads the view from a
// fresh watch and calls notify, so the live loop re-reads fresh data
// rather than what it saw before the outage; when the connection stays
// down past OutageGrace it calls notify once more, so the live loop finds
// the store unavailable and says so. It also rewatches when the bucket's
// stream elects a new leader, or when its own write does not come back
// through the watch within echoTimeout: both mean the watch's consumer
// may have died with a cluster node, which the client alone notices only
// after tens of seconds. It returns an error when the watch cannot start
// or stays broken past OutageGrace; the caller retries.
func (s *Store) Watch(ctx context.Context, notify func()) error {
	s.mu.Lock()
	if s.watching {
		s.mu.Unlock()
		return errors.New("nats store: a watch is already running")
	}
	s.watching, s.notify = true, notify
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.watching, s.view, s.notify = false, nil, nil
		s.mu.Unlock()
	}()
	var brokenSince time.Time
	for {
		loaded, err := s.watchOnce(ctx, notify)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, errRewatch):
			brokenSince = time.Time{}
			continue
		}
		// The watch broke, or could not start. A cluster that lost a
		// node answers again once it elected a new stream leader, within
		// seconds: keep serving the last view and retry for OutageGrace
		// before giving up (and dropping the view, so List tells the
		// truth).
		now := time.Now()
		if loaded || brokenSince.IsZero() {
			brokenSince = now
		}
		if s.viewLoaded() && now.Sub(brokenSince) < s.opts.OutageGrace && !s.nc.IsClosed() {
			s.log.Debug("nats watch broke; retrying", "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(watchRetry):
				continue
			}
		}
		return err
	}
}

// watchRetry is the pause between two attempts to restart a broken watch
// while the last view is still served.
const watchRetry = 200 * time.Millisecond

func (s *Store) viewLoaded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view != nil
}

// watchOnce runs one key watch; loaded reports whether it got as far as
// loading the view.
func (s *Store) watchOnce(ctx context.Context, notify func()) (loaded bool, err error) {
	kv, err := s.bucket(ctx)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	gen := s.connGen
	s.echoRev, s.echoSince = 0, time.Time{} // a fresh watch starts square
	s.mu.Unlock()
	// A new leader for the bucket's stream means a node was lost, and this
	// watch's consumer may have been on it: rewatch rather than wait for
	// the client to notice missing heartbeats (tens of seconds).
	elected := make(chan struct{}, 1)
	if sub, err := s.nc.Subscribe("$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.KV_"+s.opts.Bucket, func(*nats.Msg) {
		select {
		case elected <- struct{}{}:
		default:
		}
	}); err == nil {
		defer sub.Unsubscribe()
	}
	w, err := kv.WatchAll(ctx)
	if err != nil {
		return false, s.unavailable(ctx, err, "watch bucket %s", s.opts.Bucket)
	}
	defer s.stopWatcher(w)
	echoCheck := time.NewTicker(echoTimeout / 2)
	defer echoCheck.Stop()

	loading := newView() // filled until the watch says all values came
	var outage <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return loading == nil, nil
		case <-s.connEvents:
			s.mu.Lock()
			reconnected, down := s.connGen != gen, !s.disconnectedAt.IsZero()
			s.mu.Unlock()
			switch {
			case down:
				outage = time.After(s.opts.OutageGrace)
			case reconnected:
				return loading == nil, errRewatch
			}
		case <-outage:
			outage = nil
			notify() // past the grace, List reports the outage
		case <-elected:
			s.log.Info("nats bucket stream elected a new leader; rewatching", "bucket", s.opts.Bucket)
			return loading == nil, errRewatch
		case <-echoCheck.C:
			if s.echoOverdue() {
				s.log.Warn("nats watch silent on this store's own write; rewatching", "bucket", s.opts.Bucket)
				return loading == nil, errRewatch
			}
		case e, ok := <-w.Updates():
			if !ok {
				return loading == nil, presence.Errorf(presence.EUNREACHABLE, "nats: watch of bucket %s closed", s.opts.Bucket)
			}
			if loading != nil {
				if e != nil {
					loading.apply(e.Key(), slotOf(e))
					continue
				}
				s.mu.Lock()
				s.view = loading
				s.mu.Unlock()
				loading = nil
				notify()
				continue
			}
			if e == nil {
				continue
			}
			s.mu.Lock()
			changed := s.view != nil && s.view.apply(e.Key(), slotOf(e))
			s.echoed(e.Revision())
			s.mu.Unlock()
			if changed {
				notify()
			}
		}
	}
}

// stopWatcher stops a key watcher. Stopping deletes its consumer, a request
// that waits out the client's timeout when the connection is down; then it
// runs in the background, so Watch returns as soon as its context ends, and
// Close (which fails the request at once) waits for it.
func (s *Store) stopWatcher(w jetstream.KeyWatcher) {
	if s.nc.Status() == nats.CONNECTED {
		_ = w.Stop()
		return
	}
	s.stops.Go(func() { _ = w.Stop() })
}
