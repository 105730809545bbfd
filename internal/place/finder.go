package place

import (
	"context"
	"time"
)

// The bounds of the process's lookups (Place.Complete).
const (
	// MaxLookups is the most lookups in flight at once. Each is a few
	// stats and reads taking microseconds; one still running past its
	// deadline (a hung network filesystem) keeps its slot until it ends,
	// so a flood of such directories holds at most this many goroutines
	// and OS threads.
	MaxLookups = 64
	// LookupDeadline bounds one lookup, its wait for a slot included, when
	// the caller's context allows longer: a hook answers within its own
	// timeout (2 s by default).
	LookupDeadline = time.Second
)

// lookups bounds every Place.Complete of the process: the cap is on the
// process's threads, so it is one for the process.
var lookups = NewFinder(MaxLookups, LookupDeadline)

// Finder runs bounded lookups: at most max at once, each (its wait for a
// slot included) within deadline. Past it, the answer is "outside git" (fail-open: the caller's beat
// still goes, with the caller root as its brain).
type Finder struct {
	slots    chan struct{}
	deadline time.Duration
	locate   func(dir string) Repo // Locate; tests stand in a slow one
}

// NewFinder returns a Finder running at most max lookups at once (none when
// max is 0: every directory is then outside git, once the deadline has
// passed), each within deadline.
func NewFinder(max int, deadline time.Duration) *Finder {
	return &Finder{slots: make(chan struct{}, max), deadline: deadline, locate: Locate}
}

// Locate is Locate within f's bounds and ctx's: the empty Repo when no
// slot frees up, or the lookup has not answered, by the deadline. A
// lookup that outlives its deadline runs on in its goroutine, holding its
// slot until the filesystem answers.
func (f *Finder) Locate(ctx context.Context, dir string) Repo {
	if tooLong(dir) || ctx.Err() != nil {
		return Repo{}
	}
	ctx, cancel := context.WithTimeout(ctx, f.deadline)
	defer cancel()
	// A burst waits for a slot within the deadline rather than failing at
	// once: a lookup answered "outside git" files the beat under the wrong
	// brain, so only lookups that cannot be served in time fail open.
	select {
	case f.slots <- struct{}{}:
	case <-ctx.Done():
		return Repo{}
	}
	answer := make(chan Repo, 1) // buffered: a late answer never blocks
	go func() {
		defer func() { <-f.slots }()
		answer <- f.locate(dir)
	}()
	select {
	case r := <-answer:
		return r
	case <-ctx.Done():
		return Repo{}
	}
}
