package presence

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"
)

// testClock is a settable clock for Config.Now: tests stand on an exact
// millisecond and move it by hand. It is safe for concurrent beats.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock(ms int64) *testClock { return &testClock{t: time.UnixMilli(ms)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// t0 is the epoch millisecond most tests start at (2025-11-30T08:00:00Z).
const t0 = int64(1764489600000)

// FileStore is the sidecar folder store (internal/dirstore) as the
// Service's tests drive it: the real folder, watch and reread. The domain
// does not import its backends, so dirstore_link_test.go, an external test
// file that may, sets OpenFileStore before any test runs.
type FileStore interface {
	Store
	KeyWatcher
	Reclaimer
	Dir() string
	Init() error
}

// OpenFileStore returns a sidecar store over registryRoot, not yet
// initialised (dirstore.New).
var OpenFileStore func(registryRoot string) FileStore

// mustOpenDirStore returns an initialised sidecar store over a fresh temp
// registry root.
func mustOpenDirStore(tb testing.TB) FileStore {
	tb.Helper()
	s := OpenFileStore(tb.TempDir())
	if err := s.Init(); err != nil {
		tb.Fatalf("Init: %v", err)
	}
	return s
}

// writeRecordFile writes raw bytes as <dir>/<name>, as another writer would.
func writeRecordFile(tb testing.TB, dir, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatalf("write %s: %v", p, err)
	}
	return p
}

// readStoredRecord decodes the record file of id straight from disk.
func readStoredRecord(tb testing.TB, s FileStore, id string) Record {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(s.Dir(), id+".json"))
	if err != nil {
		tb.Fatalf("read record %s: %v", id, err)
	}
	r, err := DecodeRecord(data)
	if err != nil {
		tb.Fatalf("decode record %s: %v\n%s", id, err, data)
	}
	return r
}

// newRec builds a record for agent on brain with its stable id, beating at
// t0 and carrying an observed mutation; opts adjust it.
func newRec(agent, brain string, opts ...func(*Record)) Record {
	r := Record{
		Schema:      Schema,
		PresenceID:  ID(agent, brain),
		AgentID:     agent,
		Brain:       brain,
		FirstSeenMs: t0,
		LastBeatMs:  t0,
		QueryCount:  1,
		Mutation:    Mutation{ObservedAtMs: t0},
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func withCallerRoot(p string) func(*Record) { return func(r *Record) { r.CallerRoot = p } }
func withWorktree(p string) func(*Record)   { return func(r *Record) { r.Worktree = p } }
func withWS(ps ...string) func(*Record)     { return func(r *Record) { r.WorkingSet = ps } }
func withIntent(s string) func(*Record) {
	return func(r *Record) { r.Mutation = Mutation{DeclaredIntent: s} }
}
func withNoMutation() func(*Record)       { return func(r *Record) { r.Mutation = Mutation{} } }
func withLastBeat(ms int64) func(*Record) { return func(r *Record) { r.LastBeatMs = ms } }
func withTTL(ms int64) func(*Record)      { return func(r *Record) { r.TTLMs = ms } }

// ids lists the presence ids of records, in order.
func ids(rs []Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.PresenceID
	}
	return out
}

// untilSnapshot waits on Changed tokens until cond holds for a snapshot.
func untilSnapshot(tb testing.TB, svc *Service, what string, cond func(Snapshot) bool) Snapshot {
	tb.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case <-svc.Changed():
		case <-deadline:
			tb.Fatalf("timed out waiting for %s", what)
		}
		snap, err := svc.Snapshot(context.Background())
		if err != nil {
			tb.Fatalf("Snapshot: %v", err)
		}
		if cond(snap) {
			return snap
		}
	}
}

// dirNames lists the folder's entry names, sorted.
func dirNames(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatalf("ReadDir: %v", err)
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}
