package recovery

import (
	"context"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
)

// Store keeps snapshots in a directory the Hall owns (mode 0700). Safe
// for concurrent use.
type Store struct {
	dir string
	run *gitscan.Runner
	lim Limits
	now func() time.Time
}

// Open opens (creating, mode 0700) the store in dir, usually
// <registry-root>/recovery, and prunes it to lim. now is the clock (nil:
// time.Now).
func Open(ctx context.Context, dir string, run *gitscan.Runner, lim Limits, now func() time.Time) (*Store, error) {
	return nil, ErrNotImplemented
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// Save snapshots the request's worktree within ctx's deadline.
func (s *Store) Save(ctx context.Context, req SaveRequest) (Snapshot, error) {
	return Snapshot{}, ErrNotImplemented
}

// List returns the snapshots the filter chooses, newest first, and how
// many more it chose past its limit.
func (s *Store) List(ctx context.Context, f Filter) ([]Snapshot, int, error) {
	return nil, 0, ErrNotImplemented
}

// Get returns one snapshot's record (ErrNotFound when none has that id).
func (s *Store) Get(ctx context.Context, id string) (Snapshot, error) {
	return Snapshot{}, ErrNotImplemented
}

// Diff compares a snapshot's files (paths, or those it lists) with the
// worktree now.
func (s *Store) Diff(ctx context.Context, id string, paths []string) ([]FileDiff, error) {
	return nil, ErrNotImplemented
}

// Restore writes a snapshot's files back. A file changed since the
// snapshot is refused (*ChangedError, nothing written) unless opt.Force.
func (s *Store) Restore(ctx context.Context, id string, opt RestoreOptions) (RestoreResult, error) {
	return RestoreResult{}, ErrNotImplemented
}

// Prune drops the snapshots past the store's limits.
func (s *Store) Prune(ctx context.Context) (PruneResult, error) {
	return PruneResult{}, ErrNotImplemented
}

// Run prunes every DefaultPruneEvery until ctx ends.
func (s *Store) Run(ctx context.Context) {
	t := time.NewTicker(DefaultPruneEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_, _ = s.Prune(ctx)
		}
	}
}
