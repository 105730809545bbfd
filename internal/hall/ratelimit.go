package hall

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/hall-dev/hall/internal/contract"
)

// Default rate limit of a check, per client: generous for an orchestrator
// that checks before each task it hands out, a bound on a client in a loop.
const (
	DefaultCheckRate  = 20 // checks a second, sustained
	DefaultCheckBurst = 40
	// DefaultSnapshotReadRate is the snapshot reads (a list, a
	// comparison) a client may make a second, twice that at once: a
	// person's page and an agent's tool call are far below it.
	DefaultSnapshotReadRate = 5
	// DefaultLimiterKeys bounds the clients a Limiter keeps a bucket for.
	DefaultLimiterKeys = 4096
)

// Limiter is a token bucket per client key (golang.org/x/time/rate): a
// read that costs a roster pass is refused past its client's rate, and
// one client's loop never slows another. It keeps at most its cap of
// keys: a bucket idle long enough to have filled again is dropped (a
// new one would be the same), and while every kept bucket is busy, new
// keys share one overflow bucket. A nil *Limiter lets everything
// through. Safe for concurrent use.
type Limiter struct {
	limit   rate.Limit
	burst   int
	maxKeys int
	refill  time.Duration // an idle bucket is full again after this long

	mu        sync.Mutex
	buckets   map[string]*bucket
	overflow  *rate.Limiter
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	last time.Time
}

// NewLimiter returns a limiter of perSecond calls a second, burst at
// once, for each of at most maxKeys clients (DefaultLimiterKeys when
// zero). Nil when perSecond is not positive: no limit.
func NewLimiter(perSecond float64, burst, maxKeys int) *Limiter {
	if !(perSecond > 0) || math.IsInf(perSecond, 0) {
		return nil
	}
	burst = max(burst, 1)
	if maxKeys <= 0 {
		maxKeys = DefaultLimiterKeys
	}
	return &Limiter{
		limit: rate.Limit(perSecond), burst: burst, maxKeys: maxKeys,
		refill:   time.Duration(float64(burst) / perSecond * float64(time.Second)),
		buckets:  map[string]*bucket{},
		overflow: rate.NewLimiter(rate.Limit(perSecond), burst),
	}
}

// Allow takes one call of key's at now: true, or false and how long until
// the client's next call would be let through.
func (l *Limiter) Allow(key string, now time.Time) (time.Duration, bool) {
	if l == nil {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.bucketLocked(key, now)
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, false
	}
	return 0, true
}

// bucketLocked is key's bucket, made if need be; the overflow bucket when
// the cap is reached and no bucket is idle.
func (l *Limiter) bucketLocked(key string, now time.Time) *rate.Limiter {
	if b, ok := l.buckets[key]; ok {
		b.last = now
		return b.lim
	}
	if len(l.buckets) >= l.maxKeys && now.Sub(l.lastSweep) >= l.refill {
		// At most one sweep a refill: under a flood of new keys the map is
		// walked once per interval, not once per call.
		l.lastSweep = now
		for k, b := range l.buckets {
			if now.Sub(b.last) >= l.refill {
				delete(l.buckets, k)
			}
		}
	}
	if len(l.buckets) >= l.maxKeys {
		return l.overflow
	}
	b := &bucket{lim: rate.NewLimiter(l.limit, l.burst), last: now}
	l.buckets[key] = b
	return b.lim
}

// Keys is the number of clients the limiter keeps a bucket for.
func (l *Limiter) Keys() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// rateLimited is the refusal of a call past its client's rate: 429
// rate_limited, with when to retry (whole seconds, at least one).
func rateLimited(op string, after time.Duration) error {
	secs := max(int(math.Ceil(after.Seconds())), 1)
	e := contract.Refuse(contract.KindRateLimited, "rate_limited", "too many %s calls from this client; retry in %ds", op, secs)
	e.RetryAfter = time.Duration(secs) * time.Second
	return e
}

type clientKey struct{}

// WithClient names the client a call comes from, for the per-client rate
// limits: each transport supplies it (HTTP: the remote address; MCP over
// HTTP: its session). A call that names none is the Hall's own process
// and is not limited.
func WithClient(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, clientKey{}, key)
}

// clientOf is the client WithClient named; "" for none.
func clientOf(ctx context.Context) string {
	k, _ := ctx.Value(clientKey{}).(string)
	return k
}

// allowSnapshotRead takes one snapshot read of the calling client's
// from its limit.
func (h *Hall) allowSnapshotRead(ctx context.Context) error {
	key := clientOf(ctx)
	if key == "" {
		return nil
	}
	if after, ok := h.SnapshotLimit.Allow(key, h.Service.Now()); !ok {
		return rateLimited("snapshot read", after)
	}
	return nil
}

// allowCheck takes one check of the calling client's from its limit.
func (h *Hall) allowCheck(ctx context.Context) error {
	key := clientOf(ctx)
	if key == "" {
		return nil
	}
	if after, ok := h.CheckLimit.Allow(key, h.Service.Now()); !ok {
		return rateLimited("check", after)
	}
	return nil
}
