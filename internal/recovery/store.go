package recovery

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hall-dev/hall/internal/atomicfile"
	"github.com/hall-dev/hall/internal/gitscan"
)

// Store keeps snapshots in a directory the Hall owns (mode 0700), one
// directory per snapshot: <dir>/<id>/objects (a git object directory
// holding what the snapshot added to the repository's objects) and
// <dir>/<id>/snapshot.json (its record, mode 0600). Safe for concurrent
// use.
type Store struct {
	dir string
	run *gitscan.Runner
	lim Limits
	now func() time.Time

	mu      sync.Mutex
	lastID  string                // the last id handed out, for ids that never repeat
	scans   map[string][]scanKept // the scan snapshots kept of each worktree, oldest first
	pending map[string]*finishing // snapshots taken whose record is being finished (Take)
	wg      sync.WaitGroup        // the finishing goroutines
	newest  map[string]string     // the newest finished snapshot of each worktree, which the next one borrows from
	lent    map[string]int        // snapshots being finished that borrow from each snapshot, never dropped meanwhile
	failed  failures              // why the records Take could not finish failed (failed.go)

	idx     index        // the recorded snapshots, in memory (index.go)
	decodes atomic.Int64 // records decoded (read): a test's measure of List's cost
	hashed  atomic.Int64 // worktree bytes Diff hashed: a test's measure of its cost

	hold     func()               // tests only: called as a begun snapshot's finishing starts
	borrowed func(objects string) // tests only: called once a loan is taken, before the objects are written
}

// finishing is a snapshot Take answered for whose record is still being
// written: done closes when it is, err then says whether it failed.
type finishing struct {
	worktree string // the worktree's top, as its record has it
	tmp      string // its directory while finished (<id>.tmp)
	lender   string // the snapshot it borrows from, "" none
	done     chan struct{}
	err      error
}

// recordName is a snapshot's record in its directory.
const recordName = "snapshot.json"

