package dirstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/hall-dev/hall/internal/presence"
)

// Watch watches the presences folder with fsnotify: creates, writes,
// renames and removes of record files call notify. An overflowed event
// queue calls notify too (the caller rescans). When the folder itself is
// removed the watch ends with an error, and the caller rewatches once the
// folder is back.
func (s *Store) Watch(ctx context.Context, notify func()) error {
	return s.WatchKeys(ctx, func(string) { notify() })
}

// WatchKeys is Watch naming the record file each event is about; an
// overflow, the folder going away and the start of the watch are presence.AllKeys.
func (s *Store) WatchKeys(ctx context.Context, notify func(key string)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch presences folder: %w", err)
	}
	defer w.Close()
	if err := w.Add(s.dir); err != nil {
		return presence.Errorf(presence.EUNAVAILABLE, "watch presences folder: %v", err)
	}
	// A change between the caller's last read and Add would be missed:
	// one notify up front closes that gap.
	notify(presence.AllKeys)
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
				notify(presence.AllKeys)
				return presence.Errorf(presence.EUNAVAILABLE, "presences folder %s went away", s.dir)
			}
			if name := baseName(ev.Name); isRecordName(name) {
				notify(name)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return errors.New("watch presences folder: watcher closed")
			}
			notify(presence.AllKeys) // most likely an overflow: the caller rescans
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				continue
			}
			return fmt.Errorf("watch presences folder: %w", err)
		case <-check.C:
			if _, err := os.Stat(s.dir); err != nil {
				notify(presence.AllKeys)
				return presence.Errorf(presence.EUNAVAILABLE, "presences folder %s went away", s.dir)
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
