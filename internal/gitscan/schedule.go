package gitscan

import (
	"slices"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"
)

// The scanner's scheduling: when each side is scanned (at once, at the
// end of its interval, after the scan under way, once Run starts), the
// queue of scans waiting for one of MaxScans, and the slow rescan's
// clock. It runs no git and reads no answer: scan.go does, and
// scanner.go joins the two under the Scanner's lock.

// phase is where a side's scan stands: one at a time.
type phase uint8

const (
	idle          phase = iota // no scan asked, none under way
	waitsRun                   // asked while the scanner is not running: Run asks again
	waitsInterval              // due at the end of the interval since the last scan (scanState.timer)
	waitsTurn                  // in the queue, for one of MaxScans
	scanning                   // under way
)

// when is how soon a scan is asked for, in order: a later one asked of a
// side that waits or scans takes over an earlier one.
type when uint8

const (
	notAsked   when = iota
	atInterval      // at the end of the interval since the last scan (Mutated, Track, the slow rescan)
	atOnce          // without the interval, in the queue's order (ShellRan)
	ahead           // without the interval, ahead of the queue: a change that meets another side's (Mutated)
)

// scanState is a side's scheduling: where its scan stands, what follows
// the scan under way, and its clocks. schedule's methods are the only
// ones that change it.
type scanState struct {
	phase phase
	again when // asked while scanning: the scan that follows
	// timer is the scan due at the interval's end (waitsInterval);
	// timerN counts timers, so a stopped one that fires anyway is known.
	timer  clockwork.Timer
	timerN uint64
	last   time.Time // when the last scan started
	// lastWhole is when the last scan of the whole side started: the
	// slow rescan's clock. A scan scoped to touched files sees nothing
	// else, so it does not reset it (an agent editing every few seconds
	// would otherwise keep a person's edits beside it unseen).
	lastWhole time.Time
}

// queued is a scan waiting in the queue.
type queued struct {
	key    string
	t      *tracked
	urgent bool
}

// schedule decides when each side is scanned. It is guarded by the
// Scanner's lock; it starts nothing itself: Scanner.startLocked takes
// what it allows (next, began), and a request made where no scan can be
// started (a hook's Mutated, a timer) wakes Run to start it.
type schedule struct {
	clock    clockwork.Clock
	interval time.Duration
	maxScans int
	// fire is called, on the clock's goroutine, when a side's interval
	// ends (Scanner.fire: the lock, then expired).
	fire func(key string, t *tracked, n uint64)
	wake chan struct{} // a scan queued: Run starts what the bound allows

	open       bool     // Run is running: scans start
	waitingRun []string // sides asked before Run started
	queue      []queued // scans asked, waiting for one of maxScans: urgent first
	active     int      // scans running
}

func newSchedule(clock clockwork.Clock, interval time.Duration, maxScans int, fire func(string, *tracked, uint64)) schedule {
	return schedule{clock: clock, interval: interval, maxScans: maxScans, fire: fire, wake: make(chan struct{}, 1)}
}

// ask asks for a scan of the side key (t its state) at w: the one place a
// request moves a side's phase. Never two scans of a side at once, never
// one dropped: a request while one scans is kept for after it.
func (q *schedule) ask(key string, t *tracked, w when) {
	st := &t.state
	if !q.open {
		switch st.phase {
		case idle:
			st.phase = waitsRun
			q.waitingRun = append(q.waitingRun, key)
		case scanning: // Run ending: the scan that follows waits for the next Run
			st.again = max(st.again, w)
		}
		return
	}
	switch st.phase {
	case scanning:
		st.again = max(st.again, w)
		return
	case waitsTurn:
		if w == ahead {
			q.enqueue(key, t, true) // moves it ahead
		}
		return // the scan waiting will see what was asked
	case waitsInterval:
		if w == atInterval {
			return // one scan is already due at the interval's end
		}
		st.timer.Stop()
		st.timer, st.phase = nil, idle
	}
	if w == atInterval && !st.last.IsZero() {
		if wait := q.clock.Until(st.last.Add(q.interval)); wait > 0 {
			st.timerN++
			n := st.timerN
			st.phase = waitsInterval
			st.timer = q.clock.AfterFunc(wait, func() { q.fire(key, t, n) })
			return
		}
	}
	q.enqueue(key, t, w == ahead)
}

// expired asks for t's scan at the end of the interval timer n waited
// for, unless that timer was stopped meanwhile.
func (q *schedule) expired(key string, t *tracked, n uint64) {
	st := &t.state
	if st.phase != waitsInterval || st.timerN != n {
		return
	}
	st.timer, st.phase = nil, idle
	q.ask(key, t, atInterval)
}

