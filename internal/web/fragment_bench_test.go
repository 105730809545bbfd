package web

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// BenchmarkHallRegions renders every region the live page fetches, as a
// new cursor does once, over n presences on 50 brains, pairs sharing a
// worktree: go test -run '^$' -bench HallRegions -benchmem ./internal/web/
func BenchmarkHallRegions(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			store := dirstoretest.Open(b)
			ctx := context.Background()
			now := time.Now().UnixMilli()
			for i := range n {
				brain := fmt.Sprintf("/bench/brain-%02d", i%50)
				agent := fmt.Sprintf("agent-%05d", i)
				r := presencetest.Rec(agent, brain, presencetest.Worktree(fmt.Sprintf("%s/wt-%04d", brain, i/2/50)),
					presencetest.Theme(fmt.Sprintf("task %d", i)), presencetest.At(now), presencetest.TTL(3_600_000))
				r.Kind = "executor"
				if err := store.Upsert(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
			svc := presence.NewService(store, presence.Config{Logger: slog.New(slog.DiscardHandler), TTL: time.Hour})
			h := &Handler{App: &hall.Hall{Service: svc}, Log: slog.New(slog.DiscardHandler)}
			snap, err := svc.Snapshot(ctx)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := renderRegions(ctx, h.hallModel(hall.View{Snap: snap}, false), hallRegions); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
