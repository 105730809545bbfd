package presence

import (
	"context"
	"sync"
	"time"
)

// RunConfig tunes the live loop. Zero values take the defaults noted.
type RunConfig struct {
	Rescan   time.Duration // full rescan, the safety net; 30 s
	Coalesce time.Duration // least time between two whole listings a burst of store events triggers, and the wait before a file found mid-write is read again; 5 ms
	Retry    time.Duration // how soon a broken watch, or a read the store refused for want of descriptors, is retried; 1 s
}

// Run keeps the cache current until ctx ends: it follows the store's watch
// (when the store is a Watcher; rereading only the entries a KeyWatcher
// names), rescans periodically as the safety net,
// wakes at the next ttl expiry so a silent presence leaves though no file
// changed (and looks again at once when the clock jumps), and flushes
// throttled beats when their window passes, and reclaims lapsed records
// in bounded passes (ReclaimLapsed). Each change is signalled on
// Changed. On return it flushes every held beat.
func (s *Service) Run(ctx context.Context, cfg RunConfig) error {
	if cfg.Rescan <= 0 {
		cfg.Rescan = 30 * time.Second
	}
	if cfg.Coalesce <= 0 {
		cfg.Coalesce = 5 * time.Millisecond
	}
	if cfg.Retry <= 0 {
		cfg.Retry = time.Second
	}
	defer func() {
		s.watching.Store(false)
		s.FlushDue(context.WithoutCancel(ctx), true)
	}()

	events := make(chan struct{}, 1)
	var pending pendingKeys
	poke := func(key string) {
		pending.add(key)
		select {
		case events <- struct{}{}:
		default:
		}
	}
	if w, ok := s.store.(Watcher); ok {
		// Run returns only once the watch has ended: no goroutine of its
		// own outlives it. Deferred after the flush, so it runs first.
		watchDone := make(chan struct{})
		defer func() { <-watchDone }()
		go func() {
			defer close(watchDone)
			s.watchLoop(ctx, w, poke, cfg.Retry)
		}()
	}

	retryFirst := s.refreshAndNotify(ctx)
	s.watching.Store(true)

	rescan := time.NewTicker(cfg.Rescan)
	defer rescan.Stop()
	flush := time.NewTicker(s.throttle / 5)
	defer flush.Stop()
	expiry := time.NewTimer(time.Hour)
	defer expiry.Stop()
	clock := newClockWatch(s.now())
	var lastRead time.Time // the last read a store event triggered

	// settle rereads, a moment later, entries a reread found mid-write.
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	var unsettled []string

	// busy lists the store again a moment after a read it refused for
	// want of descriptors (EBUSY): the keys that read was for are covered.
	busy := time.NewTimer(time.Hour)
	busy.Stop()
	defer busy.Stop()
	retryBusy := func(err error) {
		if ErrorCode(err) == EBUSY {
			busy.Reset(cfg.Retry)
		}
	}

	// reclaim runs the next pass of a reclaim that found more lapsed
	// records than one pass removes, as soon as the loop is free.
	reclaim := time.NewTimer(time.Hour)
	reclaim.Stop()
	defer reclaim.Stop()
	reclaimPass := func() {
		if _, more := s.ReclaimLapsed(ctx); more {
			reclaim.Reset(0)
		}
	}

	retryBusy(retryFirst)
	var due int64 // the expiry the timer is armed for (ms), 0 when none
	for {
		// An expiry is signalled whenever its moment has passed, whichever
		// case woke the loop: a timer that fires together with another
		// case may lose the select, and by the next arming the record is
		// stale and no longer "next", so the timer alone would miss it.
		if due != 0 && s.now().UnixMilli() >= due {
			s.notify()
		}
		due = s.armExpiry(expiry)
		select {
		case <-ctx.Done():
			return nil
		case <-events:
			keys, all := pending.take()
			if !all && len(keys) == 0 {
				continue // the token of keys a listing already took
			}
			if !all {
				// Only the entries named are read, each at once (live
				// streams wait on this read): a burst gathers by itself
				// into the next read while one runs.
				changed, again, err := s.reread(ctx, keys)
				if changed {
					s.notify()
				}
				retryBusy(err)
				if len(again) > 0 {
					if len(unsettled) == 0 {
						settle.Reset(cfg.Coalesce)
					}
					unsettled = append(unsettled, again...)
				}
				continue
			}
			// A whole listing after a quiet spell is read at once; a
			// burst of them is read at most once per Coalesce, so a
			// store that cannot name its changes still reads little.
			if wait := cfg.Coalesce - time.Since(lastRead); wait > 0 {
				time.Sleep(wait)
				select {
				case <-events:
				default:
				}
			}
			pending.take() // the listing below covers what came meanwhile
			lastRead = time.Now()
			retryBusy(s.refreshAndNotify(ctx))
		case <-busy.C:
			retryBusy(s.refreshAndNotify(ctx))
		case <-settle.C:
			for _, k := range unsettled {
				poke(k)
			}
			unsettled = nil
		case <-rescan.C:
			retryBusy(s.refreshAndNotify(ctx))
		case <-reclaim.C:
			reclaimPass()
		case <-flush.C:
			s.FlushDue(ctx, false)
			reclaimPass()
			// A jump of the clock ages every record at once, which no file
			// event tells and the armed timer (monotonic) does not see:
			// look again now rather than when the timer fires.
			if clock.jumped(s.now()) {
				s.notify()
			}
		case <-expiry.C:
			// Signalled at the top of the loop.
		}
	}
}

