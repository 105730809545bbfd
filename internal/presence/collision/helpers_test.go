package collision_test

import (
	"fmt"
	"math/rand"

	"github.com/hall-dev/hall/internal/presence"
)

// benchDirs is the nested tree working sets are drawn from.
var benchDirs = []string{"src", "src/auth", "src/auth/login.go", "src/authz", "src/checkout", "src/checkout/cart.go",
	"src/api", "src/api/v1", "src/api/v1/users.go", "docs", "docs/readme.md", "go.mod", "internal/db",
	"internal/db/migrations", "cmd/app/main.go", "web/static", "web/views/index.templ", "scripts/ci.sh"}

// benchRoster builds n live presences over 50 brains shaped like a busy
// owner: every brain has its checkouts (worktrees), about three sessions
// share each one, caller_roots sit at the worktree or below it, working sets
// hold one to four entries of a nested tree, given relative to the worktree
// or absolute, and 80% of the sessions mutate. A few sessions work in the
// brain's own folder without a worktree. Sharing is local, as it is in
// practice, so the collisions grow with the sessions, not their square.
func benchRoster(n int) []presence.Record {
	rng := rand.New(rand.NewSource(int64(n)))
	const brains = 50
	perBrain := max(n/brains, 1)
	worktrees := perBrain/3 + 1
	out := make([]presence.Record, 0, n)
	for i := 0; i < n; i++ {
		b := fmt.Sprintf("/home/dev/brain-%02d", i%brains)
		agent := fmt.Sprintf("agent-%d", i)
		r := presence.Record{Schema: presence.Schema, PresenceID: presence.ID(agent, b), AgentID: agent, Brain: b, LastBeatMs: t0}
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
			r.Mutation.DeclaredIntent = "refactor"
		default:
			r.Mutation.ObservedAtMs = t0
		}
		out = append(out, r)
	}
	return out
}

// denseRoster is the worst case beside it: every session of a brain works
// in the brain itself, so working sets overlap across the whole brain and
// the collisions grow with the square of a brain's roster.
func denseRoster(n int) []presence.Record {
	rs := benchRoster(n)
	for i := range rs {
		rs[i].Worktree, rs[i].CallerRoot = "", ""
	}
	return rs
}

// t0 is the epoch millisecond most tests start at (2025-11-30T08:00:00Z).
const t0 = int64(1764489600000)

// newRec builds a record for agent on brain with its stable id, beating at
// t0 and carrying an observed mutation; opts adjust it.
func newRec(agent, brain string, opts ...func(*presence.Record)) presence.Record {
	r := presence.Record{
		Schema:      presence.Schema,
		PresenceID:  presence.ID(agent, brain),
		AgentID:     agent,
		Brain:       brain,
		FirstSeenMs: t0,
		LastBeatMs:  t0,
		QueryCount:  1,
		Mutation:    presence.Mutation{ObservedAtMs: t0},
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func withCallerRoot(p string) func(*presence.Record) {
	return func(r *presence.Record) { r.CallerRoot = p }
}

func withWorktree(p string) func(*presence.Record) {
	return func(r *presence.Record) { r.Worktree = p }
}

func withWS(ps ...string) func(*presence.Record) {
	return func(r *presence.Record) { r.WorkingSet = ps }
}

func withTouched(ps ...string) func(*presence.Record) {
	return func(r *presence.Record) {
		for _, p := range ps {
			r.Touched = append(r.Touched, presence.Touch{Path: p, AtMs: t0})
		}
	}
}

func withParent(id string) func(*presence.Record) {
	return func(r *presence.Record) { r.ParentPresenceID = id }
}

func withIntent(s string) func(*presence.Record) {
	return func(r *presence.Record) { r.Mutation = presence.Mutation{DeclaredIntent: s} }
}

func withNoMutation() func(*presence.Record) {
	return func(r *presence.Record) { r.Mutation = presence.Mutation{} }
}

func withLastBeat(ms int64) func(*presence.Record) {
	return func(r *presence.Record) { r.LastBeatMs = ms }
}

func withTTL(ms int64) func(*presence.Record) { return func(r *presence.Record) { r.TTLMs = ms } }

// ids lists the presence ids of records, in order.
func ids(rs []presence.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.PresenceID
	}
	return out
}