// Open opens (creating, mode 0700) the store in dir, usually
// <registry-root>/recovery, and prunes it to lim. now is the clock (nil:
// time.Now). run may be nil for a store only listed and pruned.
func Open(ctx context.Context, dir string, run *gitscan.Runner, lim Limits, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	if lim.MaxAge <= 0 {
		lim.MaxAge = DefaultMaxAge
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultMaxBytes
	}
	if lim.MaxCount <= 0 {
		lim.MaxCount = DefaultMaxCount
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recovery store %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recovery store %s: %w", dir, err)
	}
	s := &Store{dir: dir, run: run, lim: lim, now: now, scans: map[string][]scanKept{}, pending: map[string]*finishing{}, newest: map[string]string{}, lent: map[string]int{}}
	s.finishOrphans(ctx)
	if _, err := s.Prune(ctx); err != nil {
		return nil, err
	}
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	if err := s.indexLocked(); err != nil {
		return nil, err
	}
	for _, id := range s.idx.ids {
		e := s.idx.byID[id]
		if e.bad {
			continue
		}
		s.newest[e.worktree] = e.id
		if e.kind == TriggerScan {
			s.scans[e.worktree] = append(s.scans[e.worktree], scanKept{id: e.id, tree: e.tree})
		}
	}
	return s, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// newID is a snapshot id: the time taken in milliseconds (base 36, fixed
// width, so ids sort by time) and 4 random hex digits; never the same as
// the last one handed out.
func (s *Store) newID(t time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	ms := strconv.FormatInt(t.UnixMilli(), 36)
	id := strings.Repeat("0", max(0, 9-len(ms))) + ms + hex.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if id <= s.lastID {
		id = s.lastID[:9] + hex.EncodeToString(b[:]) // same millisecond: order by the random part is not enough
		for id <= s.lastID {
			b[1]++
			if b[1] == 0 {
				b[0]++
			}
			id = s.lastID[:9] + hex.EncodeToString(b[:])
		}
	}
	s.lastID = id
	return id
}

// validID tells an id the store could have handed out: no path in it.
func validID(id string) bool {
	if len(id) != 13 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// Save snapshots the request's worktree within ctx's deadline: the
// working tree as git add -A would stage it, into the snapshot's own
// object directory. A snapshot past the deadline fails with a gitscan
// Timeout and leaves nothing behind. It answers the whole record (Take
// answers sooner).
func (s *Store) Save(ctx context.Context, req SaveRequest) (Snapshot, error) {
	b, err := s.beginWorktree(ctx, req)
	if err != nil {
		return Snapshot{}, err
	}
	return s.finishBegun(ctx, b, req.Paths)
}

// beginWorktree begins a snapshot of req's working tree as Save and Take
// take it: its files' contents and its tree written (gitscan's
// SnapshotTreeInto), the worktree's newest snapshot borrowed.
func (s *Store) beginWorktree(ctx context.Context, req SaveRequest) (begun, error) {
	if s.run == nil {
		return begun{}, errors.New("recovery: no git to snapshot with")
	}
	if err := checkWorktree(req.Changes); err != nil {
		return begun{}, err
	}
	b, err := s.begin(ctx, req, true, func(objects string) (gitscan.Snapshot, error) {
		return s.run.SnapshotTreeInto(ctx, req.Worktree, objects)
	})
	if err == nil {
		if err = s.checkSize(ctx, b); err != nil {
			s.giveBack(b.lender)
			os.RemoveAll(b.tmp)
		}
	}
	return b, err
}

// begun is a snapshot begun: its directory (<id>.tmp), its record as its
// taking knows it, the snapshot it borrows from ("" for none) and, when
// that one is still being finished, its finishing.
type begun struct {
	tmp, lender string
	loan        *finishing
	snap        Snapshot
}

// begin begins a snapshot of req's worktree: an id, its directory, the
// worktree's newest snapshot lent to it where borrow, and take, which
// writes its objects into the directory's object directory. A snapshot
// that fails to begin leaves nothing behind and borrows nothing.
func (s *Store) begin(ctx context.Context, req SaveRequest, borrow bool, take func(objects string) (gitscan.Snapshot, error)) (begun, error) {
	taken := s.now()
	id := s.newID(taken)
	b := begun{tmp: filepath.Join(s.dir, id+".tmp")}
	objects := filepath.Join(b.tmp, "objects")
	err := os.MkdirAll(objects, 0o700)
	if err == nil && borrow {
		b.lender, b.loan, err = s.borrow(objects, req.Worktree)
	}
	if err != nil {
		os.RemoveAll(b.tmp)
		return begun{}, fmt.Errorf("recovery: %w", err)
	}
	if b.lender != "" && s.borrowed != nil {
		s.borrowed(objects)
	}
	g, err := take(objects)
	if err != nil && b.lender != "" && gitscan.CodeOf(err) == gitscan.Failed {
		g, err = s.takeUnlent(&b, objects, take)
	}
	if err != nil {
		s.giveBack(b.lender)
		os.RemoveAll(b.tmp)
		return begun{}, fmt.Errorf("recovery: snapshot %s: %w", req.Worktree, err)
	}
	b.snap = Snapshot{
		ID: id, Worktree: g.Top, GitDir: g.GitDir, Head: g.Head, Tree: g.Tree, Commit: g.Commit,
		Taken: taken, Trigger: req.Trigger, Presence: req.Presence, Agent: req.Agent, Brain: req.Brain,
	}
	return b, nil
}

// takeUnlent takes a snapshot whose take failed with a loan once more
// without it. A lender still being finished is named both at <id>.tmp
// and at <id>, and moves from one to the other when recorded: a git
// process that read the loan while the lender was at <id>.tmp alone and
// looks for an object there after the move misses it (git add found the
// file's content there, so write-tree finds the tree's entry nowhere),
// and the snapshot would not be saved though nothing is wrong with the
// worktree. The loan only spares writes: the objects git wrote stay, and
// the retry writes what the lender held (rare, and bounded by the same
// deadline). Retrying keeps the store's layout (one directory per
// snapshot, renamed into place when recorded) that orphans, prune and an
// older hall restore read; keeping lenders at a path that never moves
// would change it.
func (s *Store) takeUnlent(b *begun, objects string, take func(objects string) (gitscan.Snapshot, error)) (gitscan.Snapshot, error) {
	s.giveBack(b.lender)
	b.lender, b.loan = "", nil
	if err := os.Remove(filepath.Join(objects, "info", "alternates")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return gitscan.Snapshot{}, err
	}
	return take(objects)
}

// borrow makes the newest snapshot of the worktree a lender of objects
// to the one being taken into objects (its objects/info/alternates):
// every file and directory unchanged since that snapshot is then found
// there, not written again (on 10,000 files with a hundred edited, git
// add's and write-tree's ~100 ms of new objects become ~10). The newest
// may still be being finished (Take answered for it a moment ago): the
// loan then names its directory both where it is (<id>.tmp) and where
// its finishing moves it, and the borrower's own finishing waits for it
// first (settle). The borrowed snapshot is not dropped until the new
// one, packed, needs it no more (giveBack). It answers the lender's id,
// "" for none, and its finishing while it has one.
func (s *Store) borrow(objects, worktree string) (string, *finishing, error) {
	wt := filepath.Clean(worktree)
	s.mu.Lock()
	lender := s.newest[wt]
	var loan *finishing
	for id, f := range s.pending {
		if f.worktree == wt && id > lender {
			lender, loan = id, f
		}
	}
	if lender != "" {
		s.lent[lender]++
	}
	s.mu.Unlock()
	if lender == "" {
		return "", nil, nil
	}
	lines := filepath.Join(s.dir, lender, "objects") + "\n"
	if loan != nil {
		lines = filepath.Join(s.dir, lender+".tmp", "objects") + "\n" + lines
	}
	if err := writeLoan(objects, lines); err != nil {
		s.giveBack(lender)
		return "", nil, err
	}
	return lender, loan, nil
}

// writeLoan writes the object directory's alternates.
func writeLoan(objects, lines string) error {
	info := filepath.Join(objects, "info")
	if err := os.MkdirAll(info, 0o700); err != nil {
		return err
	}
	// Atomic (settle rewrites it, and a Hall stopped meanwhile leaves it
	// to the next Open), not synced: it serves until the snapshot is
	// packed, and git does not sync the loose objects it names either.
	return atomicfile.WriteFile(filepath.Join(info, "alternates"), []byte(lines), atomicfile.Options{Perm: 0o600, NoSync: true})
}

// finishBegun finishes a snapshot Save or Take began (finish), its loan
// settled first, and ends the loan.
func (s *Store) finishBegun(ctx context.Context, b begun, hint []string) (Snapshot, error) {
	defer s.giveBack(b.lender)
	if s.hold != nil {
		s.hold()
	}
	if err := s.settle(ctx, b); err != nil {
		os.RemoveAll(b.tmp)
		return Snapshot{}, err
	}
	return s.finish(ctx, b.tmp, b.snap, hint, true)
}

// settle waits until the snapshot b borrows from, if it was still being
// finished, is recorded: its objects are then in its own directory, which
// the loan names alone from now on. A lender that could not be recorded
// fails the borrower too: objects it lent may be gone with it.
func (s *Store) settle(ctx context.Context, b begun) error {
	if b.loan == nil {
		return nil
	}
	select {
	case <-b.loan.done:
	case <-ctx.Done():
		return fmt.Errorf("recovery: snapshot %s waits for %s, still being recorded: %w", b.snap.ID, b.lender, ctx.Err())
	}
	if b.loan.err != nil {
		return fmt.Errorf("recovery: snapshot %s borrowed from %s, which could not be recorded: %w", b.snap.ID, b.lender, b.loan.err)
	}
	if err := writeLoan(filepath.Join(b.tmp, "objects"), filepath.Join(s.dir, b.lender, "objects")+"\n"); err != nil {
		return fmt.Errorf("recovery: %w", err)
	}
	return nil
}

// giveBack ends a loan borrow made.
func (s *Store) giveBack(lender string) {
	if lender == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lent[lender]--; s.lent[lender] <= 0 {
		delete(s.lent, lender)
	}
}

// FinishBudget bounds the background half of a snapshot Take answered
// for (its commit, its list of files, its record).
const FinishBudget = 30 * time.Second

// Take snapshots the request's worktree as Save does, but answers as
// soon as the working tree may change: every file's content and the tree
// are in the store (git add -A and git write-tree over a copy of the
// index), HEAD read. The rest (the commit, the list of files, the size,
// the record in place) is finished in the background, where nothing of
// the worktree is read again; until then the snapshot's record holds its
// id, time, trigger, HEAD and tree, and Get, List, Diff and Restore wait
// for it in this process. A Hall that stops before the record is
// finished leaves it to the next Open to finish, at once (orphans.go).
// A hook answer's snapshot is taken so: it waits for no commit-tree,
// diff-tree or record (docs/performance.md).
func (s *Store) Take(ctx context.Context, req SaveRequest) (Snapshot, error) {
	b, err := s.beginWorktree(ctx, req)
	if err != nil {
		return Snapshot{}, err
	}
	// What the next Open needs to finish it, should this Hall stop first,
	// and the lock that tells it whether this Hall did (orphans.go).
	release, err := s.holdTaking(b.snap.ID)
	if err == nil {
		if err = writeRecord(filepath.Join(b.tmp, recordName), b.snap, unsynced); err != nil {
			release()
		}
	}
	if err != nil {
		s.giveBack(b.lender)
		os.RemoveAll(b.tmp)
		return Snapshot{}, fmt.Errorf("recovery: %w", err)
	}
	f := &finishing{worktree: b.snap.Worktree, tmp: b.tmp, lender: b.lender, done: make(chan struct{})}
	s.mu.Lock()
	s.pending[b.snap.ID] = f
	s.mu.Unlock()
	s.wg.Go(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), FinishBudget)
		defer cancel()
		_, f.err = s.finishBegun(ctx, b, req.Paths)
		release()
		s.mu.Lock()
		delete(s.pending, b.snap.ID)
		if f.err != nil {
			s.failed.add(b.snap.ID, f.err)
		}
		s.mu.Unlock()
		close(f.done)
	})
	return b.snap, nil
}

