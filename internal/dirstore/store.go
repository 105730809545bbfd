package dirstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hall-dev/hall/internal/atomicfile"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/safefile"
)

// tempPrefix marks a record set aside (lapse.go) and the files an older
// Hall wrote records through (atomicfile names them now): a reader never
// takes them for records, and boot reclaim removes those a crashed
// writer left, as it removes atomicfile's.
const tempPrefix = ".tmp-"

// Store is the sidecar directory store: <root>/presences/<id>.json, one
// pretty-printed record per file, written to a temp file in the same folder
// and renamed into place.
//
// List remembers what it decoded, keyed by each file's inode, size and
// modification time: a rescan stats every file but reads and decodes only
// the files that changed, so the periodic safety net costs little over a
// large registry. That memory is also a model of the whole folder, which
// Reread keeps current file by file as the watch names them: one outside
// write costs one stat and one read, not a listing.
//
// Records handed out (List, Get, Reread) share their WorkingSet with the
// store's memory: treat them as read-only, as every Record is once made.
type Store struct {
	dir string

	// readMu orders whole scans and rereads: a reread never runs inside
	// a scan, so a scan that began before a change can never overwrite
	// what a reread learned of it.
	readMu sync.Mutex

	mu      sync.Mutex
	decoded map[string]decodedFile // by file name
	// complete is set while decoded holds every record file: after a
	// scan, kept by Upsert, Delete and Reread. Reread answers only then.
	complete bool
	// unsettled holds the version of each file a reread found not
	// decoding and left as it was (see presence.Delta.Unsettled).
	unsettled map[string]fileKey
}

// decodedFile is one file's last decode, and the stat it was taken under.
type decodedFile struct {
	key      fileKey
	rec      presence.Record
	err      error
	repaired bool // the record was brought inside the contract (presence.DecodeRecordRepaired)
}

// fileKey tells one version of a file from another. Writers rename a new
// file into place, so a new version has a new inode (on Windows, where a
// stat has none, a new creation time) even when its size and time match
// the old one.
type fileKey struct {
	ino   uint64
	size  int64
	mtime int64
}

func keyOf(info fs.FileInfo) fileKey {
	return fileKey{ino: identity(info), size: info.Size(), mtime: info.ModTime().UnixNano()}
}

// New returns a store over <registryRoot>/presences. It does not
// touch the disk; call Init to create the folder.
func New(registryRoot string) *Store {
	return &Store{dir: filepath.Join(registryRoot, "presences")}
}

// Dir is the presences folder the store reads and writes.
func (s *Store) Dir() string { return s.dir }

// Init creates the presences folder (and the registry root) when missing.
func (s *Store) Init() error {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return presence.Errorf(presence.EUNAVAILABLE, "create presences folder: %v", err)
	}
	return nil
}

// path is the file of one presence id. Ids are checked so a crafted id can
// never name a file outside the folder.
func (s *Store) path(id string) (string, error) {
	if err := presence.CheckID(id); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, id+".json"), nil
}

// List reads every *.json file in the folder. Other names and directories
// are ignored. Skipped and counted: entries that are not regular files
// (FIFOs, devices, sockets, symlinks: never opened or followed, see
// readRecord), files that do not decode, lack a required field, break a
// beat's limits or exceed presence.MaxRecordBytes, and records filed under
// another name than their own presence_id. A folder that cannot be read is
// an EUNAVAILABLE error; one that cannot be read for want of descriptors
// (EMFILE, ENFILE) is an EBUSY error, and nothing the store remembers
// changes.
func (s *Store) List(ctx context.Context) (presence.Listing, error) {
	slots, err := s.scan(ctx)
	if err != nil {
		return presence.Listing{}, err
	}
	l := presence.Listing{Records: make([]presence.Record, 0, len(slots))}
	for _, sl := range slots {
		if sl.err == nil {
			l.Records = append(l.Records, sl.rec)
			if sl.repaired {
				l.Repaired++
			}
		} else {
			l.Skipped++
		}
	}
	return l, nil
}

// slot is one record file seen by scan.
type slot struct {
	name string
	key  fileKey
	rec  presence.Record
	err  error
	read bool // not in the decode cache: read and decode it
	// repaired: the record was brought inside the contract.
	repaired bool
}

