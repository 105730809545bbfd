package presence_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

func BenchmarkCollisionsIn(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		live := presencetest.BenchRoster(n)
		b.Run(fmt.Sprintf("presences=%d", n), func(b *testing.B) {
			var found int
			b.ReportAllocs()
			for b.Loop() {
				found = len(presencetest.CollisionsIn("", live))
			}
			b.ReportMetric(float64(found), "collisions")
		})
	}
}

func BenchmarkCollisionsInDense(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		live := presencetest.DenseRoster(n)
		b.Run(fmt.Sprintf("presences=%d", n), func(b *testing.B) {
			var found int
			b.ReportAllocs()
			for b.Loop() {
				found = len(presencetest.CollisionsIn("", live))
			}
			b.ReportMetric(float64(found), "collisions")
		})
	}
}

// BenchmarkCollisionsInCrowded is the derivation a snapshot pays for a
// crowded worktree: the first presence.DefaultMaxCollisions listed, every pair
// counted. It grows with the roster, not with its pairs.
func BenchmarkCollisionsInCrowded(b *testing.B) {
	for _, n := range []int{300, 1000, 10000} {
		live := presencetest.CrowdedRoster(n)
		b.Run(fmt.Sprintf("presences=%d", n), func(b *testing.B) {
			var listed, total int
			b.ReportAllocs()
			for b.Loop() {
				cs, tally := presence.CollisionsWithin("", live, time.UnixMilli(presencetest.T0), presence.CollisionBound{Max: presence.DefaultMaxCollisions, Degrees: true})
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
	svc, _, _, _ := newTestService(b, presence.Config{})
	ctx := context.Background()
	beat := presence.Beat{AgentID: "claude-7", Brain: "/srv/shop", Worktree: "/srv/shop/wt-1", WorkingSet: []string{"src/a.go", "src/b.go"}}
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
		r := presence.Record{Schema: presence.Schema, PresenceID: presence.ID(agent, brain), AgentID: agent, Brain: brain, Worktree: brain,
			WorkingSet: ws, Mutation: presence.Mutation{DeclaredIntent: "edit"}, FirstSeenMs: time.Now().UnixMilli(), LastBeatMs: time.Now().UnixMilli()}
		data, err := presence.EncodeRecord(r)
		if err != nil {
			tb.Fatal(err)
		}
		dirstoretest.WriteFile(tb, dir, r.PresenceID+".json", data)
	}
}

// BenchmarkMutatingBeatBesideHugeSidecars: a mutating beat on a brain
// where two sidecars declare 20,000 working-set entries each. They break
// a beat's limits, so they are skipped at read: the beat costs what any
// beat costs (see TestHugeForeignWorkingSetsAreSkipped).
func BenchmarkMutatingBeatBesideHugeSidecars(b *testing.B) {
	svc, store, _, _ := newTestService(b, presence.Config{Now: time.Now})
	hugeSidecars(b, store.Dir(), "/srv/shop", 20_000)
	startRun(b, svc, presence.RunConfig{})
	untilSnapshot(b, svc, "the sidecars skipped", func(s presence.Snapshot) bool { return s.Skipped == 2 })
	ctx := context.Background()
	beat := presence.Beat{AgentID: "claude-7", Brain: "/srv/shop", Worktree: "/srv/shop", WorkingSet: []string{"src"}, Tool: "Edit"}
	for b.Loop() {
		if _, err := svc.Beat(ctx, beat); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBeatThrottledGitList is the beat path when the throttle holds
// the beat, with the record taking git's list from a scanner that has
// none, or 200 files unchanged since the last beat: what carrying git's
// answer adds to a beat (comparing the list, no copy, no write).
func BenchmarkBeatThrottledGitList(b *testing.B) {
	files := make([]string, presence.MaxChanged)
	for i := range files {
		files[i] = fmt.Sprintf("src/pkg%02d/file%03d.go", i/20, i)
	}
	for _, tc := range []struct {
		name string
		git  func(string) (presence.GitChanges, bool)
	}{
		{"no-git", nil},
		{"files=0", func(string) (presence.GitChanges, bool) { return presence.GitChanges{AtMs: 1}, true }},
		{"files=200", func(string) (presence.GitChanges, bool) {
			return presence.GitChanges{Files: files, Total: len(files), AtMs: 1}, true
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			svc, _, _, _ := newTestService(b, presence.Config{})
			beat := presence.Beat{AgentID: "claude-7", Brain: "/srv/shop", Worktree: "/srv/shop/wt-1", Tool: "Edit", Git: tc.git}
			if _, err := svc.Beat(b.Context(), beat); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if res, err := svc.Beat(b.Context(), beat); err != nil || !res.Throttled {
					b.Fatalf("%+v, %v: want the beat held by the throttle", res, err)
				}
			}
		})
	}
}