// Wait waits until the snapshot id Take answered for has its whole
// record (at once for any other id), within ctx; it answers why the
// record could not be finished, if it could not, whether asked before
// or after its finishing ended (the newest maxFailedKept failures).
func (s *Store) Wait(ctx context.Context, id string) error {
	s.mu.Lock()
	f := s.pending[id]
	failed := s.failed.why[id]
	s.mu.Unlock()
	if f == nil {
		return failed
	}
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return fmt.Errorf("recovery: snapshot %s still being recorded: %w", id, ctx.Err())
	}
}

// waitAll waits for every record being finished, within ctx.
func (s *Store) waitAll(ctx context.Context) {
	s.mu.Lock()
	ids := make([]string, 0, len(s.pending))
	for id := range s.pending {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		_ = s.Wait(ctx, id)
	}
}

// Close waits for the records Take left to finish, within ctx.
func (s *Store) Close(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("recovery: snapshots still being recorded: %w", ctx.Err())
	}
}

// MaxScanKept is how many of the scanner's snapshots the store keeps of
// one worktree, the newest: recovery points between destructive
// commands, which never crowd the others out.
const MaxScanKept = 10

// Adopt keeps a snapshot the worktree scanner took for merge prediction
// (its objects in the scanner's scratch, which env reads: see
// gitscan.Scratch.Env) as a recovery point, trigger "scan": git
// pack-objects copies into the store what the snapshot adds to its HEAD,
// and nothing else. A snapshot of the same tree as the worktree's last
// adopted one is not kept again (ok false); past MaxScanKept of one
// worktree, its oldest scan snapshot is dropped.
func (s *Store) Adopt(ctx context.Context, g gitscan.Snapshot, env []string) (snap Snapshot, ok bool, err error) {
	if s.run == nil {
		return Snapshot{}, false, errors.New("recovery: no git to snapshot with")
	}
	s.mu.Lock()
	kept := s.scans[g.Top]
	same := len(kept) > 0 && kept[len(kept)-1].tree == g.Tree
	s.mu.Unlock()
	if same {
		return Snapshot{}, false, nil
	}
	req := SaveRequest{Worktree: g.Top, Trigger: Trigger{Kind: TriggerScan}}
	b, err := s.begin(ctx, req, false, func(objects string) (gitscan.Snapshot, error) {
		return g, s.packObjects(ctx, g, env, objects)
	})
	if err == nil {
		snap, err = s.finish(ctx, b.tmp, b.snap, nil, false)
	}
	if err != nil {
		return Snapshot{}, false, err
	}
	s.mu.Lock()
	kept = append(s.scans[g.Top], scanKept{id: snap.ID, tree: g.Tree})
	var drop []string
	for len(kept) > MaxScanKept && s.lent[kept[0].id] == 0 {
		if s.newest[g.Top] == kept[0].id {
			delete(s.newest, g.Top)
		}
		drop = append(drop, kept[0].id)
		kept = kept[1:]
	}
	s.scans[g.Top] = kept
	s.mu.Unlock()
	for _, id := range drop {
		os.RemoveAll(filepath.Join(s.dir, id))
	}
	return snap, true, nil
}

