package presence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"
)

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
// have changed (a DirStore's file name), or AllKeys when anything may have
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
	Unsettled []string
}

// Watch watches the presences folder with fsnotify: creates, writes,
// renames and removes of record files call notify. An overflowed event
// queue calls notify too (the caller rescans). When the folder itself is
// removed the watch ends with an error, and the caller rewatches once the
// folder is back.
func (s *DirStore) Watch(ctx context.Context, notify func()) error {
	return s.WatchKeys(ctx, func(string) { notify() })
}

// WatchKeys is Watch naming the record file each event is about; an
// overflow, the folder going away and the start of the watch are AllKeys.
func (s *DirStore) WatchKeys(ctx context.Context, notify func(key string)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch presences folder: %w", err)
	}
	defer w.Close()
	if err := w.Add(s.dir); err != nil {
		return Errorf(EUNAVAILABLE, "watch presences folder: %v", err)
	}
	// A change between the caller's last read and Add would be missed:
	// one notify up front closes that gap.
	notify(AllKeys)
	// fsnotify says nothing when the watched folder is deleted on some
	// systems: look for ourselves now and then.
	check := time.NewTicker(watchCheck)
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("watch presences folder: watcher closed")
			}
			if ev.Name == s.dir && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				notify(AllKeys)
				return Errorf(EUNAVAILABLE, "presences folder %s went away", s.dir)
			}
			if name := baseName(ev.Name); isRecordName(name) {
				notify(name)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("watch presences folder: watcher closed")
			}
			notify(AllKeys) // most likely an overflow: the caller rescans
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				continue
			}
			return fmt.Errorf("watch presences folder: %w", err)
		case <-check.C:
			if _, err := os.Stat(s.dir); err != nil {
				notify(AllKeys)
				return Errorf(EUNAVAILABLE, "presences folder %s went away", s.dir)
			}
		}
	}
}

// watchCheck is how often Watch checks that its folder still exists.
const watchCheck = 2 * time.Second

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if os.IsPathSeparator(p[i]) {
			return p[i+1:]
		}
	}
	return p
}
