package presence

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"
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
func benchRoster(n int) []Record {
	rng := rand.New(rand.NewSource(int64(n)))
	const brains = 50
	perBrain := max(n/brains, 1)
	worktrees := perBrain/3 + 1
	out := make([]Record, 0, n)
	for i := 0; i < n; i++ {
		b := fmt.Sprintf("/home/dev/brain-%02d", i%brains)
		agent := fmt.Sprintf("agent-%d", i)
		r := Record{Schema: Schema, PresenceID: ID(agent, b), AgentID: agent, Brain: b, LastBeatMs: t0}
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
func denseRoster(n int) []Record {
	rs := benchRoster(n)
	for i := range rs {
		rs[i].Worktree, rs[i].CallerRoot = "", ""
	}
	return rs
}

func BenchmarkCollisionsIn(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		live := benchRoster(n)
		b.Run(fmt.Sprintf("presences=%d", n), func(b *testing.B) {
			var found int
			b.ReportAllocs()
			for b.Loop() {
				found = len(CollisionsIn("", live))
			}
			b.ReportMetric(float64(found), "collisions")
		})
	}
}

func BenchmarkCollisionsInDense(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		live := denseRoster(n)
		b.Run(fmt.Sprintf("presences=%d", n), func(b *testing.B) {
			var found int
			b.ReportAllocs()
			for b.Loop() {
				found = len(CollisionsIn("", live))
			}
			b.ReportMetric(float64(found), "collisions")
		})
	}
}

// crowdedRoster is n mutating sessions in one worktree of one brain, each
// with a working set in it: n·(n-1)/2 collisions, the shape of a runaway
// swarm (or of a page that forges beats).
func crowdedRoster(n int) []Record {
	out := make([]Record, n)
	for i := range out {
		agent := fmt.Sprintf("agent-%d", i)
		out[i] = Record{Schema: Schema, PresenceID: ID(agent, "/home/dev/shop"), AgentID: agent, Brain: "/home/dev/shop",
			Worktree: "/home/dev/shop", CallerRoot: "/home/dev/shop", WorkingSet: []string{"src", benchDirs[i%len(benchDirs)]},
			LastBeatMs: t0, Mutation: Mutation{ObservedAtMs: t0}}
	}
	return out
}

// BenchmarkCollisionsInCrowded is the derivation a snapshot pays for a
// crowded worktree: the first DefaultMaxCollisions listed, every pair
// counted. It grows with the roster, not with its pairs.
func BenchmarkCollisionsInCrowded(b *testing.B) {
	for _, n := range []int{300, 1000, 10000} {
		live := crowdedRoster(n)
		b.Run(fmt.Sprintf("presences=%d", n), func(b *testing.B) {
			var listed, total int
			b.ReportAllocs()
			for b.Loop() {
				cs, tally := CollisionsWithin("", live, CollisionBound{Max: DefaultMaxCollisions, Degrees: true})
				listed, total = len(cs), tally.Pairs
			}
			b.ReportMetric(float64(listed), "listed")
			b.ReportMetric(float64(total), "collisions")
		})
	}
}

// BenchmarkBeatStored is the beat path when the beat is written: every
// beat declares a new theme, so the throttle writes each at once (a temp
// file written, renamed over the record). It is what a forced write adds
// to a beat's answer.
func BenchmarkBeatStored(b *testing.B) {
	svc, _, _, _ := newTestService(b, Config{})
	ctx := context.Background()
	beat := Beat{AgentID: "claude-7", Brain: "/srv/shop", Worktree: "/srv/shop/wt-1", WorkingSet: []string{"src/a.go", "src/b.go"}}
	i := 0
	for b.Loop() {
		i++
		beat.Theme = fmt.Sprintf("theme %d", i)
		if res, err := svc.Beat(ctx, beat); err != nil || !res.Stored {
			b.Fatalf("beat %d: %+v, %v", i, res, err)
		}
	}
}

// hugeSidecars writes two foreign records on brain, each declaring a
// working set of n entries that overlap the other's and anyone's in
// src/: what once made every mutating beat on that brain compare 4·10⁸
// path pairs (issue 12).
func hugeSidecars(tb testing.TB, dir, brain string, n int) {
	tb.Helper()
	for k, agent := range []string{"sidecar-a", "sidecar-b"} {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = fmt.Sprintf("src/pkg%d/file%d.go", i%200, i+k*n/2)
		}
		r := Record{Schema: Schema, PresenceID: ID(agent, brain), AgentID: agent, Brain: brain, Worktree: brain,
			WorkingSet: ws, Mutation: Mutation{DeclaredIntent: "edit"}, FirstSeenMs: time.Now().UnixMilli(), LastBeatMs: time.Now().UnixMilli()}
		data, err := EncodeRecord(r)
		if err != nil {
			tb.Fatal(err)
		}
		writeRecordFile(tb, dir, r.PresenceID+".json", data)
	}
}

// BenchmarkMutatingBeatBesideHugeSidecars: a mutating beat on a brain
// where two sidecars declare 20,000 working-set entries each. They break
// a beat's limits, so they are skipped at read: the beat costs what any
// beat costs (see TestHugeForeignWorkingSetsAreSkipped).
func BenchmarkMutatingBeatBesideHugeSidecars(b *testing.B) {
	svc, store, _, _ := newTestService(b, Config{Now: time.Now})
	hugeSidecars(b, store.Dir(), "/srv/shop", 20_000)
	startRun(b, svc, RunConfig{})
	untilSnapshot(b, svc, "the sidecars skipped", func(s Snapshot) bool { return s.Skipped == 2 })
	ctx := context.Background()
	beat := Beat{AgentID: "claude-7", Brain: "/srv/shop", Worktree: "/srv/shop", WorkingSet: []string{"src"}, Tool: "Edit"}
	for b.Loop() {
		if _, err := svc.Beat(ctx, beat); err != nil {
			b.Fatal(err)
		}
	}
}
