package presence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// MaxRecordBytes bounds one record file. The Hall's own records are a few
// KiB at their field limits; anything larger in the folder is not a record
// and is skipped unread, so a 10 MiB stray file cannot inflate a read.
const MaxRecordBytes = 256 << 10

// tempPrefix marks files being written; a reader never takes them for
// records, and boot reclaim removes those a crashed writer left.
const tempPrefix = ".tmp-"

// DirStore is the sidecar directory store: <root>/presences/<id>.json, one
// pretty-printed record per file, written to a temp file in the same folder
// and renamed into place.
type DirStore struct {
	dir string
}

// NewDirStore returns a store over <registryRoot>/presences. It does not
// touch the disk; call Init to create the folder.
func NewDirStore(registryRoot string) *DirStore {
	return &DirStore{dir: filepath.Join(registryRoot, "presences")}
}

// Dir is the presences folder the store reads and writes.
func (s *DirStore) Dir() string { return s.dir }

// Init creates the presences folder (and the registry root) when missing.
func (s *DirStore) Init() error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return Errorf(EUNAVAILABLE, "create presences folder: %v", err)
	}
	return nil
}

// path is the file of one presence id. Ids are checked so a crafted id can
// never name a file outside the folder.
func (s *DirStore) path(id string) (string, error) {
	if !ValidID(id) {
		return "", Errorf(EINVALID, "presence id %q is not prs_ and 12 lowercase hex digits", id)
	}
	return filepath.Join(s.dir, id+".json"), nil
}

// List reads every *.json file in the folder. Other names are ignored; files
// that do not decode, lack a required field or exceed MaxRecordBytes are
// skipped and counted. A folder that cannot be read is an EUNAVAILABLE error.
func (s *DirStore) List(ctx context.Context) (Listing, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return Listing{}, Errorf(EUNAVAILABLE, "read presences folder: %v", err)
	}
	l := Listing{Records: make([]Record, 0, len(entries))}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return Listing{}, err
		}
		name := e.Name()
		if !isRecordName(name) || e.IsDir() {
			continue
		}
		r, err := s.readFile(filepath.Join(s.dir, name))
		switch {
		case err == nil:
			l.Records = append(l.Records, r)
		case errors.Is(err, fs.ErrNotExist):
			// Deleted between ReadDir and open: a leave, not a fault.
		default:
			l.Skipped++
		}
	}
	return l, nil
}

// isRecordName reports whether a folder entry may hold a record.
func isRecordName(name string) bool {
	return strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, tempPrefix) && !strings.HasPrefix(name, ".")
}

func (s *DirStore) readFile(path string) (Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return Record{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxRecordBytes+1))
	if err != nil {
		return Record{}, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > MaxRecordBytes {
		return Record{}, Errorf(ETOOLARGE, "%s is over %d bytes", path, MaxRecordBytes)
	}
	return DecodeRecord(data)
}

// Get reads one record by id.
func (s *DirStore) Get(ctx context.Context, id string) (Record, error) {
	p, err := s.path(id)
	if err != nil {
		return Record{}, err
	}
	r, err := s.readFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Record{}, Errorf(ENOTFOUND, "no presence %s", id)
	case err != nil:
		return Record{}, Errorf(EUNAVAILABLE, "read presence %s: %v", id, err)
	}
	return r, nil
}

// Upsert writes the record atomically: encode, write a temp file in the same
// folder, sync, rename over the record's file.
func (s *DirStore) Upsert(ctx context.Context, r Record) error {
	p, err := s.path(r.PresenceID)
	if err != nil {
		return err
	}
	data, err := EncodeRecord(r)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.dir, tempPrefix+r.PresenceID+"-*")
	if err != nil {
		return Errorf(EUNAVAILABLE, "write presence %s: %v", r.PresenceID, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return Errorf(EUNAVAILABLE, "write presence %s: %v", r.PresenceID, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return Errorf(EUNAVAILABLE, "write presence %s: %v", r.PresenceID, err)
	}
	if err := tmp.Close(); err != nil {
		return Errorf(EUNAVAILABLE, "write presence %s: %v", r.PresenceID, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		done = true
		return Errorf(EUNAVAILABLE, "write presence %s: %v", r.PresenceID, err)
	}
	done = true
	return nil
}

// Delete removes one record file.
func (s *DirStore) Delete(ctx context.Context, id string) error {
	p, err := s.path(id)
	if err != nil {
		return err
	}
	err = os.Remove(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Errorf(ENOTFOUND, "no presence %s", id)
	case err != nil:
		return Errorf(EUNAVAILABLE, "delete presence %s: %v", id, err)
	}
	return nil
}

// staleTempAge is how old a temp file must be before boot reclaim takes it
// for a crashed writer's leftover rather than a write in flight.
const staleTempAge = time.Minute

// Reclaim removes stale records and leftover temp files, as the Hall does at
// boot after an owner restart. Files that do not decode are left alone: they
// may belong to another writer, and they are skipped at read anyway.
func (s *DirStore) Reclaim(ctx context.Context, nowMs int64) (ReclaimReport, error) {
	var rep ReclaimReport
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return rep, Errorf(EUNAVAILABLE, "read presences folder: %v", err)
	}
	now := time.UnixMilli(nowMs)
	for _, e := range entries {
		name := e.Name()
		full := filepath.Join(s.dir, name)
		switch {
		case strings.HasPrefix(name, tempPrefix):
			info, err := e.Info()
			if err == nil && now.Sub(info.ModTime()) > staleTempAge && os.Remove(full) == nil {
				rep.TempFiles++
			}
		case isRecordName(name):
			r, err := s.readFile(full)
			if err == nil && r.Stale(now) && os.Remove(full) == nil {
				rep.StaleRecords++
			}
		}
	}
	return rep, nil
}
