package gcfloor_test

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gcfloor"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name        string
		live, floor uint64
		base, want  int
	}{
		{"no live heap yet: the least goal is the floor", 0, 32 * mib, 100, 800},
		{"a small live heap: the least goal reaches the floor first", 2 * mib, 32 * mib, 100, 800},
		{"a live heap whose growth reaches the floor first", 8 * mib, 32 * mib, 100, 300},
		{"live at the floor: GOGC as set", 32 * mib, 32 * mib, 100, 100},
		{"live past the floor: GOGC as set", 300 * mib, 32 * mib, 100, 100},
		{"GOGC already past what the floor asks", 8 * mib, 32 * mib, 500, 500},
		{"a floor under the least goal", 1 * mib, 2 * mib, 100, 100},
		{"GOGC=off stays off", 1 * mib, 32 * mib, -1, -1},
	} {
		if got := gcfloor.Percent(c.live, c.floor, c.base); got != c.want {
			t.Errorf("%s: Percent(%d, %d, %d) = %d, want %d", c.name, c.live, c.floor, c.base, got, c.want)
		}
	}
}

var sink []byte

// cycles counts the collections while 48 MiB of short-lived 4 KiB
// pieces are allocated.
func cycles() uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	n0 := ms.NumGC
	for range 48 << 20 / 4096 {
		sink = make([]byte, 4096)
	}
	runtime.ReadMemStats(&ms)
	return ms.NumGC - n0
}

func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestKeepSpacesCycles: under a floor the same garbage takes fewer
// collections, each cycle sets GOGC again from what it left live, and stop
// puts GOGC back.
func TestKeepSpacesCycles(t *testing.T) {
	base := gogc()
	runtime.GC()
	without := cycles()

	stop := gcfloor.Keep(64 << 20)
	runtime.GC()
	if with := cycles(); without < 6 || with > 1 {
		t.Errorf("48 MiB of garbage: %d collections without a floor, %d with a 64 MiB one; want 6 or more, then 1 at most", without, with)
	}
	// A live heap past the floor: a cycle's cleanup puts GOGC back. (A
	// cleanup that runs while a cycle marks arms a sentinel that cycle
	// keeps: GOGC follows the live heap within two cycles.)
	held := make([][]byte, 0, 80)
	for range 80 {
		held = append(held, make([]byte, 1<<20))
	}
	eventually.True(t, 5*time.Second, "GOGC as set with 80 MiB live", func() bool { runtime.GC(); return gogc() == base })
	runtime.KeepAlive(held)
	eventually.True(t, 5*time.Second, "GOGC raised again once the live heap is small", func() bool { runtime.GC(); return gogc() > base })

	stop()
	if got := gogc(); got != base {
		t.Errorf("GOGC after stop = %d, want %d", got, base)
	}
	runtime.GC()
	if again := cycles(); again < 6 {
		t.Errorf("48 MiB of garbage after stop: %d collections, want 6 or more", again)
	}
}
