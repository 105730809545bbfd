package main

import (
	"fmt"
	"os"
	"time"

	"github.com/hall-dev/hall/internal/dirstore"
)

// lockRegistry takes the registry folder's advisory lock (dirstore.Lock)
// when the store is the folder, and warns when another Hall holds it: two
// Halls on one folder both work, but each keeps its own throttle and boot
// reclaim, which is rarely what was meant. A second Hall started on
// purpose (a viewer beside the one agents beat) goes on after the warning;
// an autostarted one does not (errAnotherHall): one Hall per user and
// registry is what starting one for a client means.
func (m *Main) lockRegistry(startedAt time.Time) error {
	if m.StoreKind != storeDir {
		return nil
	}
	l, holder, err := dirstore.TryLock(m.Config.RegistryRoot, m.lockNote("", startedAt))
	switch {
	case err != nil:
		m.Log.Warn("registry lock not taken: another Hall on this folder would go unnoticed", "err", err)
	case l == nil && m.Config.Autostarted:
		return &anotherHallError{folder: m.Config.RegistryRoot, holder: holder}
	case l == nil:
		m.Log.Warn("another Hall serves this registry folder; both will work, each with its own throttle and boot reclaim: stop one unless this one is meant as a second view",
			"folder", m.Config.RegistryRoot, "held_by", holder)
	default:
		m.registryLock = l
	}
	return nil
}

// anotherHallError is an autostarted Hall that found its registry held:
// it stops, and that is no failure (the other Hall serves).
type anotherHallError struct{ folder, holder string }

func (e *anotherHallError) Error() string {
	return fmt.Sprintf("another Hall serves the registry %s (%s): this autostarted one stops", e.folder, e.holder)
}

// lockNote is what the lock file says of this Hall, for the next one to
// name it.
func (m *Main) lockNote(url string, startedAt time.Time) string {
	if url == "" {
		url = "starting"
	}
	return fmt.Sprintf("pid %d, %s, since %s", os.Getpid(), url, startedAt.UTC().Format(time.RFC3339))
}
