package presence

import (
	"context"
	"time"
)

// RunConfig tunes the live loop. Zero values take the defaults noted.
type RunConfig struct {
	Rescan   time.Duration // full rescan, the safety net; 30 s
	Coalesce time.Duration // how long a burst of store events gathers; 5 ms
	Retry    time.Duration // how soon a broken watch is retried; 1 s
}

// Run keeps the cache current until ctx ends: it follows the store's watch
// (when the store is a Watcher), rescans periodically as the safety net,
// wakes at the next ttl expiry so a silent presence leaves though no file
// changed, and flushes throttled beats when their window passes. Each
// change is signalled on Changed. On return it flushes every held beat.
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
		go s.watchLoop(ctx, w, poke, cfg.Retry)
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

	for {
		s.armExpiry(ctx, expiry)
		select {
		case <-ctx.Done():
			return nil
		case <-events:
			// Gather the rest of a burst, so 500 file writes cost few reads.
			time.Sleep(cfg.Coalesce)
			select {
			case <-events:
			default:
			}
			s.refreshAndNotify(ctx)
		case <-rescan.C:
			s.refreshAndNotify(ctx)
		case <-flush.C:
			s.FlushDue(ctx, false)
		case <-expiry.C:
			s.notify()
		}
	}
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

// armExpiry sets the timer to the next moment a live record goes stale.
func (s *Service) armExpiry(ctx context.Context, t *time.Timer) {
	snap, err := s.Snapshot(ctx)
	wait := time.Hour
	if next := snap.NextExpiryMs(); err == nil && next > 0 {
		wait = time.Duration(next-s.now().UnixMilli()) * time.Millisecond
		if wait < time.Millisecond {
			wait = time.Millisecond
		}
	}
	t.Reset(wait)
}
