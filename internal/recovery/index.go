package recovery

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"time"
)

// indexed is what the store keeps in memory of one recorded snapshot:
// enough to choose it (List's filter), order it, bound the store by it
// (count, bytes, age) and borrow from it; its record is decoded only
// when it is answered.
type indexed struct {
	id, worktree, agent, presence string
	kind, tree                    string
	taken                         time.Time
	bytes                         int64
	bad                           bool // its record did not decode: never listed, left to Prune's sweep
}

func indexOf(snap Snapshot) indexed {
	return indexed{id: snap.ID, worktree: snap.Worktree, agent: snap.Agent, presence: snap.Presence,
		kind: snap.Trigger.Kind, tree: snap.Tree, taken: snap.Taken, bytes: snap.Bytes}
}

// racyIndex is how long after a change of the store's directory its
// index is read again anyway: a directory's modification time may not
// move for a second change within the same tick (git's "racily clean"
// index entries, the same rule).
const racyIndex = 2 * time.Second

// index is the store's records in memory, oldest first, keyed by the
// generation of the store's directory it was read at (the directory's
// modification time): another process (hall restore, a second Hall)
// that records or drops a snapshot changes the directory, and the next
// read lists it again, decoding only the records it does not know. A
// list is then O(limit) records decoded, however many the store holds.
type index struct {
	mu     sync.Mutex
	byID   map[string]indexed
	ids    []string // sorted: ids sort by time taken
	gen    time.Time
	synced time.Time // when gen was read (wall clock)
	valid  bool
}

// fresh tells whether the index still stands for the directory: its
// generation unchanged, and read long enough after it changed.
func (x *index) fresh(dir string) bool {
	if !x.valid || x.synced.Sub(x.gen) < racyIndex {
		return false
	}
	info, err := os.Stat(dir)
	return err == nil && info.ModTime().Equal(x.gen)
}

// syncLocked reads the directory again: records it does not know are
// decoded (read), those gone forgotten.
func (s *Store) syncIndexLocked() error {
	x := &s.idx
	info, err := os.Stat(s.dir)
	if err != nil {
		return fmt.Errorf("recovery store: %w", err)
	}
	gen, synced := info.ModTime(), time.Now()
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("recovery store: %w", err)
	}
	if x.byID == nil {
		x.byID = map[string]indexed{}
	}
	seen := make(map[string]bool, len(entries))
	ids := x.ids[:0]
	for _, e := range entries {
		if !e.IsDir() || !validID(e.Name()) {
			continue
		}
		id := e.Name()
		seen[id] = true
		ids = append(ids, id)
		if _, ok := x.byID[id]; ok {
			continue
		}
		snap, err := s.read(id)
		if err != nil {
			x.byID[id] = indexed{id: id, bad: true} // half written or damaged: Prune's sweep takes it
			continue
		}
		x.byID[id] = indexOf(snap)
	}
	for id := range x.byID {
		if !seen[id] {
			delete(x.byID, id)
		}
	}
	slices.Sort(ids) // os.ReadDir sorts by name already; kept explicit
	x.ids, x.gen, x.synced, x.valid = ids, gen, synced, true
	return nil
}

// indexLocked brings the index up to date where it may not be; s.idx.mu
// held.
func (s *Store) indexLocked() error {
	if s.idx.fresh(s.dir) {
		return nil
	}
	return s.syncIndexLocked()
}

// recorded adds a snapshot this store just recorded to its index.
func (s *Store) recorded(snap Snapshot) {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.byID == nil {
		x.byID = map[string]indexed{}
	}
	if _, ok := x.byID[snap.ID]; !ok {
		i, _ := slices.BinarySearch(x.ids, snap.ID)
		x.ids = slices.Insert(x.ids, i, snap.ID)
	}
	x.byID[snap.ID] = indexOf(snap)
	x.valid = false // the directory changed: read it again before trusting it
}

// forgetLocked drops an id from the index; s.idx.mu held.
func (x *index) forgetLocked(id string) {
	delete(x.byID, id)
	if i, ok := slices.BinarySearch(x.ids, id); ok {
		x.ids = slices.Delete(x.ids, i, i+1)
	}
	x.valid = false
}

// listIndexed chooses, newest first, the ids of the recorded snapshots
// f's filter matches, at most limit, and counts the rest: no record is
// decoded.
func (s *Store) listIndexed(f Filter, wt string, limit int) ([]string, int, error) {
	x := &s.idx
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := s.indexLocked(); err != nil {
		return nil, 0, err
	}
	var ids []string
	left := 0
	for i := len(x.ids) - 1; i >= 0; i-- {
		e := x.byID[x.ids[i]]
		if e.bad || wt != "" && e.worktree != wt || f.Agent != "" && e.agent != f.Agent && e.presence != f.Agent {
			continue
		}
		if len(ids) == limit {
			left++
			continue
		}
		ids = append(ids, e.id)
	}
	return ids, left, nil
}
