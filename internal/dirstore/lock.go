package dirstore

import "github.com/hall-dev/hall/internal/filelock"

// LockName is the advisory lock file a Hall holds in the registry root.
const LockName = filelock.Name

// Lock is a Hall's hold on a registry folder (a filelock.Lock on
// <registry root>/hall.lock), let go by the kernel when the process ends
// however it ends, so a crashed Hall never leaves a folder locked.
//
// The lock is advisory and only tells: two Halls serving one folder both
// work (each reads the other's writes, and writes of one presence meet by
// presence.Merge), but each keeps its own throttle and its own boot
// reclaim, which is rarely what was meant. The second one to start warns,
// naming the first (see TryLock); a viewer Hall started on purpose beside
// another is welcome to ignore it.
type Lock = filelock.Lock

// TryLock takes the lock on registryRoot's folder, without waiting, and
// writes note into the lock file. When another process holds it, it
// returns a nil Lock and what that holder wrote (its note, or "" when it
// wrote none yet). An error means the lock could not be tried at all (the
// root cannot be written): the caller goes on without it.
func TryLock(registryRoot, note string) (*Lock, string, error) {
	return filelock.TryLock(registryRoot, note)
}
