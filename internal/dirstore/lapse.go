package dirstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/hall-dev/hall/internal/presence"
)

// setAside numbers the temp names RemoveLapsed moves records to.
var setAside atomic.Uint64

// RemoveLapsed removes id's record only while the file holds a beat
// no newer than lastBeatMs (presence.LapseRemover): what the live loop
// calls to reclaim a lapsed record while the Hall runs. A plain remove
// after a look could take a record its agent rewrote in between, so the
// file is first renamed aside (atomic: a writer's rename after it makes a
// new file), read there, and removed only if it is the lapsed one; a newer
// one is linked back, unless a newer still was written meanwhile (the link
// fails, and that one stands). An absent or undecodable file is left
// alone: it may be another writer's, and is skipped at read anyway.
func (s *Store) RemoveLapsed(ctx context.Context, id string, lastBeatMs int64) (bool, error) {
	p, err := s.path(id)
	if err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	name := id + ".json"
	aside := tempPrefix + "lapsed-" + id + "-" + strconv.FormatUint(setAside.Add(1), 10)
	ap := filepath.Join(s.dir, aside)
	if err := os.Rename(p, ap); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			s.forget(name)
			return false, nil
		}
		return false, presence.Errorf(presence.EUNAVAILABLE, "reclaim presence %s: %v", id, err)
	}
	r, err := s.readFile(aside, name)
	if err == nil && r.LastBeatMs <= lastBeatMs {
		if err := os.Remove(ap); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, presence.Errorf(presence.EUNAVAILABLE, "reclaim presence %s: %v", id, err)
		}
		s.forget(name)
		return true, nil
	}
	// Not the lapsed record (or not one at all): back where it was, unless
	// a newer file took the name meanwhile.
	if lerr := os.Link(ap, p); lerr != nil && !errors.Is(lerr, fs.ErrExist) {
		os.Remove(ap)
		return false, presence.Errorf(presence.EUNAVAILABLE, "reclaim presence %s: put back: %v", id, lerr)
	}
	os.Remove(ap)
	return false, nil
}

// forget drops a file from the decode memory.
func (s *Store) forget(name string) {
	s.mu.Lock()
	delete(s.decoded, name)
	s.mu.Unlock()
}
