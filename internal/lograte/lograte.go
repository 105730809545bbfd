// Package lograte keeps a repeated warning from flooding the log: a
// slog.Handler that lets one line of each kind through per interval and
// counts the rest.
//
// A fault that lasts (a full disk, a registry gone, a store unreachable)
// fails the same way many times a second: one line per held presence, per
// poll, per retry. The Hall's loggers go through this handler, so such a
// fault writes one line when it starts and then one line per interval
// saying how many more like it there were (the latest of them, with a
// "repeated" attribute), until it stops. Nothing is lost from the count:
// the lines of a kind, each counting 1 or its "repeated", add up to every
// record of that kind the handler was given (but those of the last
// interval, when the process exits before Flush).
package lograte

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// DefaultEvery is the interval the Hall limits each kind of warning to.
const DefaultEvery = 10 * time.Second

// RepeatedKey is the attribute a summary line carries: how many records of
// its kind the interval held, itself included.
const RepeatedKey = "repeated"

// Handler limits records at MinLevel and above to one line per kind per
// interval; a record's kind is its level and message. Records below
// MinLevel pass untouched. Handlers derived by WithAttrs and WithGroup
// share their parent's limits.
type Handler struct {
	inner slog.Handler
	st    *state
}

// MinLevel is the least level that is limited: warnings and errors.
const MinLevel = slog.LevelWarn

type state struct {
	every time.Duration
	// after runs f once d has passed: time.AfterFunc, or a test's hand.
	after func(d time.Duration, f func()) stopper
	mu    sync.Mutex
	kinds map[kind]*window
}

// stopper is the part of a *time.Timer a window uses.
type stopper interface{ Stop() bool }

func afterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }

type kind struct {
	level slog.Level
	msg   string
}

// window is one kind's open interval: the records held back in it, the
// latest of them and the handler to write it with.
type window struct {
	held   int
	last   slog.Record
	inner  slog.Handler
	timer  stopper
	closed bool
}

// New returns a Handler writing through inner, letting one line of each
// kind through per every (DefaultEvery when every is not positive).
func New(inner slog.Handler, every time.Duration) *Handler {
	if every <= 0 {
		every = DefaultEvery
	}
	return &Handler{inner: inner, st: &state{every: every, after: afterFunc, kinds: map[kind]*window{}}}
}

// Enabled is inner's.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

// WithAttrs derives a Handler sharing h's limits.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &Handler{inner: h.inner.WithAttrs(as), st: h.st}
}

// WithGroup derives a Handler sharing h's limits.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{inner: h.inner.WithGroup(name), st: h.st}
}

// Handle writes r at once when no interval of its kind is open, and opens
// one; within an open interval it holds r back and counts it. When the
// interval ends with records held, the latest is written with how many
// there were, and a new interval opens.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < MinLevel {
		return h.inner.Handle(ctx, r)
	}
	k := kind{r.Level, r.Message}
	st := h.st
	st.mu.Lock()
	if w, ok := st.kinds[k]; ok {
		w.held++
		w.last, w.inner = r.Clone(), h.inner
		st.mu.Unlock()
		return nil
	}
	w := &window{}
	st.kinds[k] = w
	w.timer = st.after(st.every, func() { st.close(k, w) })
	st.mu.Unlock()
	return h.inner.Handle(ctx, r)
}

// close ends w's interval: it writes the records held in it as one line,
// and opens the next interval when there were any. It writes under the
// lock, so Flush, once it holds the lock, knows no summary is in flight.
func (st *state) close(k kind, w *window) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if w.closed {
		return
	}
	if w.held == 0 {
		w.closed = true
		delete(st.kinds, k)
		return
	}
	last, inner := w.last, w.inner
	last.AddAttrs(slog.Int(RepeatedKey, w.held))
	w.held, w.last = 0, slog.Record{}
	w.timer = st.after(st.every, func() { st.close(k, w) })
	_ = inner.Handle(context.Background(), last)
}

// Flush writes what every open interval holds now and closes them all: a
// process calls it as it exits, so the last interval's count is not lost.
func (h *Handler) Flush() {
	st := h.st
	st.mu.Lock()
	type out struct {
		r     slog.Record
		inner slog.Handler
	}
	var outs []out
	for k, w := range st.kinds {
		w.timer.Stop()
		w.closed = true
		delete(st.kinds, k)
		if w.held > 0 {
			w.last.AddAttrs(slog.Int(RepeatedKey, w.held))
			outs = append(outs, out{w.last, w.inner})
		}
	}
	st.mu.Unlock()
	for _, o := range outs {
		_ = o.inner.Handle(context.Background(), o.r)
	}
}