// scanKept is one scan snapshot the store holds of a worktree.
type scanKept struct{ id, tree string }

// finish completes a snapshot whose objects (its tree at least) are in
// tmp/objects: its commit where it has none yet; where pack, what it
// adds to its HEAD packed into tmp/objects alone (so that it needs
// nothing of a snapshot it borrowed from, nor of the repository's loose
// objects, which git's gc prunes once unreachable: a staged file's
// content); the files it changes against HEAD (the hinted paths first),
// its size, its record, and the rename of tmp into place. A snapshot
// that cannot be finished leaves nothing behind.
func (s *Store) finish(ctx context.Context, tmp string, snap Snapshot, hint []string, pack bool) (Snapshot, error) {
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	objects := filepath.Join(tmp, "objects")
	g := gitscan.Snapshot{Head: snap.Head, Tree: snap.Tree, Commit: snap.Commit, Top: snap.Worktree, GitDir: snap.GitDir}
	if g.Commit == "" {
		var err error
		if g, err = s.run.CommitSnapshot(ctx, g, objects); err != nil {
			return Snapshot{}, fmt.Errorf("recovery: snapshot %s: %w", snap.Worktree, err)
		}
		snap.Commit = g.Commit
	}
	changed, err := s.changedFiles(ctx, g, objects)
	if err != nil {
		return Snapshot{}, fmt.Errorf("recovery: snapshot %s: %w", snap.Worktree, err)
	}
	if pack {
		if err := s.pack(ctx, g, objects); err != nil {
			return Snapshot{}, fmt.Errorf("recovery: snapshot %s: %w", snap.Worktree, err)
		}
	}
	changed, snap.Refused = refuseNames(changed)
	snap.Files, snap.FilesLeftOut = fileList(g.Top, changed, hint)
	size, err := dirSize(tmp)
	if err != nil {
		return Snapshot{}, fmt.Errorf("recovery: %w", err)
	}
	snap.Bytes = size
	if err := writeRecord(filepath.Join(tmp, recordName), snap, synced); err != nil {
		return Snapshot{}, err
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, snap.ID)); err != nil {
		return Snapshot{}, fmt.Errorf("recovery: %w", err)
	}
	done = true
	s.mu.Lock()
	if prev := s.newest[snap.Worktree]; prev < snap.ID {
		s.newest[snap.Worktree] = snap.ID
	}
	s.mu.Unlock()
	s.recorded(snap)
	_, _ = s.enforce(snap.ID) // the bounds hold after each record (bounds.go)
	return snap, nil
}

