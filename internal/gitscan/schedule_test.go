package gitscan

import (
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
)

// TestScheduleAsk: a request moves a side's scan state in one place: at
// the interval's end when one was scanned within it, at once otherwise
// or when asked at once, ahead of the queue when it meets another side's
// change; kept for after the scan under way (the most urgent asked);
// held for Run when the scanner is not running.
func TestScheduleAsk(t *testing.T) {
	type want struct {
		phase  phase
		again  when
		urgent bool // queued ahead
	}
	for _, tc := range []struct {
		name    string
		closed  bool
		scanned bool // a scan started just now: inside the interval
		asks    []when
		want    want
	}{
		{"never scanned, at the interval", false, false, []when{atInterval}, want{waitsTurn, notAsked, false}},
		{"inside the interval", false, true, []when{atInterval}, want{waitsInterval, notAsked, false}},
		{"inside the interval, again", false, true, []when{atInterval, atInterval}, want{waitsInterval, notAsked, false}},
		{"inside the interval, at once", false, true, []when{atOnce}, want{waitsTurn, notAsked, false}},
		{"waiting for the interval, then at once", false, true, []when{atInterval, atOnce}, want{waitsTurn, notAsked, false}},
		{"waiting for the interval, then ahead", false, true, []when{atInterval, ahead}, want{waitsTurn, notAsked, true}},
		{"queued, then ahead", false, false, []when{atInterval, ahead}, want{waitsTurn, notAsked, true}},
		{"queued ahead, then at once", false, false, []when{ahead, atOnce}, want{waitsTurn, notAsked, true}},
		{"not running", true, false, []when{ahead, atOnce}, want{waitsRun, notAsked, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := clockwork.NewFakeClock()
			q := newSchedule(clock, time.Hour, 1, func(string, *tracked, uint64) {})
			q.open = !tc.closed
			q.active = 1 // nothing starts: the queue is looked at as it is
			tr := &tracked{}
			if tc.scanned {
				tr.state.last = clock.Now()
			}
			for _, w := range tc.asks {
				q.ask("/w/a", tr, w)
			}
			got := want{phase: tr.state.phase, again: tr.state.again}
			if len(q.queue) > 0 {
				got.urgent = q.queue[0].urgent
			}
			if got != tc.want || len(q.queue) > 1 {
				t.Errorf("got %+v (queue %d), want %+v", got, len(q.queue), tc.want)
			}
			if tc.closed && len(q.waitingRun) != 1 {
				t.Errorf("held for Run %v, want /w/a once", q.waitingRun)
			}
		})
	}
	// While a scan is under way, what follows it is the most urgent asked.
	q := newSchedule(clockwork.NewFakeClock(), time.Hour, 1, func(string, *tracked, uint64) {})
	q.open = true
	tr := &tracked{}
	q.ask("/w/a", tr, atInterval)
	if key, got, ok := q.next(map[string]*tracked{"/w/a": tr}); !ok || key != "/w/a" || got != tr {
		t.Fatalf("next = %q, %v; want /w/a", key, ok)
	}
	q.began(tr, true)
	for _, w := range []when{atInterval, ahead, atOnce} {
		q.ask("/w/a", tr, w)
	}
	if tr.state.phase != scanning || tr.state.again != ahead {
		t.Errorf("scanning: phase %v, again %v; want scanning, ahead", tr.state.phase, tr.state.again)
	}
	if again := q.ended(tr); again != ahead || tr.state.phase != idle || q.active != 0 {
		t.Errorf("ended: again %v, phase %v, active %d; want ahead, idle, 0", again, tr.state.phase, q.active)
	}
}
