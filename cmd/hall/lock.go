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
// purpose (a viewer beside the one agents beat) goes on after the warning.
func (m *Main) lockRegistry(startedAt time.Time) {
	if m.StoreKind != storeDir {
		return
	}
	l, holder, err := dirstore.TryLock(m.Config.RegistryRoot, m.lockNote("", startedAt))
	switch {
	case err != nil:
		m.Log.Warn("registry lock not taken: another Hall on this folder would go unnoticed", "err", err)
	case l == nil:
		m.Log.Warn("another Hall serves this registry folder; both will work, each with its own throttle and boot reclaim: stop one unless this one is meant as a second view",
			"folder", m.Config.RegistryRoot, "held_by", holder)
	default:
		m.registryLock = l
	}
}

// lockNote is what the lock file says of this Hall, for the next one to
// name it.
func (m *Main) lockNote(url string, startedAt time.Time) string {
	if url == "" {
		url = "starting"
	}
	return fmt.Sprintf("pid %d, %s, since %s", os.Getpid(), url, startedAt.UTC().Format(time.RFC3339))
}
