package metrics_test

import (
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/metrics"
	"github.com/hall-dev/hall/internal/presence"
)

// BenchmarkObserveSince is what the hub adds to each diff it fans out, and
// the service to each store read: two clock reads and a histogram's
// Observe.
//
//	go test -run '^$' -bench ObserveSince ./internal/metrics/
func BenchmarkObserveSince(b *testing.B) {
	h := metrics.New().FanoutTime
	for b.Loop() {
		presence.ObserveSince(h, time.Now())
	}
}
