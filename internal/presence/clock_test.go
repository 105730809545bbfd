package presence_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// How the Hall reads last_beat_ms against a clock that is not the writer's,
// or not what it was: a beat up to one ttl (at least MinClockSkew) ahead is
// believed and lapses at last_beat_ms + ttl_ms; a beat further ahead is
// not believed at all.
func TestStaleWithClockSkew(t *testing.T) {
	skew := presence.MinClockSkew.Milliseconds()
	tests := []struct {
		name    string
		ttlMs   int64
		aheadMs int64 // last_beat_ms - now: how far the beat is stamped ahead
		want    bool
	}{
		{"now", 60_000, 0, false},
		{"a ms ahead", 60_000, 1, false},
		{"one ttl ahead is believed", 60_000, 60_000, false},
		{"a ms more than one ttl ahead is stale", 60_000, 60_001, true},
		{"a year ahead is stale, never immortal", 60_000, 365 * 24 * 3_600_000, true},
		{"far past is stale", 60_000, -60_001, true},
		{"short ttl: skew allowance ahead is believed", 300, skew, false},
		{"short ttl: past the skew allowance is stale", 300, skew + 1, true},
		{"short ttl: behind still lapses at the ttl", 300, -301, true},
		{"ttl absent: default ttl ahead is believed", 0, presence.DefaultTTL.Milliseconds(), false},
		{"ttl absent: past the default ttl ahead is stale", 0, presence.DefaultTTL.Milliseconds() + 1, true},
		{"max int64 stamp is stale", 60_000, 1 << 62, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := presencetest.Rec("a", "/b", presencetest.TTL(tt.ttlMs))
			now := time.UnixMilli(r.LastBeatMs - tt.aheadMs)
			if got := r.Stale(now); got != tt.want {
				t.Errorf("Stale(last_beat %d ms ahead, ttl_ms %d): got %v, want %v", tt.aheadMs, tt.ttlMs, got, tt.want)
			}
		})
	}
}

// A stamp anywhere in int64, as a foreign file may hold, is judged without
// overflow: the extremes are stale at any sane clock.
func TestStaleExtremeStamps(t *testing.T) {
	now := time.UnixMilli(presencetest.T0)
	for _, lb := range []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, math.MaxInt64 - 1, math.MaxInt64} {
		r := presencetest.Rec("a", "/b", presencetest.TTL(60_000))
		r.LastBeatMs = lb
		if !r.Stale(now) {
			t.Errorf("Stale(last_beat_ms %d) at %d: got live, want stale", lb, presencetest.T0)
		}
	}
}

// A stopped presence, after the clock went back by J, leaves at its
// last_beat_ms + ttl: within ttl + J of the jump, never later.
func TestStaleAfterClockWentBack(t *testing.T) {
	const ttl = 60_000
	tests := []struct {
		name   string
		jumpMs int64 // how far the clock went back right after the last beat
	}{
		{"no jump", 0},
		{"back by a second", 1_000},
		{"back by half a ttl", ttl / 2},
		{"back by exactly a ttl", ttl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := presencetest.Rec("a", "/b", presencetest.TTL(ttl))
			jumpedTo := r.LastBeatMs - tt.jumpMs
			if r.Stale(time.UnixMilli(jumpedTo)) {
				t.Fatalf("right after a jump back of %d ms: got stale, want live (no mass expiry)", tt.jumpMs)
			}
			last := jumpedTo + ttl + tt.jumpMs // ttl + J after the jump
			if r.Stale(time.UnixMilli(last)) {
				t.Errorf("ttl + J after the jump: got stale, want live to its last ms")
			}
			if !r.Stale(time.UnixMilli(last + 1)) {
				t.Errorf("ttl + J + 1 ms after the jump: got live, want stale (no immortal presence)")
			}
		})
	}
	// Back by more than a ttl: the old beat is not believed at once.
	r := presencetest.Rec("a", "/b", presencetest.TTL(ttl))
	if !r.Stale(time.UnixMilli(r.LastBeatMs - ttl - 1)) {
		t.Errorf("after a jump back of ttl + 1 ms: got live, want stale")
	}
}

