package presence

import "context"

// Watcher is a Store that can tell when its content may have changed, so a
// live view re-reads on change rather than on a timer. notify is called
// from the watcher's goroutine and must not block; Watch returns when ctx
// ends or the watch breaks (the caller falls back to rescans and retries).
type Watcher interface {
	Watch(ctx context.Context, notify func()) error
}

// KeyWatcher is a Watcher that also says where the content changed, so a
// live view re-reads only that: one file of a folder of thousands.
//
// WatchKeys is Watch, but notify is given the key of each entry that may
// have changed (a sidecar store's file name), or AllKeys when anything may have
// (the watch started or lost events, the store went away). Reread brings
// the entries of the keys notified up to date and answers with what they
// now hold (see Delta). It is only meaningful under a running WatchKeys
// after a List: it answers from what the store already knows of every
// other entry. Any error means "list the whole store instead"; the caller
// does, and learns from that List whether the store is really unreadable.
type KeyWatcher interface {
	Watcher
	WatchKeys(ctx context.Context, notify func(key string)) error
	Reread(ctx context.Context, keys []string) (Delta, error)
}

// AllKeys is the key a KeyWatcher notifies when anything may have changed.
const AllKeys = ""

// Delta is what a Reread found. Touched holds every presence id that the
// reread entries held before or hold now; for each, the record the store
// now holds under it (the newest copy, when several entries hold one, as
// the caller of List would pick) or nil when it holds none any more.
// Skipped is the store's whole skip count now, as List would report it.
//
// Unsettled names entries that did not decode on this first look, and are
// taken as they were until they are looked at again: a file written in
// place is empty or half-written for an instant after its first event,
// and a reread follows events closely enough to see it. The caller
// rereads them a moment later; an entry seen again in the same state
// counts as skipped then.
type Delta struct {
	Touched   map[string]*Record
	Skipped   int
	Repaired  int // the store's whole count of repaired records now (Listing.Repaired)
	Unsettled []string
}
