package contract

import (
	"math"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
)

// TestFromRecordForeignStamps: a foreign record with a ttl_ms of any size
// and no first_seen_ms is shown with a ttl of at most a day (and expires
// by then), first seen at its last beat: never "seen 20,788 days ago",
// never a presence kept for centuries.
func TestFromRecordForeignStamps(t *testing.T) {
	const beat = int64(1_764_489_600_000)
	const day = int64(24 * 60 * 60 * 1000)
	tests := []struct {
		name              string
		ttlMs, firstSeen  int64
		wantTTL, wantSeen int64
	}{
		{"ttl near int64 max, first seen absent", math.MaxInt64, 0, day, beat},
		{"ttl a day and a ms, first seen negative", day + 1, -5, day, beat},
		{"ordinary", 120_000, beat - 60_000, 120_000, beat - 60_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := FromRecord(presence.Record{PresenceID: presence.ID("a", "/b"), AgentID: "a", Brain: "/b", LastBeatMs: beat, TTLMs: tt.ttlMs, FirstSeenMs: tt.firstSeen})
			if p.TTLMs != tt.wantTTL || p.ExpiresAtMs != beat+tt.wantTTL || p.FirstSeenMs != tt.wantSeen {
				t.Errorf("ttl_ms %d, expires_at_ms %d, first_seen_ms %d; want %d, %d, %d",
					p.TTLMs, p.ExpiresAtMs, p.FirstSeenMs, tt.wantTTL, beat+tt.wantTTL, tt.wantSeen)
			}
		})
	}
}