// scan stats every record file, decodes those the cache does not hold in
// their current version, and returns them all (files deleted mid-scan
// left out).
func (s *Store) scan(ctx context.Context) ([]slot, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		if busy(err) {
			return nil, presence.Errorf(presence.EBUSY, "read presences folder: %v", err)
		}
		s.mu.Lock()
		s.complete = false
		s.mu.Unlock()
		return nil, presence.Errorf(presence.EUNAVAILABLE, "read presences folder: %v", err)
	}
	slots := make([]slot, 0, len(entries))
	s.mu.Lock()
	for _, e := range entries {
		if !isRecordName(e.Name()) || e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone since ReadDir: a leave, not a fault
		}
		sl := slot{name: e.Name(), key: keyOf(info)}
		switch d, ok := s.decoded[sl.name]; {
		case ok && d.key == sl.key:
			sl.rec, sl.err, sl.repaired = d.rec, d.err, d.repaired
		case !info.Mode().IsRegular():
			sl.err = notRegular(sl.name, info.Mode()) // never opened
		default:
			sl.read = true
		}
		slots = append(slots, sl)
	}
	s.mu.Unlock()

	// Reading and decoding is most of a start-up over a large registry:
	// spread it over the cores. Each worker fills its own slots.
	var todo []int
	for i := range slots {
		if slots[i].read {
			todo = append(todo, i)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 1+len(todo)/64)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := int(next.Add(1) - 1)
				if n >= len(todo) || ctx.Err() != nil {
					return
				}
				sl := &slots[todo[n]]
				sl.rec, sl.repaired, sl.err = s.readCounted(sl.name, sl.name)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, sl := range slots {
		if busy(sl.err) {
			// Not the file's fault: the listing fails whole, and what
			// the store remembers stays as it was.
			return nil, presence.Errorf(presence.EBUSY, "read %s: %v", sl.name, sl.err)
		}
	}

	kept := slots[:0]
	fresh := make(map[string]decodedFile, len(slots))
	for _, sl := range slots {
		if errors.Is(sl.err, fs.ErrNotExist) {
			continue // deleted between stat and open: a leave, not a fault
		}
		kept = append(kept, sl)
		fresh[sl.name] = decodedFile{key: sl.key, rec: sl.rec, err: sl.err, repaired: sl.repaired}
	}
	s.mu.Lock()
	s.decoded = fresh // forgets files that are gone: memory follows the folder
	s.complete = true
	s.unsettled = nil // a listing takes every file as it is
	s.mu.Unlock()
	return kept, nil
}

// Reread brings the named record files up to date in the store's memory
// of the folder and answers, for every presence id they held before or
// hold now, the record the folder now holds under it (a record is only
// ever taken from the file named for its id). A file whose version
// (inode, size, time) is known is not read again. Names that cannot hold
// a record are ignored, entries that are not regular files are skipped
// unopened. A file that does not decode is left as it was on the first
// look at its version (presence.Delta.Unsettled) and counted skipped on
// the next. It fails, and the caller lists instead, before the first
// scan, when a file cannot be examined, and when the folder is gone: a
// missing file is a leave only while the folder is there. Out of
// descriptors it fails with EBUSY.
func (s *Store) Reread(ctx context.Context, names []string) (presence.Delta, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	s.mu.Lock()
	complete := s.complete
	s.mu.Unlock()
	if !complete {
		return presence.Delta{}, presence.Errorf(presence.EUNAVAILABLE, "reread presences folder: not listed yet")
	}
	type reread struct {
		name string
		d    decodedFile
		gone bool
	}
	rs := make([]reread, 0, len(names))
	missing := false
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return presence.Delta{}, err
		}
		if !isRecordName(name) || baseName(name) != name {
			continue
		}
		info, err := os.Lstat(filepath.Join(s.dir, name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			rs, missing = append(rs, reread{name: name, gone: true}), true
			continue
		case err != nil:
			return presence.Delta{}, presence.Errorf(presence.EUNAVAILABLE, "reread %s: %v", name, err)
		case info.IsDir(): // never a record: a scan passes it by
			rs = append(rs, reread{name: name, gone: true})
			continue
		}
		r := reread{name: name, d: decodedFile{key: keyOf(info)}}
		s.mu.Lock()
		known, ok := s.decoded[name]
		s.mu.Unlock()
		switch {
		case ok && known.key == r.d.key:
			r.d = known
		case !info.Mode().IsRegular():
			r.d.err = notRegular(name, info.Mode()) // never opened
		default:
			r.d.rec, r.d.repaired, r.d.err = s.readCounted(name, name)
			if errors.Is(r.d.err, fs.ErrNotExist) {
				r.gone, missing = true, true
			}
			if busy(r.d.err) {
				return presence.Delta{}, presence.Errorf(presence.EBUSY, "reread %s: %v", name, r.d.err)
			}
		}
		rs = append(rs, r)
	}
	if missing {
		if _, err := os.Stat(s.dir); err != nil {
			return presence.Delta{}, presence.Errorf(presence.EUNAVAILABLE, "read presences folder: %v", err)
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	d := presence.Delta{Touched: make(map[string]*presence.Record, len(rs))}
	for _, r := range rs {
		if !r.gone && r.d.err != nil && !settled(r.d.err) {
			if known, ok := s.decoded[r.name]; !ok || known.key != r.d.key {
				if k, seen := s.unsettled[r.name]; !seen || k != r.d.key {
					if s.unsettled == nil {
						s.unsettled = map[string]fileKey{}
					}
					s.unsettled[r.name] = r.d.key
					d.Unsettled = append(d.Unsettled, r.name)
					continue
				}
			}
		}
		delete(s.unsettled, r.name)
		// A record is only ever read from the file named for its id, so
		// the presence a file is named for is the one it touches (a List
		// by another caller may have taken the change from the memory
		// already: the reread answers for it all the same).
		id := strings.TrimSuffix(r.name, ".json")
		if !presence.ValidID(id) {
			id = "" // holds no record, ever: only the skip count moves
		}
		if r.gone {
			delete(s.decoded, r.name)
		} else {
			s.decoded[r.name] = r.d
		}
		if id == "" {
			continue
		}
		d.Touched[id] = nil
		if !r.gone && r.d.err == nil {
			rec := r.d.rec
			d.Touched[id] = &rec
		}
	}
	// One walk over the memory, no file touched: the skip count.
	for _, f := range s.decoded {
		switch {
		case f.err != nil:
			d.Skipped++
		case f.repaired:
			d.Repaired++
		}
	}
	return d, nil
}

// isRecordName reports whether a folder entry may hold a record.
func isRecordName(name string) bool {
	return strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, tempPrefix) && !strings.HasPrefix(name, ".")
}

