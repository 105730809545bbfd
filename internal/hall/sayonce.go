package hall

import (
	"crypto/sha256"
	"strings"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// RemindEvery is how often, at most, a hook answer reminds a presence of
// collisions it was told in full and that have not changed since.
const RemindEvery = 5 * time.Minute

// maxTold bounds the say-once book; past it, the entries untouched for
// longest are dropped (a dropped presence is told in full once more).
const maxTold = 4096

// toldBook is what each presence was last told of its collisions (say it
// once): the signature of the north lines told in full and when it was
// last told anything. It lives in the Hall, keyed by presence id, and
// one lock orders a session's racing hooks: of two that see the same new
// collision, one tells it in full and the other says nothing. A restarted
// Hall starts empty and tells each collision in full once more. The
// zero value is ready.
type toldBook struct {
	mu sync.Mutex
	m  map[string]toldState
}

type toldState struct {
	sig  [sha256.Size]byte // of the north lines told in full; zero: none
	at   time.Time         // when anything was last told
	seen time.Time         // the last hook beat, for the bound
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
	sig := signature(north)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]toldState{}
	}
	t, known := b.m[id]
	if !known && len(b.m) >= maxTold {
		b.evictLocked()
	}
	t.seen = now
	var out contract.Tell
	switch {
	case len(north) == 0:
		t.sig, out = sig, contract.TellNothing
	case !known || t.sig != sig || contested:
		t.sig, t.at, out = sig, now, contract.TellFull
	case now.Sub(t.at) >= RemindEvery:
		t.at, out = now, contract.TellReminder
	default:
		out = contract.TellNothing
	}
	b.m[id] = t
	return out
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
