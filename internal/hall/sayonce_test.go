package hall

import (
	"slices"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/shellguard"
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

// TestOwnersOnce holds the ownership lines to their rule: told when the
// owners or their files change, again OwnersEvery after, never where only
// the person reads them.
func TestOwnersOnce(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	var none [32]byte
	a, b := [32]byte{1}, [32]byte{2}
	var book toldBook
	for i, step := range []struct {
		at    time.Duration
		sig   [32]byte
		heard bool
		want  bool
	}{
		{0, a, false, true},                          // person only: said, not recorded
		{time.Second, a, true, true},                 // the start: told
		{2 * time.Second, a, true, false},            // the first prompt: the same owners
		{time.Minute, b, true, true},                 // another file: told
		{2 * time.Minute, b, true, false},            // the same
		{2*time.Minute + OwnersEvery, b, true, true}, // long after: told again
		{3*time.Minute + OwnersEvery, none, true, false},
		{4*time.Minute + OwnersEvery, b, true, true}, // gone and back: told
	} {
		if got := book.owners("prs_000000000001", step.sig, t0.Add(step.at), step.heard); got != step.want {
			t.Errorf("step %d: told %v, want %v", i, got, step.want)
		}
	}
}

// TestHeldForTheModel: what a person-only answer said waits for the
// model's next heard answer, once, the last maxHeldCommands commands; it
// records nothing as told.
func TestHeldForTheModel(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	one := []string{"collision: codex-2 (prs_000000000002) also mutating at /shop [worktree]"}
	var b toldBook
	const id = "prs_000000000001"
	for i := range maxHeldCommands + 1 {
		got, held := b.answer(id, one, i == 0, []string{"shell guard: line " + string(rune('a'+i))}, false, t0)
		if got != contract.TellFull || held != nil {
			t.Errorf("person-only answer %d: %s %q; want full (nothing was told) and nothing held out", i, got, held)
		}
	}
	got, held := b.answer(id, one, false, []string{"shell guard: now"}, true, t0)
	want := []string{heldHeader}
	for i := 1; i <= maxHeldCommands; i++ {
		want = append(want, "shell guard: line "+string(rune('a'+i)))
	}
	if !slices.Equal(held, want) || got != contract.TellFull {
		t.Errorf("heard: %s, held %q; want full and %q", got, held, want)
	}
	// Told now: the same collision, not contested, says nothing; nothing
	// is held any more.
	if got, held := b.answer(id, one, false, nil, true, t0); got != contract.TellNothing || held != nil {
		t.Errorf("heard again: %s %q; want nothing", got, held)
	}
	// A contested edit only the person heard tells the model in full next.
	b.answer(id, one, true, nil, false, t0)
	if got, _ := b.answer(id, one, false, nil, true, t0); got != contract.TellFull {
		t.Errorf("after a contested edit told to the person: %s, want full", got)
	}
}

// TestHeldFitsItsBound: the held lines, a heading and the guard's lines
// of maxHeldCommands commands, fit the wire's bound.
func TestHeldFitsItsBound(t *testing.T) {
	if maxHeldCommands < 1 || 1+maxHeldCommands*shellguard.MaxLines > contract.MaxHeld {
		t.Errorf("%d commands of %d lines and a heading; bound %d", maxHeldCommands, shellguard.MaxLines, contract.MaxHeld)
	}
}