// clockJump is how far the service's clock may drift from the monotonic
// clock between two looks before Run takes it for a jump.
const clockJump = 500 * time.Millisecond

// clockWatch notices the service's clock (wall time, or a test's) moving
// apart from the monotonic clock: an NTP step, a suspended machine, a clock
// set by hand.
type clockWatch struct {
	wallMs int64
	mono   time.Time
}

func newClockWatch(now time.Time) *clockWatch {
	return &clockWatch{wallMs: now.UnixMilli(), mono: time.Now()}
}

// jumped reports whether now moved more than clockJump off the monotonic
// time elapsed since the last look, forward or back.
func (c *clockWatch) jumped(now time.Time) bool {
	mono := time.Now()
	drift := (now.UnixMilli() - c.wallMs) - mono.Sub(c.mono).Milliseconds()
	c.wallMs, c.mono = now.UnixMilli(), mono
	return drift > clockJump.Milliseconds() || -drift > clockJump.Milliseconds()
}

// watchLoop follows the store's watch, and restarts it when it breaks.
// A store that cannot name its changes (a Watcher only) pokes AllKeys.
func (s *Service) watchLoop(ctx context.Context, w Watcher, poke func(key string), retry time.Duration) {
	watch := func() error { return w.Watch(ctx, func() { poke(AllKeys) }) }
	if kw, ok := w.(KeyWatcher); ok {
		watch = func() error { return kw.WatchKeys(ctx, poke) }
	}
	for ctx.Err() == nil {
		if err := watch(); err != nil {
			s.log.Debug("store watch ended; retrying", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(retry):
			poke(AllKeys)
		}
	}
}

// pendingKeys gathers what a store's watch named until the live loop takes
// it: keys to reread, or all (AllKeys) to list the whole store.
type pendingKeys struct {
	mu   sync.Mutex
	keys map[string]struct{}
	all  bool
}

// maxPendingKeys bounds the keys held: past it a whole listing is cheaper
// anyway, and memory stays bounded however long a burst.
const maxPendingKeys = 4096

func (p *pendingKeys) add(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.all {
		return
	}
	if key == AllKeys || len(p.keys) >= maxPendingKeys {
		p.all, p.keys = true, nil
		return
	}
	if p.keys == nil {
		p.keys = map[string]struct{}{}
	}
	p.keys[key] = struct{}{}
}

// take empties the set and returns what it held.
func (p *pendingKeys) take() (keys []string, all bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	all = p.all
	if !all {
		keys = make([]string, 0, len(p.keys))
		for k := range p.keys {
			keys = append(keys, k)
		}
	}
	p.keys, p.all = nil, false
	return keys, all
}

func (s *Service) refreshAndNotify(ctx context.Context) error {
	changed, err := s.Refresh(ctx)
	if changed {
		s.notify()
	}
	return err
}

// armExpiry sets the timer to the next moment a live record goes stale and
// returns that moment (ms), 0 when nothing is live.
func (s *Service) armExpiry(t *time.Timer) int64 {
	wait := time.Hour
	now := s.now()
	next := s.nextExpiryMs(now)
	if next > 0 {
		wait = max(time.Duration(next-now.UnixMilli())*time.Millisecond, time.Millisecond)
	}
	t.Reset(wait)
	return next
}
