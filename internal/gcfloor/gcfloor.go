// Package gcfloor keeps the garbage collector from starting a cycle
// before the heap reaches a floor.
//
// A Hall's live heap is a few megabytes. At Go's default (GOGC=100: the
// next cycle when the heap has grown by as much as is live, 4 MB at the
// least) a Hall answering a team's hooks collects several times a second,
// and a call that lands in a cycle pays for it, in the marking it is made
// to assist with and in the core the collector takes: those calls are a
// hook answer's p99 (docs/performance.md, "The garbage collector"). With
// a floor the cycles come when the heap reaches the floor, fewer of them
// for the same work; above it GOGC governs as it always does, so a large
// live heap (thousands of subscribers) is collected as before.
//
// The price is memory: garbage up to the floor stays resident between
// cycles. GOGC=off leaves the collector alone, and GOMEMLIMIT still bounds
// the heap whatever the floor.
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Default is the floor a Hall keeps unless told (hall serve
// --gc-floor-mib).
const Default = 32 << 20

// heapMinimum is the least heap goal of Go's collector at GOGC=100
// (runtime's defaultHeapMinimum); it scales with GOGC.
const heapMinimum = 4 << 20

// Percent is the GOGC that puts the next heap goal at floor after a
// cycle left live bytes live, never below base (the GOGC the process runs
// with; GOGC=off, negative, stays off). With little live the runtime's
// least goal, which scales with GOGC, is what reaches the floor.
func Percent(live, floor uint64, base int) int {
	if base < 0 || live >= floor {
		return base
	}
	p := floor * 100 / heapMinimum
	if live > 0 {
		p = min(p, (floor-live)*100/live)
	}
	return max(base, int(p))
}

// keeper sets GOGC after each cycle, from the live heap it left.
type keeper struct {
	floor   uint64
	base    int
	mu      sync.Mutex
	stopped bool
	sample  []metrics.Sample
}

// sentinel is allocated for each cycle: its cleanup runs after the cycle
// that finds it unreachable. It holds a pointer so that it is an object
// of its own (the tiny allocator batches pointer-free ones).
type sentinel struct{ _ *keeper }

// Keep makes each collection from now on start when the heap reaches at
// least floor bytes, until stop is called (which puts the GOGC the
// process had back). A floor of 0, or GOGC=off, changes nothing.
func Keep(floor uint64) (stop func()) {
	base := debug.SetGCPercent(100) // reads it, and puts it back
	debug.SetGCPercent(base)
	if floor == 0 || base < 0 {
		return func() {}
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	k := &keeper{floor: floor, base: base, sample: sample}
	k.tune()
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		k.stopped = true
		debug.SetGCPercent(k.base)
	}
}

// tune sets GOGC from the live heap the last cycle left, and arms the
// next cycle's sentinel.
func (k *keeper) tune() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stopped {
		return
	}
	metrics.Read(k.sample)
	debug.SetGCPercent(Percent(k.sample[0].Value.Uint64(), k.floor, k.base))
	runtime.AddCleanup(&sentinel{}, func(k *keeper) { k.tune() }, k)
}
