package hall

import (
	"crypto/sha256"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/shellguard"
)

// RemindEvery is how often, at most, a hook answer reminds a presence of
// collisions it was told in full and that have not changed since.
const RemindEvery = 5 * time.Minute

// OwnersEvery is how often, at most, a session is told again whose
// uncommitted changes are in its worktree (the ownership lines) while the
// owners and their files stay the same: a session's start and its first
// prompt (Codex's SessionStart and UserPromptSubmit, Gemini CLI's
// SessionStart and BeforeAgent) tell them once; a prompt half an hour on,
// when the lines may have left the model's context, tells them again.
const OwnersEvery = 30 * time.Minute

// maxHeldCommands bounds the guarded commands whose lines wait for the
// model (a person-only answer told them): the oldest go first. Their
// lines and the heading fit contract.MaxHeld.
const maxHeldCommands = (contract.MaxHeld - 1) / shellguard.MaxLines

// heldHeader introduces, at the next event the model hears, the guard's
// lines a person-only answer told before the command ran.
const heldHeader = hook.BeforeRunHeading

// maxTold bounds the say-once book; past it, the entries untouched for
// longest are dropped (a dropped presence is told in full once more).
const maxTold = 4096

// toldBook is what each presence was last told (say it once): the
// signature of the north lines told in full and when it was last told
// anything, the ownership lines told and when, and what an answer only
// the person read said that the model has yet to hear. Only an answer the
// model reads counts as told. It lives in the Hall, keyed by presence id,
// and one lock orders a session's racing hooks: of two that see the same
// new collision, one tells it in full and the other says nothing. A
// restarted Hall starts empty and tells each collision in full once more.
// The zero value is ready.
type toldBook struct {
	mu sync.Mutex
	m  map[string]toldState
}

type toldState struct {
	sig  [sha256.Size]byte // of the north lines told in full; zero: none
	at   time.Time         // when anything was last told
	seen time.Time         // the last hook beat, for the bound
	// owners is the signature of the ownership lines last told (zero:
	// none), ownersAt when.
	owners   [sha256.Size]byte
	ownersAt time.Time
	// held is what person-only answers said that the model has not heard:
	// the guard's lines, one entry per command, and whether a tool was
	// about to change a contested file.
	held          [][]string
	heldContested bool
}

// signature identifies a set of collisions as the north lines name it:
// partners, places, clauses and paths.
func signature(north []string) [sha256.Size]byte {
	if len(north) == 0 {
		return [sha256.Size]byte{}
	}
	return sha256.Sum256([]byte(strings.Join(north, "\n")))
}

// tell decides how much of north the presence id hears now, and records
// it: in full when its collisions changed since it was last told in full,
// or when the tool about to run would change a contested file; a one-line
// reminder when it was last told RemindEvery ago or more; else nothing.
// No collisions: nothing (and the next one is told in full).
func (b *toldBook) tell(id string, north []string, contested bool, now time.Time) contract.Tell {
	out, _ := b.answer(id, north, contested, nil, true, now)
	return out
}

// answer is tell for one hook answer, in one step under the lock. Where
// the model reads it (heard), what earlier answers only the person read
// kept for it comes out first: their guard's lines under heldHeader,
// and a contested edit, which tells north in full. Where only the person
// reads it, nothing is recorded as told (the answer is what tell would
// say, the state unchanged) and the guard's lines of the command about
// to run (the last maxHeldCommands commands) and whether a contested file
// was about to change are kept for the model's next heard answer.
func (b *toldBook) answer(id string, north []string, contested bool, guard []string, heard bool, now time.Time) (contract.Tell, []string) {
	sig := signature(north)
	b.mu.Lock()
	defer b.mu.Unlock()
	t, known := b.entryLocked(id, now)
	var held []string
	if heard {
		if len(t.held) > 0 {
			held = append(held, heldHeader)
			for _, g := range t.held {
				held = append(held, g...)
			}
		}
		contested = contested || t.heldContested
		t.held, t.heldContested = nil, false
	} else {
		if len(guard) > 0 {
			t.held = append(t.held, slices.Clone(guard))
			if n := len(t.held) - maxHeldCommands; n > 0 {
				t.held = slices.Delete(t.held, 0, n)
			}
		}
		t.heldContested = t.heldContested || contested
	}
	var out contract.Tell
	next := t
	switch {
	case len(north) == 0:
		next.sig, out = sig, contract.TellNothing
	case !known || t.sig != sig || contested:
		next.sig, next.at, out = sig, now, contract.TellFull
	case now.Sub(t.at) >= RemindEvery:
		next.at, out = now, contract.TellReminder
	default:
		out = contract.TellNothing
	}
	if heard {
		t = next
	}
	b.m[id] = t
	return out, held
}

