package stream

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
)

// growingSource is a roster that gains one presence each time the test
// says so: every hub sync after a step is exactly one diff.
type growingSource struct{ n int }

func (s *growingSource) Snapshot(context.Context) (presence.Snapshot, error) {
	live := make([]presence.Record, s.n)
	for i := range live {
		agent := fmt.Sprintf("agent-%d", i)
		live[i] = presence.Record{PresenceID: presence.ID(agent, "/b"), AgentID: agent, Brain: "/b", LastBeatMs: int64(i)}
	}
	return presence.Snapshot{Live: live}, nil
}

func (s *growingSource) Changed() <-chan struct{} { return nil }

// Fuzz shape: a hub that issued fuzzHead diffs and holds the last
// fuzzHistory of them, so a client may resume from seq fuzzHead-fuzzHistory
// (it has every diff after it) up to fuzzHead.
const (
	fuzzHistory = 8
	fuzzHead    = 20
)

// FuzzLastEventID: whatever a reconnecting client sends as Last-Event-ID,
// subscribing never panics, and the hub resumes exactly when the id names
// an event it issued this run that its history still reaches past (in
// decimal, surrounding white space aside), replaying exactly the diffs
// after it in order; any other id (malformed, another run's, too old, not
// yet issued, past uint64) gets a fresh snapshot of the whole roster.
//
// The input is (text, delta, form): form 0 sends text alone; form 1 sends
// text then this run's id for seq fuzzHead+delta; form 2 sends that id
// then text. The hub's base changes every run, so ids are built relative to
// it and the fuzzer can reach the edges of the window.
func FuzzLastEventID(f *testing.F) {
	for _, seed := range []struct {
		text  string
		delta int64
		form  uint8
	}{
		{"", 0, 1},                     // the newest id
		{"", -fuzzHistory, 1},          // the oldest the history reaches past
		{"", -fuzzHistory - 1, 1},      // one too old
		{"", 1, 1},                     // not issued yet
		{"", -fuzzHead, 1},             // the run's first id (its first snapshot)
		{"", -fuzzHead - 1, 1},         // below the run's base: another run
		{"0", 0, 1},                    // a leading zero
		{" \t", -3, 1},                 // white space around
		{"-", 0, 1},                    // a sign
		{"x", 0, 2},                    // trailing junk
		{"\r\n", 0, 2},                 //
		{"", math.MaxInt64, 1},         // wraps past uint64
		{"", math.MinInt64, 1},         //
		{"", 0, 0},                     // nothing
		{"18446744073709551615", 0, 0}, // uint64's max
		{"99999999999999999999999999", 0, 0},
		{"1e3", 0, 0},
		{"0x10", 0, 0},
		{"\u00a012", 0, 0},
	} {
		f.Add(seed.text, seed.delta, seed.form)
	}
	src := &growingSource{}
	h := NewHub(src, Config{History: fuzzHistory})
	ctx := context.Background()
	h.SnapshotCursor(ctx) // the first snapshot: seq 0
	for src.n < fuzzHead {
		src.n++
		if _, cursor, _ := h.SnapshotCursor(ctx); cursor != formatID(h.base, uint64(src.n)) {
			f.Fatalf("cursor after %d diffs: got %s, want %s", src.n, cursor, formatID(h.base, uint64(src.n)))
		}
	}

	f.Fuzz(func(t *testing.T, text string, delta int64, form uint8) {
		id := text
		if form%3 != 0 {
			issued := strconv.FormatUint(h.base+uint64(fuzzHead)+uint64(delta), 10) // wraps, as a forged id may
			if form%3 == 1 {
				id = text + issued
			} else {
				id = issued + text
			}
		}
		s := h.pool.NewStream()
		st, err := h.subscribe(ctx, s, Filter{}, id)
		if err != nil {
			t.Fatalf("subscribe(%q): %v", id, err)
		}
		defer h.drop(s, false)

		seq, want := expectResume(id, h.base)
		if st.resume != want {
			t.Fatalf("Last-Event-ID %q (base %d): got resume %v, want %v", id, h.base, st.resume, want)
		}
		if st.seq != fuzzHead {
			t.Fatalf("Last-Event-ID %q: start at seq %d, want %d", id, st.seq, fuzzHead)
		}
		if !st.resume {
			if len(st.snap.Live) != fuzzHead || st.snapErr != nil {
				t.Fatalf("Last-Event-ID %q: got a snapshot of %d presences (%v), want the whole roster of %d", id, len(st.snap.Live), st.snapErr, fuzzHead)
			}
			return
		}
		if got := len(st.replay); uint64(got) != fuzzHead-seq {
			t.Fatalf("Last-Event-ID %q (seq %d): got %d diffs replayed, want %d", id, seq, got, fuzzHead-seq)
		}
		for i, c := range st.replay {
			if c.seq != seq+1+uint64(i) {
				t.Fatalf("Last-Event-ID %q: replay[%d] is seq %d, want %d", id, i, c.seq, seq+1+uint64(i))
			}
		}
	})
}

// expectResume is the fuzz oracle, written apart from parseID: the id,
// white space trimmed, is a decimal number naming base+seq for a seq the
// hub can resume from.
func expectResume(id string, base uint64) (uint64, bool) {
	id = strings.TrimSpace(id)
	if id == "" || strings.TrimLeft(id, "0123456789") != "" {
		return 0, false
	}
	n, ok := new(big.Int).SetString(id, 10)
	if !ok {
		return 0, false
	}
	seq := n.Sub(n, new(big.Int).SetUint64(base))
	lo, hi := big.NewInt(fuzzHead-fuzzHistory), big.NewInt(fuzzHead)
	if seq.Cmp(lo) < 0 || seq.Cmp(hi) > 0 {
		return 0, false
	}
	return seq.Uint64(), true
}