// enqueue queues a scan of key, an urgent one after the urgent ones
// queued before it and ahead of the rest, and wakes Run. Each side waits
// at most once: the queue is bounded by the tracked sides.
func (q *schedule) enqueue(key string, t *tracked, urgent bool) {
	if t.state.phase == waitsTurn {
		i := slices.IndexFunc(q.queue, func(e queued) bool { return e.t == t })
		if i < 0 || q.queue[i].urgent {
			return
		}
		q.queue = slices.Delete(q.queue, i, i+1)
	}
	t.state.phase = waitsTurn
	at := len(q.queue)
	if urgent {
		at = slices.IndexFunc(q.queue, func(e queued) bool { return !e.urgent })
		if at < 0 {
			at = len(q.queue)
		}
	}
	q.queue = slices.Insert(q.queue, at, queued{key: key, t: t, urgent: urgent})
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// next pops the first queued scan of a side still tracked, while Run
// runs and fewer than maxScans do; began must follow it.
func (q *schedule) next(trees map[string]*tracked) (string, *tracked, bool) {
	for q.open && q.active < q.maxScans && len(q.queue) > 0 {
		e := q.queue[0]
		q.queue = q.queue[1:]
		e.t.state.phase = idle
		if trees[e.key] == e.t { // else forgotten meanwhile
			return e.key, e.t, true
		}
	}
	return "", nil, false
}

// began marks t's scan under way and starts its clocks: the slow
// rescan's too when the scan reads the whole side.
func (q *schedule) began(t *tracked, whole bool) {
	st := &t.state
	st.phase, st.last = scanning, q.clock.Now()
	if whole {
		st.lastWhole = st.last
	}
	q.active++
}

// ended marks t's scan over and returns what was asked meanwhile, to ask
// again once the freed place went to the queue's first.
func (q *schedule) ended(t *tracked) when {
	st := &t.state
	again := st.again
	st.phase, st.again = idle, notAsked
	q.active--
	return again
}

// forget leaves t out: its timer stopped, out of the queue. A scan under
// way ends as it would, its answer dropped (Scanner.scan).
func (q *schedule) forget(t *tracked) {
	switch t.state.phase {
	case waitsInterval:
		t.state.timer.Stop()
	case waitsTurn:
		q.queue = slices.DeleteFunc(q.queue, func(e queued) bool { return e.t == t })
	}
}

// begin opens the schedule (Run started) and returns the sides asked
// before, to ask again.
func (q *schedule) begin(trees map[string]*tracked) []string {
	q.open = true
	var asked []string
	for _, key := range q.waitingRun {
		if t := trees[key]; t != nil && t.state.phase == waitsRun {
			t.state.phase = idle
			asked = append(asked, key)
		}
	}
	q.waitingRun = nil
	return asked
}

// stop closes the schedule (Run ending): timers stopped, the queue
// emptied; the scans under way end as they would.
func (q *schedule) stop(trees map[string]*tracked) {
	q.open = false
	for _, t := range trees {
		switch t.state.phase {
		case waitsInterval:
			t.state.timer.Stop()
			t.state.timer, t.state.phase = nil, idle
		case waitsTurn:
			t.state.phase = idle
		}
	}
	q.queue = nil
}

// slowSlices is how many ticks the slow rescan is spread over. Rescanning
// every worktree at once queued 50 scans ahead of a new overlap's
// (urgent ones jump the queue, not the scans already running) and took
// the cores from the hook answers in one burst every period.
const slowSlices = 10

// slowPace is the slow rescan's tick (a slowSlices-th of its period) and
// the most rescans a tick may start at the rate (at least one).
func slowPace(slow time.Duration, rate float64) (every time.Duration, perTick int) {
	every = max(slow/slowSlices, time.Millisecond)
	return every, max(1, int(rate*every.Seconds()))
}

// slowDue picks the sides the slow rescan takes at one of its ticks:
// those whose last whole scan started at least slow ago (or not yet),
// the longest waiting first, at most a slowSlices-th of the tracked
// (rounded up) and at most limit. Due ones left over are first at the
// next tick, so each is rescanned within about slow and a tick of its
// last whole scan while the limit allows (and in turn, the longest
// waiting first, past it), and once spread the rescans stay spread: a
// side's turn follows its own last whole scan.
func slowDue(trees map[string]*tracked, now time.Time, slow time.Duration, limit int) []string {
	share := min((len(trees)+slowSlices-1)/slowSlices, limit)
	var due []string
	for key, t := range trees {
		if now.Sub(t.state.lastWhole) >= slow {
			due = append(due, key)
		}
	}
	slices.SortFunc(due, func(a, b string) int {
		if c := trees[a].state.lastWhole.Compare(trees[b].state.lastWhole); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return due[:min(len(due), share)]
}
