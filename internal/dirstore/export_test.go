package dirstore

import "github.com/hall-dev/hall/internal/presence"

// For the external tests (package dirstore_test): the name prefix of a
// file being written, to play a writer caught mid-write, and why an entry
// that is not a regular file is skipped.
const TempPrefix = tempPrefix

var ErrNotRegular = errNotRegular

// ReadRecord is the store's read of one file by name, checking what it
// opened.
func (s *Store) ReadRecord(name string) (presence.Record, error) { return s.readRecord(name) }