// errNotRegular is why an entry that is not a regular file is skipped.
var errNotRegular = errors.New("not a regular file")

// errMisfiled is why a record filed under another name than its own
// presence_id is skipped.
var errMisfiled = errors.New("not filed under its own presence_id")

func notRegular(name string, mode fs.FileMode) error {
	return fmt.Errorf("%s (%s): %w", name, mode.Type(), errNotRegular)
}

// settled reports whether a file's error is final for its version: no
// later look at the same version can find a record in it (a reread need
// not look again, as it does for a file caught mid-write).
func settled(err error) bool {
	return errors.Is(err, errNotRegular) || errors.Is(err, errMisfiled)
}

// busy reports whether err is the process or the system out of file
// descriptors: a moment's want, not the folder's fault.
func busy(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// readRecord reads and decodes the record file name, and only a regular
// file: it is opened without following a symlink (O_NOFOLLOW) and without
// waiting (O_NONBLOCK: a FIFO's open would wait for a writer), and what
// was opened is checked again (fstat) before a byte is read, so an entry
// swapped for a FIFO or a device after the caller looked is never read.
// Symlinks are not followed at all, to a regular file neither: writers
// rename a record into place, none links one, and a link could point the
// Hall at any file it may read. A record must carry the presence_id its
// file is named for (errMisfiled otherwise), so no file can speak for
// another presence, nor outlive its leave.
func (s *Store) readRecord(name string) (presence.Record, error) {
	return s.readFile(name, name)
}

// readFile is readRecord of the file at name that must hold the record
// filed as filedAs (a record set aside under a temp name is read so).
func (s *Store) readFile(name, filedAs string) (presence.Record, error) {
	r, _, err := s.readCounted(name, filedAs)
	return r, err
}

// readCounted is readFile, and whether the record was repaired into the
// contract (presence.DecodeRecordRepaired).
func (s *Store) readCounted(name, filedAs string) (presence.Record, bool, error) {
	p := filepath.Join(s.dir, name)
	f, err := os.OpenFile(p, os.O_RDONLY|safefile.ONoFollow|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return presence.Record{}, false, notRegular(name, fs.ModeSymlink)
	}
	if err != nil {
		return presence.Record{}, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return presence.Record{}, false, fmt.Errorf("stat %s: %w", p, err)
	}
	if !info.Mode().IsRegular() {
		return presence.Record{}, false, notRegular(name, info.Mode())
	}
	data, err := io.ReadAll(io.LimitReader(f, presence.MaxRecordBytes+1))
	if err != nil {
		return presence.Record{}, false, fmt.Errorf("read %s: %w", p, err)
	}
	if len(data) > presence.MaxRecordBytes {
		return presence.Record{}, false, presence.Errorf(presence.ETOOLARGE, "%s is over %d bytes", p, presence.MaxRecordBytes)
	}
	r, repaired, err := presence.DecodeRecordRepaired(data)
	if err != nil {
		return presence.Record{}, false, err
	}
	if r.PresenceID+".json" != filedAs || !presence.ValidID(r.PresenceID) {
		return presence.Record{}, false, fmt.Errorf("%s holds presence_id %.40q: %w", filedAs, r.PresenceID, errMisfiled)
	}
	return r, repaired > 0, nil
}

// Get reads one record by id.
func (s *Store) Get(ctx context.Context, id string) (presence.Record, error) {
	p, err := s.path(id)
	if err != nil {
		return presence.Record{}, err
	}
	info, err := os.Lstat(p)
	if err == nil && !info.Mode().IsRegular() {
		err = notRegular(id+".json", info.Mode()) // never opened
	} else if err == nil {
		var r presence.Record
		if r, err = s.readRecord(id + ".json"); err == nil {
			return r, nil
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return presence.Record{}, presence.Errorf(presence.ENOTFOUND, "no presence %s", id)
	case busy(err):
		return presence.Record{}, presence.Errorf(presence.EBUSY, "read presence %s: %v", id, err)
	default:
		return presence.Record{}, presence.Errorf(presence.EUNAVAILABLE, "read presence %s: %v", id, err)
	}
}

// Upsert writes the record atomically (atomicfile): encode, write a temp
// file in the same folder (.<id>.json.hall-tmp-<random>), rename it over
// the record's file. A reader sees the old record or
// the new one, never half of either, and a killed writer loses nothing it
// renamed. It does not fsync: a record is a few seconds of a live session,
// rewritten by its next beat, and an fsync of the file and the folder
// would cost each written beat several milliseconds (BenchmarkBeatStored;
// docs/reliability.md says what a power loss leaves and the figures).
func (s *Store) Upsert(ctx context.Context, r presence.Record) error {
	p, err := s.path(r.PresenceID)
	if err != nil {
		return err
	}
	data, err := presence.EncodeRecord(r)
	if err != nil {
		return err
	}
	// The temp file's inode, size and time are the record file's after
	// the rename: remembered, the rescan that the write's own watch event
	// triggers finds the file known and does not read it back.
	var written fs.FileInfo
	err = atomicfile.WriteFile(p, data, atomicfile.Options{Perm: 0o644, NoSync: true, Before: func(fi fs.FileInfo) error {
		written = fi
		return nil
	}})
	if err != nil {
		return presence.Errorf(presence.EUNAVAILABLE, "write presence %s: %v", r.PresenceID, err)
	}
	if written != nil {
		s.remember(r.PresenceID+".json", decodedFile{key: keyOf(written), rec: r.Clone()})
	}
	return nil
}

// remember records what a file now holds, as if a scan had decoded it.
func (s *Store) remember(name string, d decodedFile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.decoded == nil {
		s.decoded = map[string]decodedFile{}
	}
	s.decoded[name] = d
}

// Delete removes one record file.
func (s *Store) Delete(ctx context.Context, id string) error {
	p, err := s.path(id)
	if err != nil {
		return err
	}
	err = os.Remove(p)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		s.mu.Lock()
		delete(s.decoded, id+".json")
		s.mu.Unlock()
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return presence.Errorf(presence.ENOTFOUND, "no presence %s", id)
	case err != nil:
		return presence.Errorf(presence.EUNAVAILABLE, "delete presence %s: %v", id, err)
	}
	return nil
}

// staleTempAge is how old a temp file must be before boot reclaim takes it
// for a crashed writer's leftover rather than a write in flight.
const staleTempAge = time.Minute

// Reclaim removes stale records and leftover temp files, as the Hall does at
// boot after an owner restart. Files that do not decode are left alone: they
// may belong to another writer, and they are skipped at read anyway.
func (s *Store) Reclaim(ctx context.Context, nowMs int64) (presence.ReclaimReport, error) {
	var rep presence.ReclaimReport
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return rep, presence.Errorf(presence.EUNAVAILABLE, "read presences folder: %v", err)
	}
	now := time.UnixMilli(nowMs)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tempPrefix) && !atomicfile.IsTemp(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err == nil && now.Sub(info.ModTime()) > staleTempAge && os.Remove(filepath.Join(s.dir, e.Name())) == nil {
			rep.TempFiles++
		}
	}
	// The scan fills the decode cache, so the Hall's first List after boot
	// reads no file twice.
	slots, err := s.scan(ctx)
	if err != nil {
		return rep, err
	}
	for _, sl := range slots {
		if sl.err == nil && sl.rec.Stale(now) && os.Remove(filepath.Join(s.dir, sl.name)) == nil {
			rep.StaleRecords++
			s.mu.Lock()
			delete(s.decoded, sl.name)
			s.mu.Unlock()
		}
	}
	return rep, nil
}