// pack writes what the snapshot g adds to its HEAD as one pack into
// objects (git pack-objects, reading the repository's objects and any
// borrowed snapshot's), then drops the loose objects the pack holds (git
// prune-packed) and the loan (objects/info/alternates).
func (s *Store) pack(ctx context.Context, g gitscan.Snapshot, objects string) error {
	env := gitscan.ObjectsEnv(objects, g.GitDir)
	if err := s.packObjects(ctx, g, env, objects); err != nil {
		return err
	}
	if _, err := s.run.Run(ctx, gitscan.Cmd{Dir: g.Top, Env: env, Args: []string{"prune-packed", "-q"}}); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(objects, "info", "alternates")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// packObjects writes what the snapshot g adds to its HEAD as one pack
// into the object directory into (git pack-objects --revs), its objects
// read where env says.
func (s *Store) packObjects(ctx context.Context, g gitscan.Snapshot, env []string, into string) error {
	if err := os.MkdirAll(filepath.Join(into, "pack"), 0o700); err != nil {
		return err
	}
	revs := g.Commit + "\n"
	if g.Head != "" {
		revs += "^" + g.Head + "\n"
	}
	_, err := s.run.Run(ctx, gitscan.Cmd{Dir: g.Top, Env: env, Stdin: []byte(revs),
		Args: []string{"pack-objects", "--revs", "-q", filepath.Join(into, "pack", "pack")}})
	return err
}

// changed is one path git diff-tree reports between HEAD and a snapshot.
type changed struct {
	path    string
	status  byte   // A, M, D, T
	newMode string // e.g. 100644, 120000
	newBlob string
}

// changedFiles lists what the snapshot's tree changes against its HEAD.
func (s *Store) changedFiles(ctx context.Context, g gitscan.Snapshot, objects string) ([]changed, error) {
	base := g.Head
	if base == "" {
		base = emptyTree(g.Tree) // a branch with no commit yet: every file is new
	}
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: g.Top, Env: gitscan.ObjectsEnv(objects, g.GitDir),
		Args: []string{"diff-tree", "-r", "-z", "--raw", "--no-renames", base, g.Tree}})
	if err != nil {
		return nil, err
	}
	f := bytes.Split(out.Stdout, []byte{0})
	var list []changed
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(f[i]), ":"))
		if len(meta) < 5 || len(meta[4]) == 0 {
			break
		}
		list = append(list, changed{path: string(f[i+1]), status: meta[4][0], newMode: meta[1], newBlob: meta[3]})
	}
	return list, nil
}

