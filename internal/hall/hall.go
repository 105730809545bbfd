package hall

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/recovery"
)

// Roster is the live roster at this instant: *presence.Service, or the
// Hall's cached view (*stream.Hub).
type Roster interface {
	Snapshot(ctx context.Context) (presence.Snapshot, error)
}

// CursorRoster is a Roster that also names the stream event its snapshot
// matches (*stream.Hub): a client can fetch, then stream from that cursor,
// with no gap and no repeat.
type CursorRoster interface {
	SnapshotCursor(ctx context.Context) (presence.Snapshot, string, error)
}

// History is the Hall's recent events, told as `hall watch --json` tells
// them; *stream.Hub in production.
type History interface {
	Events(brain string, limit int) ([]contract.Line, int)
	EventsKept() int
}

// Hall is the Hall's operations over its presence service. Set the fields
// before the first call; only Service is required.
type Hall struct {
	Service *presence.Service
	Roster  Roster  // Service when nil; the live view (*stream.Hub) in a serving Hall
	History History // recent events; none when nil
	// Changes signals each change of the roster, for Watch: the Hall's
	// hub (stream.Hub.Changed), or the service's own signal when nothing
	// else reads it (hall mcp --registry-root). Nil: Watch reports none.
	Changes <-chan struct{}
	Log     *slog.Logger // nil: nothing is logged
	// Git is the background git scanner (*gitscan.Scanner): git's last
	// answer per worktree for the shell guard and the ownership lines, and
	// the overlaps' merges; beats steer it (Mutated, Track). Nil: git
	// unknown, no overlap of git's, no scan steered.
	Git Git
	// Remotes is the watch of pushed work (*remotewatch.Watcher), for
	// health. Nil: no watch.
	Remotes RemoteWatch
	// CheckLimit is Check's rate limit per client (ratelimit.go): the one
	// read that costs a roster pass per call, where every other read
	// serves a cached snapshot. Nil: no limit.
	CheckLimit *Limiter
	// SnapshotLimit is the snapshot reads' rate limit per client
	// (Snapshots, SnapshotFiles: a list decodes records, a comparison
	// hashes files), the same Limiter as CheckLimit's. Nil: no limit.
	SnapshotLimit *Limiter
	// Recovery keeps snapshots of worktrees before destructive commands
	// and gives them back (package recovery). Nil: no snapshots kept.
	Recovery *recovery.Store
	// SnapshotBudget bounds a snapshot on a hook's path (0:
	// DefaultSnapshotBudget); past it the answer says "not saved".
	SnapshotBudget time.Duration
	// Page is the page's address, told to a person as their session
	// starts (HookRequest.Page); "" tells nothing. Set before the Hall
	// serves.
	Page string
	// Host is this machine's name as the Hall's records carry it (the
	// record's host: --host-name, os.Hostname by default); "" writes
	// none.
	Host string

	sayOnce toldBook     // what each presence was told of its collisions (sayonce.go)
	told    toldOverlaps // what each presence was told of its overlaps (overlap.go)
	kept    recoveryBook // snapshots awaiting their check, losses to tell (recovery.go)
	life    lifetime     // what the Hall runs in the background (the loss checks); ended by Close
}

// Close ends what the Hall started in the background (a loss check after
// a destructive command): it cancels their context and returns once every
// one has returned; none starts after. Close the Hall before the stores
// it reads (Recovery, Service's store). Calling it again does nothing.
func (h *Hall) Close() { h.life.close() }

// lifetime is the background work of an application layer: a context
// that close cancels, and a WaitGroup close waits on. The zero value is
// ready.
type lifetime struct {
	mu     sync.Mutex // guards ctx, cancel, closed, and wg.Add against close's Wait
	ctx    context.Context
	cancel context.CancelFunc
	closed bool
	wg     sync.WaitGroup
}

// Go runs f on its own goroutine with the lifetime's context, unless the
// lifetime is closed (then f never runs).
func (l *lifetime) Go(f func(ctx context.Context)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if l.ctx == nil {
		l.ctx, l.cancel = context.WithCancel(context.Background())
	}
	l.wg.Go(func() { f(l.ctx) })
}

// close cancels the lifetime's context and waits for every f Go started.
func (l *lifetime) close() {
	l.mu.Lock()
	l.closed = true
	if l.cancel != nil {
		l.cancel()
	}
	l.mu.Unlock()
	l.wg.Wait()
}

func (h *Hall) roster() Roster {
	if h.Roster != nil {
		return h.Roster
	}
	return h.Service
}

// Watch calls changed on each token of Changes until ctx ends.
func (h *Hall) Watch(ctx context.Context, changed func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.Changes: // a nil channel never delivers
			changed()
		}
	}
}

// Mutating reports whether the Hall counts tool as a mutation.
func (h *Hall) Mutating(tool string) bool { return h.Service.Mutating(tool) }

// Beater is a Hall that takes beats and leaves: *Hall, or one reached over
// HTTP (hallclient.HTTP). The hook runs over it.
type Beater interface {
	Beat(ctx context.Context, req contract.BeatRequest) (contract.BeatResponse, error)
	Leave(ctx context.Context, presenceID string) error
}
