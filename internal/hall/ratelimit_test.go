package hall_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// TestLimiter: a token bucket per client over a clock the test moves.
func TestLimiter(t *testing.T) {
	t0 := time.UnixMilli(presencetest.T0)
	type call struct {
		key   string
		at    time.Duration // since t0
		ok    bool
		after time.Duration // when refused
	}
	for _, tc := range []struct {
		name           string
		rate           float64
		burst, maxKeys int
		calls          []call
		wantKept       int // buckets kept at the end
	}{
		{"a burst, then one a refill", 2, 3, 0, []call{
			{"a", 0, true, 0}, {"a", 0, true, 0}, {"a", 0, true, 0},
			{"a", 0, false, 500 * time.Millisecond},
			{"a", 250 * time.Millisecond, false, 250 * time.Millisecond},
			{"a", 500 * time.Millisecond, true, 0},
			{"a", 500 * time.Millisecond, false, 500 * time.Millisecond},
		}, 1},
		{"a refusal takes nothing", 1, 1, 0, []call{
			{"a", 0, true, 0},
			{"a", 0, false, time.Second}, {"a", 0, false, time.Second}, {"a", 0, false, time.Second},
			{"a", time.Second, true, 0},
		}, 1},
		{"another client is unaffected", 1, 2, 0, []call{
			{"a", 0, true, 0}, {"a", 0, true, 0}, {"a", 0, false, time.Second},
			{"b", 0, true, 0}, {"b", 0, true, 0}, {"b", 0, false, time.Second},
		}, 2},
		{"at the cap an idle bucket makes room", 1, 2, 2, []call{
			{"a", 0, true, 0}, {"b", 0, true, 0},
			{"c", time.Second, true, 0}, // a and b are not full yet: c shares the overflow bucket
			{"d", time.Second, true, 0},
			{"e", time.Second, false, time.Second},
			{"f", 2 * time.Second, true, 0}, // one sweep a refill (2 s): f still shares the overflow bucket
			{"g", 2 * time.Second, false, time.Second},
			{"h", 3 * time.Second, true, 0}, // a and b idle 3 s, full again: dropped, h kept with a bucket of its own
			{"h", 3 * time.Second, true, 0},
			{"h", 3 * time.Second, false, time.Second},
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := hall.NewLimiter(tc.rate, tc.burst, tc.maxKeys)
			for i, c := range tc.calls {
				after, ok := l.Allow(c.key, t0.Add(c.at))
				if ok != c.ok || after != c.after {
					t.Errorf("call %d (%s at %v): got %v, retry in %v; want %v, %v", i, c.key, c.at, ok, after, c.ok, c.after)
				}
			}
			if got := l.Keys(); got != tc.wantKept {
				t.Errorf("keeps %d buckets, want %d", got, tc.wantKept)
			}
		})
	}
	if l := hall.NewLimiter(0, 40, 0); l != nil {
		t.Errorf("rate 0: got a limiter, want none (no limit)")
	}
	var none *hall.Limiter
	for range 100 {
		if _, ok := none.Allow("a", t0); !ok {
			t.Fatal("a nil limiter refused a call")
		}
	}
}

// TestLimiterKeysBounded: however many clients call, the limiter keeps
// at most its cap of buckets.
func TestLimiterKeysBounded(t *testing.T) {
	l := hall.NewLimiter(1, 1, 64)
	for i := range 10000 {
		l.Allow(string(rune('a'+i%26))+string(rune(i)), time.UnixMilli(presencetest.T0))
	}
	if got := l.Keys(); got != 64 {
		t.Errorf("10,000 clients at once: keeps %d buckets, want the cap, 64", got)
	}
}

// TestCheckRateLimited: a client past its check rate is refused 429
// rate_limited with when to retry, before anything is read; another
// client, and a call naming none (the Hall's own), are not; nothing is
// written.
func TestCheckRateLimited(t *testing.T) {
	h, clock, dir := newHall(t)
	h.CheckLimit = hall.NewLimiter(1, 3, 0)
	before := storeState(t, dir)
	req := contract.CheckRequest{Brain: "/srv/shop", CallerRoot: "/srv/shop", Paths: []string{"src/cart.go"}}
	a := hall.WithClient(context.Background(), "ip 192.0.2.1")
	for i := range 3 {
		if _, err := h.Check(a, req); err != nil {
			t.Fatalf("check %d within the burst: %v", i, err)
		}
	}
	_, err := h.Check(a, contract.CheckRequest{}) // refused before the request is read
	var e *contract.Error
	if !errors.As(err, &e) || e.Kind != contract.KindRateLimited || e.Code != "rate_limited" || e.RetryAfter != time.Second {
		t.Fatalf("past the burst: got %v (retry after %v), want 429 rate_limited, retry after 1s", err, e.RetryAfter)
	}
	if _, err := h.Check(hall.WithClient(context.Background(), "ip 192.0.2.2"), req); err != nil {
		t.Errorf("another client: %v", err)
	}
	for range 10 {
		if _, err := h.Check(context.Background(), req); err != nil {
			t.Fatalf("a call naming no client: %v", err)
		}
	}
	clock.Advance(time.Second)
	if _, err := h.Check(a, req); err != nil {
		t.Errorf("a second later: %v", err)
	}
	if after := storeState(t, dir); len(after) != len(before) {
		t.Errorf("the store went from %d files to %d under checks", len(before), len(after))
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("the store holds %d files, want none", len(names))
	}
}
