package presence_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
)

// BenchmarkOutsideWriteToSnapshot is the domain's share of the change →
// subscriber latency: another process rewrites one of 1,000 sidecar files,
// the watch hears it, the live loop brings the cache up to date, Changed
// fires, and Snapshot returns the roster with the new record in it (what
// the stream hub does next). Writes are spaced past the live loop's
// coalescing window, as changes after a quiet spell are (the spacing is
// not timed). Run it with
//
//	go test -run '^$' -bench OutsideWriteToSnapshot -benchtime 300x ./internal/presence/
func BenchmarkOutsideWriteToSnapshot(b *testing.B) {
	const n = 1000
	store, recs := dirstoretest.BenchRegistry(b, n)
	svc := presence.NewService(store, presence.Config{})
	startRun(b, svc, presence.RunConfig{})
	untilSnapshot(b, svc, "the roster to load", func(s presence.Snapshot) bool { return len(s.Live) == n })
	ctx := context.Background()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		b.StopTimer()
		time.Sleep(8 * time.Millisecond) // a quiet spell: past the coalescing window
		select {
		case <-svc.Changed(): // drop a token left over
		default:
		}
		r := recs[i%n]
		r.QueryCount = int64(1_000_000 + i)
		i++
		b.StartTimer()
		dirstoretest.WriteOutside(b, store.Dir(), r)
		for {
			<-svc.Changed()
			snap, err := svc.Snapshot(ctx)
			if err != nil {
				b.Fatalf("Snapshot: %v", err)
			}
			if got, ok := snap.Find(r.PresenceID); ok && got.QueryCount == r.QueryCount {
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}

// BenchmarkServiceRefresh is a full refresh of the cache over 1,000
// unchanged files.
func BenchmarkServiceRefresh(b *testing.B) {
	store, _ := dirstoretest.BenchRegistry(b, 1000)
	svc := presence.NewService(store, presence.Config{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Refresh(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServiceSnapshot is a snapshot of 1,000 live presences read from
// the watched cache: unchanged=true between two snapshots nothing changed,
// unchanged=false one record changed (what follows an outside write).
func BenchmarkServiceSnapshot(b *testing.B) {
	for _, unchanged := range []bool{true, false} {
		b.Run(fmt.Sprintf("unchanged=%v", unchanged), func(b *testing.B) {
			store, recs := dirstoretest.BenchRegistry(b, 1000)
			svc := presence.NewService(store, presence.Config{})
			startRun(b, svc, presence.RunConfig{Rescan: time.Hour})
			untilSnapshot(b, svc, "the roster to load", func(s presence.Snapshot) bool { return len(s.Live) == len(recs) })
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if !unchanged {
					r := recs[i%len(recs)]
					r.QueryCount = int64(1_000_000 + i)
					i++
					svc.CacheRecord(r)
				}
				if _, err := svc.Snapshot(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBeatCrowded is one beat of an agent in a crowded worktree (n
// agents, all mutating, n·(n-1)/2 collisions), throttled as most beats
// are: the beat's own cost, its north (its first NorthCap partners and
// its count) included. It grows with the brain's roster, not its pairs.
// snapshot=true adds the Snapshot the stream hub takes after a change:
// the whole brain derived again, bounded at DefaultMaxCollisions.
func BenchmarkBeatCrowded(b *testing.B) {
	for _, n := range []int{300, 1000} {
		for _, snap := range []bool{false, true} {
			b.Run(fmt.Sprintf("agents=%d/snapshot=%v", n, snap), func(b *testing.B) {
				svc := presence.NewService(dirstoretest.Open(b), presence.Config{})
				startRun(b, svc, presence.RunConfig{Rescan: time.Hour})
				ctx := context.Background()
				beat := func(i int) presence.BeatResult {
					res, err := svc.Beat(ctx, presence.Beat{AgentID: fmt.Sprintf("agent-%04d", i%n), Brain: "/home/dev/shop", Worktree: "/home/dev/shop", Tool: "Edit"})
					if err != nil {
						b.Fatal(err)
					}
					return res
				}
				for i := 0; i < n; i++ {
					beat(i)
				}
				b.ReportAllocs()
				i := 0
				var res presence.BeatResult
				for b.Loop() {
					res = beat(i)
					i++
					if snap {
						if _, err := svc.Snapshot(ctx); err != nil {
							b.Fatal(err)
						}
					}
				}
				if res.CollisionsTotal != n-1 || len(res.Collisions) != presence.NorthCap {
					b.Fatalf("north: %d listed of %d, want %d of %d", len(res.Collisions), res.CollisionsTotal, presence.NorthCap, n-1)
				}
			})
		}
	}
}
