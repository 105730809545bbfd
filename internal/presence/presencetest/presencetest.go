// Package presencetest is the domain's test kit: a record builder with
// options, the rosters the benchmarks and equivalence tests draw from, the
// record of the spec's example, the clocks tests stand on, and the
// store-agnostic checks of what a store lists. Every package's tests build
// their records and clocks here.
package presencetest

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/presence"
)

// T0 is the epoch millisecond most tests start at (2025-11-30T08:00:00Z).
const T0 = int64(1764489600000)

// Option adjusts a record Rec builds.
type Option func(*presence.Record)

// Rec builds a record for agent on brain with its stable id, first seen
// and beating at T0, queried once, carrying an observed mutation; opts
// adjust it, in order.
func Rec(agent, brain string, opts ...Option) presence.Record {
	r := presence.Record{
		Schema:      presence.Schema,
		PresenceID:  presence.ID(agent, brain),
		AgentID:     agent,
		Brain:       brain,
		FirstSeenMs: T0,
		LastBeatMs:  T0,
		QueryCount:  1,
		Mutation:    presence.Mutation{ObservedAtMs: T0},
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// CallerRoot sets the caller_root.
func CallerRoot(p string) Option { return func(r *presence.Record) { r.CallerRoot = p } }

// Worktree sets the worktree.
func Worktree(p string) Option { return func(r *presence.Record) { r.Worktree = p } }

// WS sets the working set.
func WS(ps ...string) Option { return func(r *presence.Record) { r.WorkingSet = ps } }

// Touched adds files the Hall observed the presence change, at T0.
func Touched(ps ...string) Option {
	return func(r *presence.Record) {
		for _, p := range ps {
			r.Touched = append(r.Touched, presence.Touch{Path: p, AtMs: T0})
		}
	}
}

// GitChanged makes the record carry git's answer for its worktree, as a
// beat puts it there (Record.Changed): the files, scanned at atMs.
func GitChanged(atMs int64, files ...string) Option {
	return func(r *presence.Record) { r.Changed, r.ChangedTotal, r.ChangedAtMs = files, len(files), atMs }
}

// ID sets the presence_id (a record an older Hall wrote under its old id,
// or another writer's).
func ID(id string) Option { return func(r *presence.Record) { r.PresenceID = id } }

// Parent makes the presence a subagent of the session id.
func Parent(id string) Option { return func(r *presence.Record) { r.ParentPresenceID = id } }

// Theme sets the theme.
func Theme(s string) Option { return func(r *presence.Record) { r.Theme = s } }

// Intent makes the mutation declared only: the intent, nothing observed.
func Intent(s string) Option {
	return func(r *presence.Record) { r.Mutation = presence.Mutation{DeclaredIntent: s} }
}

// Observed makes the mutation observed at ms (a declared intent stays).
func Observed(ms int64) Option {
	return func(r *presence.Record) { r.Mutation.ObservedAtMs = ms }
}

// NoMutation clears the mutation signal.
func NoMutation() Option { return func(r *presence.Record) { r.Mutation = presence.Mutation{} } }

// LastBeat sets the last beat.
func LastBeat(ms int64) Option { return func(r *presence.Record) { r.LastBeatMs = ms } }

// At makes the record first seen and beating at ms, an observed mutation
// observed then.
func At(ms int64) Option {
	return func(r *presence.Record) {
		r.FirstSeenMs, r.LastBeatMs = ms, ms
		if r.Mutation.ObservedAtMs != 0 {
			r.Mutation.ObservedAtMs = ms
		}
	}
}

// TTL sets ttl_ms.
func TTL(ms int64) Option { return func(r *presence.Record) { r.TTLMs = ms } }

// IDs lists the presence ids of records, in order.
func IDs(rs []presence.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.PresenceID
	}
	return out
}

// Encode is presence.EncodeRecord, failing tb on an error.
func Encode(tb testing.TB, r presence.Record) []byte {
	tb.Helper()
	data, err := presence.EncodeRecord(r)
	if err != nil {
		tb.Fatalf("EncodeRecord: %v", err)
	}
	return data
}

// ListedByID is what a whole listing of s says, deduplicated as the
// Service does: the newest copy of each presence (the first listed on a
// tie), and the skip count.
func ListedByID(tb testing.TB, s presence.Store) (map[string]presence.Record, int) {
	tb.Helper()
	l, err := s.List(context.Background())
	if err != nil {
		tb.Fatalf("List: %v", err)
	}
	out := map[string]presence.Record{}
	for _, r := range l.Records {
		if old, ok := out[r.PresenceID]; !ok || r.LastBeatMs > old.LastBeatMs {
			out[r.PresenceID] = r
		}
	}
	return out, l.Skipped
}

// benchDirs is the nested tree working sets are drawn from.
var benchDirs = []string{"src", "src/auth", "src/auth/login.go", "src/authz", "src/checkout", "src/checkout/cart.go",
	"src/api", "src/api/v1", "src/api/v1/users.go", "docs", "docs/readme.md", "go.mod", "internal/db",
	"internal/db/migrations", "cmd/app/main.go", "web/static", "web/views/index.templ", "scripts/ci.sh"}

// BenchRoster builds n live presences over 50 brains shaped like a busy
// owner: every brain has its checkouts (worktrees), about three sessions
// share each one, caller_roots sit at the worktree or below it, working sets
// hold one to four entries of a nested tree, given relative to the worktree
// or absolute, and 80% of the sessions mutate. A few sessions work in the
// brain's own folder without a worktree. Sharing is local, as it is in
// practice, so the collisions grow with the sessions, not their square.
// The same n always builds the same roster, beating at T0.
func BenchRoster(n int) []presence.Record {
	rng := rand.New(rand.NewSource(int64(n)))
	const brains = 50
	perBrain := max(n/brains, 1)
	worktrees := perBrain/3 + 1
	out := make([]presence.Record, 0, n)
	for i := 0; i < n; i++ {
		b := fmt.Sprintf("/home/dev/brain-%02d", i%brains)
		agent := fmt.Sprintf("agent-%d", i)
		r := presence.Record{Schema: presence.Schema, PresenceID: presence.ID(agent, b), AgentID: agent, Brain: b, LastBeatMs: T0}
		base := b
		if rng.Intn(20) == 0 {
			r.CallerRoot = b // in the brain itself: relative entries resolve against it
		} else {
			base = fmt.Sprintf("%s-wt%d", b, rng.Intn(worktrees))
			r.Worktree, r.CallerRoot = base, base
			if rng.Intn(4) == 0 {
				r.CallerRoot = base + "/" + benchDirs[rng.Intn(3)]
			}
		}
		for k := rng.Intn(4) + 1; k > 0; k-- {
			p := benchDirs[rng.Intn(len(benchDirs))]
			if rng.Intn(5) == 0 {
				p = base + "/" + p
			}
			r.WorkingSet = append(r.WorkingSet, p)
		}
		switch rng.Intn(10) {
		case 0, 1:
		case 2:
			r.Mutation.DeclaredIntent = "mutate"
		default:
			r.Mutation.ObservedAtMs = T0
		}
		out = append(out, r)
	}
	return out
}

// DenseRoster is the worst case beside BenchRoster: every session of a
// brain works in the brain itself, so working sets overlap across the whole
// brain and the collisions grow with the square of a brain's roster.
func DenseRoster(n int) []presence.Record {
	rs := BenchRoster(n)
	for i := range rs {
		rs[i].Worktree, rs[i].CallerRoot = "", ""
	}
	return rs
}

// CrowdedRoster is n mutating sessions in one worktree of one brain, each
// with a working set in it: n·(n-1)/2 collisions, the shape of a runaway
// swarm (or of a page that forges beats).
func CrowdedRoster(n int) []presence.Record {
	out := make([]presence.Record, n)
	for i := range out {
		out[i] = Rec(fmt.Sprintf("agent-%d", i), "/home/dev/shop", Worktree("/home/dev/shop"), CallerRoot("/home/dev/shop"),
			WS("src", benchDirs[i%len(benchDirs)]))
		out[i].FirstSeenMs, out[i].QueryCount = 0, 0
	}
	return out
}

// SpecBrain is the brain of the spec's example record.
const SpecBrain = "/home/ana/shop"

// SpecExample is the record as the spec (docs/spec.md) shows it.
const SpecExample = `{
  "schema": "m1nd-presence-v0",
  "presence_id": "prs_3fa94c0e11d2",
  "agent_id": "claude-7",
  "brain": "/home/ana/shop",
  "caller_root": "/home/ana/shop-wt2",
  "kind": "executor",
  "theme": "checkout refactor",
  "worktree": "/home/ana/shop-wt2",
  "working_set": ["src/checkout/", "go.mod"],
  "task_ref": "msn_8c1d2e",
  "mutation": { "observed_at_ms": 1764489600000, "declared_intent": "edit checkout" },
  "first_seen_ms": 1764489000000,
  "last_beat_ms": 1764489655000,
  "query_count": 41,
  "ttl_ms": 120000
}`

// SpecRecord is SpecExample decoded.
func SpecRecord() presence.Record {
	return presence.Record{
		Schema:      presence.Schema,
		PresenceID:  "prs_3fa94c0e11d2",
		AgentID:     "claude-7",
		Brain:       SpecBrain,
		CallerRoot:  "/home/ana/shop-wt2",
		Kind:        "executor",
		Theme:       "checkout refactor",
		Worktree:    "/home/ana/shop-wt2",
		WorkingSet:  []string{"src/checkout/", "go.mod"},
		TaskRef:     "msn_8c1d2e",
		Mutation:    presence.Mutation{ObservedAtMs: 1764489600000, DeclaredIntent: "edit checkout"},
		FirstSeenMs: 1764489000000,
		LastBeatMs:  1764489655000,
		QueryCount:  41,
		TTLMs:       120000,
	}
}

// Clock is a settable clock for presence.Config.Now: tests stand on an
// exact millisecond and move it by hand. It is safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock standing at the epoch millisecond ms.
func NewClock(ms int64) *Clock { return &Clock{t: time.UnixMilli(ms)} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d (back when d is negative).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// OffsetClock is the real clock off by an offset the test moves, as a
// stepped system clock is: time passes, and jumps. Its zero value is the
// real clock.
type OffsetClock struct{ off atomic.Int64 }

// Now is the real time plus the offset.
func (c *OffsetClock) Now() time.Time { return time.Now().Add(time.Duration(c.off.Load())) }

// Jump moves the clock by d (back when d is negative).
func (c *OffsetClock) Jump(d time.Duration) { c.off.Add(int64(d)) }

// CollisionsIn is every collision among the live records on brain (""
// every brain) at T0, with no bound: for a test's small roster only (a
// brain of n records in one place has n·(n-1)/2;
// presence.CollisionsWithin bounds them).
func CollisionsIn(brain string, live []presence.Record) []presence.Collision {
	out, _ := presence.CollisionsWithin(brain, live, time.UnixMilli(T0), presence.CollisionBound{})
	return out
}
