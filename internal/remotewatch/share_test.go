package remotewatch_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/natsstore"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
	"github.com/hall-dev/hall/internal/remotewatch"
)

var boardSeq atomic.Int64

// newBoard opens a board of its own on srv, as one Hall does.
func newBoard(t *testing.T, url, bucket string) *natsstore.Board {
	t.Helper()
	s, err := natsstore.Open(natsstore.Options{URLs: url, Bucket: fmt.Sprintf("share-%d", boardSeq.Add(1)), OpTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Board(bucket, 0, 0)
}

// Two Halls on one NATS store watching one remote: one runs ls-remote,
// the other reads its answer and fetches the tips it names into its own
// store; the holder stopped, the other takes the lease once it lapses;
// the board gone, each looks itself. Each tip carries when it was first
// seen, the sharing Hall's time when it saw it first.
func TestOneHallWatchesForAll(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	srv := natstest.RunServer(t, 0)
	w := newWorld(t, nil)
	gittest.WriteFile(t, filepath.Join(w.work, "src/cart.go"), lines(20, "mine", 3))
	w.push(t, "same-lines", "src/cart.go", lines(20, "theirs", 3), false)

	clockA, clockB := clockwork.NewFakeClock(), clockwork.NewFakeClock()
	clockB.Advance(time.Hour) // the two Halls' clocks disagree; nothing compares them
	a, _ := newWatcher(t, remotewatch.Config{Clock: clockA, Interval: time.Minute, Host: "h1", Board: newBoard(t, srv.URL(), "board")})
	b, _ := newWatcher(t, remotewatch.Config{Clock: clockB, Interval: time.Minute, Host: "h1", Board: newBoard(t, srv.URL(), "board")})
	a.Track([]string{w.work})
	b.Track([]string{w.work})

	a.Look(ctx)
	b.Look(ctx)
	if got := a.Stats(); got.Looks != 1 || got.Shared != 0 {
		t.Fatalf("the first Hall: got %+v, want one ls-remote of its own", got)
	}
	if got := b.Stats(); got.Looks != 0 || got.Shared != 1 || got.Fetches != 1 {
		t.Fatalf("the second Hall: got %+v, want no ls-remote, the answer shared, one fetch", got)
	}
	ps := b.Pushed(w.work)
	if len(ps) != 1 || ps[0].Branch.Name != "same-lines" || !ps[0].Predicted || !ps[0].Conflict {
		t.Fatalf("the second Hall's sides: got %+v, want same-lines, a predicted conflict", ps)
	}
	rb := b.Remotes()
	if len(rb) != 1 || rb[0].SharedBy != "h1" || !rb[0].LastGood.Equal(time.UnixMilli(clockA.Now().UnixMilli())) {
		t.Errorf("the second Hall's remote: got %+v, want shared by h1, last good at the first Hall's look", rb)
	}
	if got, want := ps[0].Branch.SeenMs, clockA.Now().UnixMilli(); got != want {
		t.Errorf("first seen: got %d, want %d (when the Hall that looked saw it)", got, want)
	}
	if ra := a.Remotes(); ra[0].SharedBy != "" || ra[0].Branches[0].SeenMs != clockA.Now().UnixMilli() {
		t.Errorf("the first Hall's remote: got %+v, want its own look, the tip first seen now", ra)
	}

	// Idle looks, then a branch pushed: still one ls-remote a look, by
	// the first Hall only; the second fetches only the named tips.
	for range 2 {
		clockA.Advance(time.Minute)
		clockB.Advance(time.Minute)
		a.Look(ctx)
		b.Look(ctx)
	}
	w.push(t, "other-lines", "src/cart.go", lines(20, "theirs", 15), false)
	w.push(t, "old", "README", "old\n", false)
	gittest.Git(t, w.mate, "checkout", "-q", "main") // a branch merged into main: not active, not shared
	gittest.Git(t, w.mate, "merge", "-q", "--ff-only", "old")
	gittest.Git(t, w.mate, "push", "-q", "origin", "main")
	clockA.Advance(time.Minute)
	clockB.Advance(time.Minute)
	seenAt := clockA.Now().UnixMilli()
	a.Look(ctx)
	b.Look(ctx)
	if got := a.Stats().Looks; got != 4 {
		t.Errorf("the first Hall's ls-remote: got %d, want 4", got)
	}
	if got := b.Stats(); got.Looks != 0 || got.Shared != 4 {
		t.Errorf("the second Hall: got %+v, want no ls-remote, 4 answers shared", got)
	}
	if got, want := branchNames(b.Pushed(w.work)), []string{"other-lines", "same-lines"}; !slices.Equal(got, want) {
		t.Fatalf("the second Hall's sides after a push: got %v, want %v", got, want)
	}
	if p, _ := find(b.Pushed(w.work), "other-lines"); p.Branch.SeenMs != seenAt {
		t.Errorf("other-lines first seen: got %d, want %d", p.Branch.SeenMs, seenAt)
	}
	storeB := remotewatch.StoreDir(b.Root(), b.Remotes()[0].Identity)
	if refs := gittest.Git(t, storeB, "for-each-ref", "--format=%(refname:strip=2)", "refs/heads/"); refs != "main\nother-lines\nsame-lines" {
		t.Errorf("the second Hall's store: got %q, want main and the active branches only", refs)
	}

	// The first Hall stops: once its lease lapses (three renewals, half
	// the board's TTL each) the second takes it and looks itself; the
	// first, back, reads the second's answer.
	clockB.Advance(3 * natsstore.DefaultBoardTTL / 2)
	b.Look(ctx)
	if got := b.Stats().Looks; got != 1 {
		t.Fatalf("the second Hall after the lease lapsed: got %d ls-remote, want 1", got)
	}
	before := a.Stats()
	clockA.Advance(time.Minute)
	a.Look(ctx)
	if got := a.Stats(); got.Looks != before.Looks || got.Shared != before.Shared+1 {
		t.Errorf("the first Hall back: got %+v after %+v, want the second's answer, no ls-remote", got, before)
	}

	// The board gone: each Hall looks itself, the sides unchanged.
	srv.Shutdown()
	la, lb := a.Stats().Looks, b.Stats().Looks
	a.Look(ctx)
	b.Look(ctx)
	if a.Stats().Looks != la+1 || b.Stats().Looks != lb+1 {
		t.Errorf("the board gone: got %d and %d ls-remote, want %d and %d", a.Stats().Looks, b.Stats().Looks, la+1, lb+1)
	}
	for name, wa := range map[string]*remotewatch.Watcher{"first": a, "second": b} {
		if got := branchNames(wa.Pushed(w.work)); !slices.Equal(got, []string{"other-lines", "same-lines"}) {
			t.Errorf("the %s Hall without the board: got %v", name, got)
		}
		if rs := wa.Remotes(); rs[0].Err != "" || rs[0].SharedBy != "" {
			t.Errorf("the %s Hall without the board: got %+v, want its own good look", name, rs[0])
		}
	}
}
