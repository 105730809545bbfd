package main

// streamsMeasured is the most live streams the Hall was measured to carry
// within its goals: one diff reaches 10,000 subscribers with p99 ≤ 250 ms
// at 3.4 KiB each (docs/performance.md). Beyond it the fan-out's latency
// grows with every stream.
const streamsMeasured = 10_000

// defaultMaxStreams is --max-streams unless told otherwise: the measured
// 10,000, or half the descriptors this process may open when that is
// fewer. Each stream holds one descriptor for its life; the other half
// stays for beats and reads, the store's files and its watch, so a flood
// of streams is refused with a 503 before it can starve them (EMFILE).
func defaultMaxStreams() int {
	n, ok := openFileLimit()
	if !ok || n/2 >= streamsMeasured {
		return streamsMeasured
	}
	return max(1, n/2)
}
