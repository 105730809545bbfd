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

// Watch watches the presences folder with fsnotify: creates, writes,
// renames and removes of record files call notify. An overflowed event
// queue calls notify too (the caller rescans). When the folder itself is
// removed the watch ends with an error, and the caller rewatches once the
// folder is back.
func (s *DirStore) Watch(ctx context.Context, notify func()) error {
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
	notify()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("watch presences folder: watcher closed")
			}
			if ev.Name == s.dir && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				notify()
				return Errorf(EUNAVAILABLE, "presences folder %s went away", s.dir)
			}
			if isRecordName(baseName(ev.Name)) {
				notify()
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("watch presences folder: watcher closed")
			}
			notify() // most likely an overflow: the caller rescans
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				continue
			}
			return fmt.Errorf("watch presences folder: %w", err)
		case <-time.After(watchCheck):
			// fsnotify says nothing when the watched folder is deleted
			// on some systems; look for ourselves.
			if _, err := os.Stat(s.dir); err != nil {
				notify()
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
