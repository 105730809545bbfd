// Package collision finds collisions: two mutating presences on one brain
// that share a caller_root, a worktree or an overlapping working set. It
// holds the predicate (Between), the tuned sweep that counts every
// colliding pair of a roster without comparing every pair and lists the
// first up to a bound (Within; sweep.go, pairs.go), the one-pass scan
// of one presence's pairs a beat answers with (Within with Bound.Focus;
// focus.go), and the segment-aware path overlap they share (PathsOverlap).
//
// The bound. n records sharing a place are n·(n-1)/2 pairs, so nothing
// here holds them all unless asked to (Within with Bound.Max 0): the pairs that
// share a caller_root or a worktree are counted from the sizes of those
// places' classes, and only the first Bound.Max of a brain are built.
//
// Layering. Package presence derives collisions (its Service caches them
// per brain), so this package sits below it and cannot know presence.Record.
// It reads a small input of its own, Party (id, brain, places, working set,
// whether it mutates), through a function over roster indexes, and answers
// with Found, whose sides are indexes into that roster. Package presence
// keeps the types its callers use (Record, Collision, Clause is an alias of
// this package's) and wraps Found into presence.Collision, whose sides point
// at the records themselves. The other layering, collision importing
// presence and the Service moving out of presence, would have changed every
// caller of presence.Service; this one changes none. Within is generic in what
// it builds from a Found, so the wrapping costs no second slice and no copy.
//
// The brute-force equivalence test (TestCollisionsInEqualsBruteForce) holds
// the sweep to the predicate applied to every pair. The benchmarks of the
// whole derivation, as the Service pays it, are presence's
// BenchmarkCollisionsIn and BenchmarkCollisionsInDense.
package collision