// emptyTree is git's id of the empty tree in the hash the tree id like
// uses (SHA-1, or SHA-256's 64 digits).
func emptyTree(like string) string {
	if len(like) == 64 {
		return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	}
	return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
}

// fileList is a snapshot's record of its files: the hinted paths first,
// then the others in git's order, at most MaxFiles, with each file's mode
// on disk.
func fileList(top string, list []changed, hint []string) ([]File, int) {
	first := make(map[string]bool, len(hint))
	for _, p := range hint {
		first[path.Clean(filepath.ToSlash(p))] = true
	}
	slices.SortStableFunc(list, func(a, b changed) int {
		switch {
		case first[a.path] == first[b.path]:
			return 0
		case first[a.path]:
			return -1
		default:
			return 1
		}
	})
	n := min(len(list), MaxFiles)
	files := make([]File, 0, n)
	for _, c := range list[:n] {
		f := File{Path: c.path, Symlink: c.newMode == "120000"}
		switch c.status {
		case 'A':
			f.State = StateAdded
		case 'D':
			f.State = StateDeleted
		case 'T':
			f.State = StateType
		default:
			f.State = StateModified
		}
		if c.status != 'D' {
			if info, err := os.Lstat(filepath.Join(top, filepath.FromSlash(c.path))); err == nil {
				f.Mode = uint32(info.Mode().Perm())
			}
		}
		files = append(files, f)
	}
	return files, len(list) - n
}

