package hall

import (
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// TestTell holds say-it-once to its rule, step by step on one presence.
func TestTell(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	one := []string{"collision: codex-2 (prs_000000000002) also mutating at /shop [worktree]"}
	two := append([]string{"collision: cursor-3 (prs_000000000003) also mutating at /shop [worktree]"}, one...)
	var b toldBook
	for i, step := range []struct {
		at        time.Duration
		north     []string
		contested bool
		want      contract.Tell
	}{
		{0, nil, false, contract.TellNothing},                          // no collision: nothing
		{time.Second, one, false, contract.TellFull},                   // a new one: in full
		{2 * time.Second, one, false, contract.TellNothing},            // the same: nothing
		{time.Minute, one, false, contract.TellNothing},                // still within RemindEvery
		{time.Minute, one, true, contract.TellFull},                    // about to change a contested file: in full
		{time.Minute + RemindEvery, one, false, contract.TellReminder}, // a while later: one line
		{time.Minute + RemindEvery + time.Second, one, false, contract.TellNothing},
		{2*time.Minute + RemindEvery, two, false, contract.TellFull}, // a partner joined: in full
		{3*time.Minute + RemindEvery, one, false, contract.TellFull}, // one left: the set changed
		{4*time.Minute + RemindEvery, nil, false, contract.TellNothing},
		{5*time.Minute + RemindEvery, one, false, contract.TellFull}, // back again: in full
	} {
		if got := b.tell("prs_000000000001", step.north, step.contested, t0.Add(step.at)); got != step.want {
			t.Errorf("step %d: got %s, want %s", i, got, step.want)
		}
	}
	// Another presence has its own state.
	if got := b.tell("prs_000000000009", one, false, t0); got != contract.TellFull {
		t.Errorf("another presence: got %s, want full", got)
	}
}

// TestToldBookBound: the book never holds more than maxTold presences.
func TestToldBookBound(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	var b toldBook
	one := []string{"collision: x"}
	for i := range 3 * maxTold {
		b.tell(string(rune('a'+i%26))+time.Duration(i).String(), one, false, t0.Add(time.Duration(i)*time.Millisecond))
		if n := len(b.m); n > maxTold {
			t.Fatalf("after %d presences the book holds %d, bound %d", i+1, n, maxTold)
		}
	}
}
