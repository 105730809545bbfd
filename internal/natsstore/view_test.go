package natsstore

import (
	"fmt"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/presence"
)

// TestViewShrinksAfterABurst: once a burst of keys has expired and its
// tombstones are pruned, the view's map is rebuilt to what it holds, so a
// listing walks the live keys, not the burst's room.
func TestViewShrinksAfterABurst(t *testing.T) {
	v := newView()
	const burst, live = 4 * shrinkFloor, 10
	for i := range burst {
		v.apply(presence.ID(fmt.Sprintf("one-beat-%d", i), "/b"), slot{rev: uint64(i + 1), gone: i >= live})
	}
	if v.high != burst {
		t.Fatalf("high-water mark: got %d, want %d", v.high, burst)
	}
	for k, s := range v.slots {
		if s.gone {
			s.goneAt = time.Now().Add(-2 * tombstoneAge)
			v.slots[k] = s
		}
	}
	v.lastPrune = time.Time{}
	v.prune()
	if len(v.slots) != live || v.high != live {
		t.Errorf("after the prune: %d slots, high-water mark %d; want %d and %d (rebuilt)", len(v.slots), v.high, live, live)
	}
}
