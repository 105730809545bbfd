package presence

import (
	"context"
	"time"
)

// RunConfig tunes the live loop. Zero values take the defaults noted.
type RunConfig struct {
	Rescan   time.Duration // full rescan, the safety net; 30 s
	Coalesce time.Duration // least time between two reads a burst of store events triggers; 5 ms
	Retry    time.Duration // how soon a broken watch is retried; 1 s
}

// Run keeps the cache current until ctx ends: it follows the store's watch
// (when the store is a Watcher), rescans periodically as the safety net,
// wakes at the next ttl expiry so a silent presence leaves though no file
// changed (and looks again at once when the clock jumps), and flushes
// throttled beats when their window passes. Each change is signalled on
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
		s.mu.Lock()
		s.watching = false
		s.mu.Unlock()
		s.FlushDue(context.WithoutCancel(ctx), true)
	}()

	events := make(chan struct{}, 1)
	poke := func() {
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

	s.refreshAndNotify(ctx)
	s.mu.Lock()
	s.watching = true
	s.mu.Unlock()

	rescan := time.NewTicker(cfg.Rescan)
	defer rescan.Stop()
	flush := time.NewTicker(s.throttle / 5)
	defer flush.Stop()
	expiry := time.NewTimer(time.Hour)
	defer expiry.Stop()
	clock := newClockWatch(s.now())
	var lastRead time.Time // the last read a store event triggered

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
			// A change after a quiet spell is read at once (live streams
			// wait on this read); a burst is read at most once per
			// Coalesce, so 500 file writes still cost few reads.
			if wait := cfg.Coalesce - time.Since(lastRead); wait > 0 {
				time.Sleep(wait)
				select {
				case <-events:
				default:
				}
			}
			lastRead = time.Now()
			s.refreshAndNotify(ctx)
		case <-rescan.C:
			s.refreshAndNotify(ctx)
		case <-flush.C:
			s.FlushDue(ctx, false)
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

func (s *Service) watchLoop(ctx context.Context, w Watcher, poke func(), retry time.Duration) {
	for ctx.Err() == nil {
		if err := w.Watch(ctx, poke); err != nil {
			s.log.Debug("store watch ended; retrying", "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(retry):
			poke()
		}
	}
}

func (s *Service) refreshAndNotify(ctx context.Context) {
	if changed, _ := s.Refresh(ctx); changed {
		s.notify()
	}
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
