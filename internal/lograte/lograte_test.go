package lograte

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lines is a JSON log sink the tests read back, safe for the timer's
// goroutine.
type lines struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// all decodes every line written so far.
func (l *lines) all(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, s := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		if s == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("log line %q: %v", s, err)
		}
		out = append(out, m)
	}
	return out
}

func newLogger(every time.Duration) (*slog.Logger, *Handler, *lines) {
	sink := &lines{}
	h := New(slog.NewJSONHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug}), every)
	return slog.New(h), h, sink
}

// count is what a line stands for: 1, or its "repeated".
func count(m map[string]any) int {
	if n, ok := m[RepeatedKey].(float64); ok {
		return int(n)
	}
	return 1
}

// TestOneLinePerKindPerInterval: within one interval a kind writes its
// first record at once and holds the rest; Flush writes the latest of them
// with how many there were. Kinds are counted apart; info and debug pass
// untouched; after Flush the next record of a kind is written at once.
func TestOneLinePerKindPerInterval(t *testing.T) {
	log, h, sink := newLogger(time.Hour) // no interval ends within the test: Flush ends it
	for i := 0; i < 100; i++ {
		log.Warn("presence not stored", "presence_id", i, "err", "no space left on device")
		log.Error("registry unreadable", "n", i)
		log.Info("beat", "n", i)
	}
	log.With("component", "relay").Warn("presence not stored", "presence_id", 100)
	got := sink.all(t)
	kinds := map[string]int{}
	for _, m := range got {
		kinds[m["msg"].(string)]++
		if _, ok := m[RepeatedKey]; ok {
			t.Errorf("a line with %q before any interval ended: %v", RepeatedKey, m)
		}
	}
	if kinds["presence not stored"] != 1 || kinds["registry unreadable"] != 1 || kinds["beat"] != 100 {
		t.Errorf("lines by message before the interval ends: got %v, want 1, 1 and 100 (info untouched)", kinds)
	}

	h.Flush()
	got = sink.all(t)[len(got):]
	if len(got) != 2 {
		t.Fatalf("Flush wrote %d lines, want one per kind: %v", len(got), got)
	}
	for _, m := range got {
		switch m["msg"] {
		case "presence not stored":
			// The latest record, with the derived logger's attribute.
			if count(m) != 100 || m["presence_id"] != float64(100) || m["component"] != "relay" {
				t.Errorf("summary: got %v, want the latest record with %s=100", m, RepeatedKey)
			}
		case "registry unreadable":
			if count(m) != 99 || m["n"] != float64(99) || m["level"] != "ERROR" {
				t.Errorf("summary: got %v, want the latest record at ERROR with %s=99", m, RepeatedKey)
			}
		default:
			t.Errorf("unexpected summary %v", m)
		}
	}
	h.Flush() // nothing held: nothing written
	log.Warn("presence not stored", "presence_id", 101)
	if got := sink.all(t); len(got) != 105 || got[104]["presence_id"] != float64(101) || count(got[104]) != 1 {
		t.Errorf("after Flush: got %d lines, last %v; want the next record written at once", len(got), got[len(got)-1])
	}
}

// handTimers are timers the test fires by hand, in the order they were set.
type handTimers struct {
	mu sync.Mutex
	fs []func()
}

func (h *handTimers) after(_ time.Duration, f func()) stopper {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fs = append(h.fs, f)
	return handTimer{}
}

// fire runs the oldest timer not yet fired.
func (h *handTimers) fire(t *testing.T) {
	t.Helper()
	h.mu.Lock()
	if len(h.fs) == 0 {
		h.mu.Unlock()
		t.Fatal("no timer set")
	}
	f := h.fs[0]
	h.fs = h.fs[1:]
	h.mu.Unlock()
	f()
}

type handTimer struct{}

func (handTimer) Stop() bool { return true }

// TestIntervalEndsByItself: an interval that held records writes them as
// one line when it ends, with no Flush, and the next interval opens; one
// that held none closes, so the kind's next record is written at once.
func TestIntervalEndsByItself(t *testing.T) {
	log, h, sink := newLogger(time.Second)
	timers := &handTimers{}
	h.st.after = timers.after
	for i := 0; i < 5; i++ {
		log.Warn("disk full", "n", i)
	}
	timers.fire(t) // the first interval ends: it held four
	log.Warn("disk full", "n", 5)
	log.Warn("disk full", "n", 6)
	timers.fire(t) // the second: two
	timers.fire(t) // the third held none: the kind closes
	log.Warn("disk full", "n", 7)
	type line struct{ n, count int }
	var got []line
	for _, m := range sink.all(t) {
		got = append(got, line{int(m["n"].(float64)), count(m)})
	}
	want := []line{{0, 1}, {4, 4}, {6, 2}, {7, 1}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lines (n, count): got %v, want %v", got, want)
	}
}

// TestNothingLostFromTheCount: under concurrent writers and intervals
// ending meanwhile, the lines of a kind add up to every record logged.
func TestNothingLostFromTheCount(t *testing.T) {
	log, h, sink := newLogger(time.Millisecond)
	const writers, each = 8, 500
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				log.Warn("presence not stored", "w", w, "i", i)
			}
		}()
	}
	wg.Wait()
	h.Flush()
	total := 0
	for _, m := range sink.all(t) {
		total += count(m)
	}
	if total != writers*each {
		t.Errorf("lines count %d records, want %d", total, writers*each)
	}
}