// The service over a clock that jumps: forward by less than the ttl
// expires no one who beat since; a presence that keeps beating after a
// jump back by more than a ttl stays on the roster and reaches the store
// at once (a throttle window measured across the jump would hold its write
// until the clock caught up); one that stops leaves and does not rise again
// as the clock catches up with its beat.
func TestServiceClockJumps(t *testing.T) {
	const ttl = time.Minute
	store := dirstoretest.Open(t)
	clock := presencetest.NewClock(presencetest.T0)
	svc := presence.NewService(store, presence.Config{Now: clock.Now, TTL: ttl})
	ctx := context.Background()
	agents := []string{"a-1", "a-2", "a-3", "a-4"}
	beatAll := func() {
		for _, a := range agents {
			mustBeat(t, svc, presence.Beat{AgentID: a, Brain: "/b", Theme: "steady"})
		}
	}
	live := func() []string {
		snap, err := svc.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range snap.Live {
			out = append(out, r.AgentID)
		}
		slices.Sort(out)
		return out
	}

	beatAll()
	clock.Advance(40 * time.Second) // forward, less than the ttl
	if got := live(); !slices.Equal(got, agents) {
		t.Fatalf("after a jump forward of 40s (ttl 1m): got %v live, want all of %v", got, agents)
	}
	beatAll()
	clock.Advance(40 * time.Second)
	if got := live(); !slices.Equal(got, agents) {
		t.Fatalf("after a beat and another 40s: got %v live, want all of %v", got, agents)
	}

	// Back by two ttls: the beats stamped before the jump are not believed.
	clock.Advance(-2 * ttl)
	if got := live(); len(got) != 0 {
		t.Fatalf("right after a jump back of 2m: got %v live, want none (stamped over a ttl ahead)", got)
	}
	// a-1 and a-2 keep beating, with the same signal: stored at once.
	for _, a := range agents[:2] {
		res := mustBeat(t, svc, presence.Beat{AgentID: a, Brain: "/b", Theme: "steady"})
		if !res.Stored {
			t.Errorf("%s's first beat after the jump back: got %+v, want stored at once", a, res)
		}
		if got, want := dirstoretest.ReadRecord(t, store.Dir(), res.PresenceID).LastBeatMs, clock.Now().UnixMilli(); got != want {
			t.Errorf("%s stored last_beat_ms: got %d, want %d (the new clock)", a, got, want)
		}
	}
	if got := live(); !slices.Equal(got, agents[:2]) {
		t.Fatalf("after beats on the new clock: got %v live, want %v", got, agents[:2])
	}
	// The next beat in the same window is throttled again, as normal.
	if res := mustBeat(t, svc, presence.Beat{AgentID: "a-1", Brain: "/b", Theme: "steady"}); !res.Throttled {
		t.Errorf("a second beat within the window after the jump: got %+v, want throttled", res)
	}
	// A ttl on, a-1 and a-2 have lapsed; a-3 and a-4, stamped 20s ahead of
	// this clock now, would be believed again, but a version found stale
	// never comes back: nobody rises.
	clock.Advance(ttl + time.Millisecond)
	if got := live(); len(got) != 0 {
		t.Errorf("a ttl after the last beats: got %v live, want none", got)
	}
	// Nor does one that lapsed the ordinary way when the clock goes back.
	mustBeat(t, svc, presence.Beat{AgentID: "a-5", Brain: "/b"})
	clock.Advance(ttl + time.Millisecond)
	if got := live(); len(got) != 0 {
		t.Fatalf("a ttl after a-5's beat: got %v live, want none", got)
	}
	clock.Advance(-30 * time.Second)
	if got := live(); len(got) != 0 {
		t.Errorf("after the clock went back 30s over a lapsed a-5: got %v live, want none", got)
	}
	// A new beat brings it back, as any beat does.
	mustBeat(t, svc, presence.Beat{AgentID: "a-5", Brain: "/b"})
	if got := live(); !slices.Equal(got, []string{"a-5"}) {
		t.Errorf("after a-5 beat again: got %v live, want [a-5]", got)
	}
}

// While Run is active, a jump of the clock is noticed by itself: the roster
// is looked at again and the change signalled, though no file changed and
// the expiry timer (armed for an hour of monotonic time) has not fired.
func TestRunNoticesClockJump(t *testing.T) {
	for _, jump := range []time.Duration{2 * time.Hour, -3 * time.Hour} {
		t.Run(jump.String(), func(t *testing.T) {
			store := dirstoretest.Open(t)
			clock := &presencetest.OffsetClock{}
			svc := presence.NewService(store, presence.Config{Now: clock.Now, TTL: time.Hour})
			startRun(t, svc, presence.RunConfig{Rescan: time.Hour})
			mustBeat(t, svc, presence.Beat{AgentID: "a-1", Brain: "/b"})
			untilSnapshot(t, svc, "a-1 live", func(s presence.Snapshot) bool { return len(s.Live) == 1 })
			// Let the beat's own signals pass, so the next one is the jump's.
			for settled := false; !settled; {
				select {
				case <-svc.Changed():
				case <-time.After(500 * time.Millisecond):
					settled = true
				}
			}

			clock.Jump(jump)
			untilSnapshot(t, svc, "a-1 gone after the clock jumped "+jump.String(), func(s presence.Snapshot) bool { return len(s.Live) == 0 })
		})
	}
}

// TestTTLClampedToADay: a foreign file's ttl_ms may be any int64. Beyond
// MaxTTL (a day) it is taken as MaxTTL: never wrapped into a negative or
// tiny ttl, and never keeping a silent presence for centuries. Live to the
// last millisecond of the day after its beat, stale one after.
func TestTTLClampedToADay(t *testing.T) {
	const day = int64(24 * 60 * 60 * 1000)
	for _, ttl := range []int64{day, day + 1, math.MaxInt64 / 1_000_000, math.MaxInt64/1_000_000 + 1, 1 << 62, math.MaxInt64} {
		r := presencetest.Rec("a", "/b", presencetest.TTL(ttl), presencetest.LastBeat(presencetest.T0))
		if got, want := r.TTL(), 24*time.Hour; got != want {
			t.Errorf("ttl_ms %d: TTL() = %s, want %s", ttl, got, want)
		}
		if got, want := r.ExpiresAtMs(), presencetest.T0+day; got != want {
			t.Errorf("ttl_ms %d: expires at %d, want %d", ttl, got, want)
		}
		if r.Stale(time.UnixMilli(presencetest.T0 + day)) {
			t.Errorf("ttl_ms %d: stale a day after its beat, want live to its last ms", ttl)
		}
		if !r.Stale(time.UnixMilli(presencetest.T0 + day + 1)) {
			t.Errorf("ttl_ms %d: live a day and a ms after its beat, want stale", ttl)
		}
	}
	if got, want := presencetest.Rec("a", "/b", presencetest.TTL(day-1)).TTL(), 24*time.Hour-time.Millisecond; got != want {
		t.Errorf("ttl_ms a day less a ms: TTL() = %s, want %s", got, want)
	}
}