// The two ways a record is written (writeRecord).
const (
	// synced: the finished record, on disk before its directory is
	// renamed into place (git syncs the pack it names).
	synced = true
	// unsynced: the first record Take writes, in the hook answer's time.
	// A sync there would cost the answer milliseconds and buy nothing: the
	// loose objects it names are not synced either (git's default), and
	// the finished record replaces it a moment later.
	unsynced = false
)

// writeRecord writes a snapshot's record atomically, mode 0600, synced
// where sync.
func writeRecord(name string, snap Snapshot, sync bool) error {
	b, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return fmt.Errorf("recovery: record: %w", err)
	}
	if err := atomicfile.WriteFile(name, append(b, '\n'), atomicfile.Options{Perm: 0o600, NoSync: !sync}); err != nil {
		return fmt.Errorf("recovery: record: %w", err)
	}
	return nil
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}

// read reads one snapshot's record.
func (s *Store) read(id string) (Snapshot, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, id, recordName))
	if err != nil {
		return Snapshot{}, err
	}
	s.decodes.Add(1)
	var snap Snapshot
	if err := json.Unmarshal(b, &snap); err != nil {
		return Snapshot{}, fmt.Errorf("recovery: record %s: %w", id, err)
	}
	return snap, nil
}

// List returns the snapshots the filter chooses, newest first, and how
// many more it chose past its limit.
func (s *Store) List(ctx context.Context, f Filter) ([]Snapshot, int, error) {
	s.waitAll(ctx)
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	wt := ""
	if f.Worktree != "" {
		wt = filepath.Clean(f.Worktree)
	}
	// Chosen from the index; only the records answered are decoded. One
	// dropped meanwhile is left out.
	ids, left, err := s.listIndexed(f, wt, limit)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Snapshot, 0, len(ids))
	for _, id := range ids {
		if snap, err := s.read(id); err == nil {
			out = append(out, snap)
		}
	}
	return out, left, nil
}

// Get returns one snapshot's record (ErrNotFound when none has that
// id), once finished where Take is still finishing it.
func (s *Store) Get(ctx context.Context, id string) (Snapshot, error) {
	if !validID(id) {
		return Snapshot{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err := s.Wait(ctx, id); err != nil {
		return Snapshot{}, err
	}
	snap, err := s.read(id)
	if errors.Is(err, fs.ErrNotExist) {
		return Snapshot{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return snap, err
}

// Prune drops any half-written snapshot left by a Hall that stopped
// mid-save, and the snapshots past the store's limits (enforce: older
// than MaxAge, then the oldest past MaxCount or while the store is over
// MaxBytes), as each record does too.
func (s *Store) Prune(ctx context.Context) (PruneResult, error) {
	var res PruneResult
	if s.lim.NoPrune {
		return res, nil
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return res, fmt.Errorf("recovery store: %w", err)
	}
	now := s.now()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".tmp") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		switch age := now.Sub(info.ModTime()); {
		case age > orphanAfter && s.finishOrphan(ctx, name):
		case age > time.Hour:
			os.RemoveAll(filepath.Join(s.dir, name))
		}
	}
	return s.enforce("")
}

// Run prunes every DefaultPruneEvery until ctx ends.
func (s *Store) Run(ctx context.Context) {
	t := time.NewTicker(DefaultPruneEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_, _ = s.Prune(ctx)
		}
	}
}