// entryLocked is the state of id, seen now, making room for it: whether
// it was known. The caller stores it back.
func (b *toldBook) entryLocked(id string, now time.Time) (toldState, bool) {
	if b.m == nil {
		b.m = map[string]toldState{}
	}
	t, known := b.m[id]
	if !known && len(b.m) >= maxTold {
		b.evictLocked()
	}
	t.seen = now
	return t, known
}

// owners reports whether the presence id hears the ownership lines whose
// owners and files sig signs (zero: there are none), and when heard
// records them told: when they changed since last told, or OwnersEvery
// after. An answer the model does not read tells them (to the person)
// when the model would hear them, and records nothing.
func (b *toldBook) owners(id string, sig [sha256.Size]byte, now time.Time, heard bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, _ := b.entryLocked(id, now)
	var none [sha256.Size]byte
	say := sig != none && (sig != t.owners || now.Sub(t.ownersAt) >= OwnersEvery)
	if heard && (say || sig == none) {
		t.owners, t.ownersAt = sig, now
	}
	b.m[id] = t
	return say
}

// evictLocked drops the entries seen in the oldest quarter of the span
// between the oldest and the newest: at least the oldest one.
func (b *toldBook) evictLocked() {
	var oldest, newest time.Time
	first := true
	for _, t := range b.m {
		if first || t.seen.Before(oldest) {
			oldest = t.seen
		}
		if first || t.seen.After(newest) {
			newest = t.seen
		}
		first = false
	}
	cut := oldest.Add(newest.Sub(oldest) / 4)
	for id, t := range b.m {
		if !t.seen.After(cut) {
			delete(b.m, id)
		}
	}
}

// settle finishes a hook beat's answer out for the presence id
// (toldBook.answer): how much of north to tell and, where the model reads
// the answer (heard), the guard's lines earlier answers only the person
// read said (Held).
func (h *Hall) settle(id string, out *contract.HookSay, north []string, contested, heard bool) *contract.HookSay {
	out.Contested = contested
	out.Collisions, out.Held = h.sayOnce.answer(id, north, contested, out.Guard, heard, h.Service.Now())
	return out
}

// ownersToTell is the ownership lines of the scene for the presence id,
// told once (toldBook.owners): none when the same owners and files were
// told within OwnersEvery. heard: the model reads this answer.
func (h *Hall) ownersToTell(id string, sc scene, heard bool) []string {
	lines := ownershipLines(sc)
	if !h.sayOnce.owners(id, ownersSignature(sc, lines), h.Service.Now(), heard) {
		return nil
	}
	return lines
}

// ownersSignature identifies the ownership lines by what they name: each
// other session with its files still holding uncommitted work, whatever
// git says of their state (a file staged since is no news). Zero when
// there are no lines.
func ownersSignature(sc scene, lines []string) [sha256.Size]byte {
	if len(lines) == 0 {
		return [sha256.Size]byte{}
	}
	var keys []string
	for _, w := range sc.Others {
		for _, f := range liveFiles(w.Files) {
			keys = append(keys, w.AgentID+"\x00"+f.Path)
		}
	}
	slices.Sort(keys)
	return sha256.Sum256([]byte(strings.Join(keys, "\n")))
}
