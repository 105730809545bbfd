package presence_test

import (
	"fmt"
	"testing"

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
				found = len(presence.CollisionsIn("", live))
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
				found = len(presence.CollisionsIn("", live))
			}
			b.ReportMetric(float64(found), "collisions")
		})
	}
}
