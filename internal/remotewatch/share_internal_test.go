package remotewatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/hall-dev/hall/internal/natsstore"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
)

// An answer another Hall wrote reaches git only when each branch is a
// plain name (no refspec, option or pattern in it) and each tip an
// object id, within the bound.
func TestSharedAnswerValid(t *testing.T) {
	id := strings.Repeat("a", 40)
	heads := func(n int) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprintf("b%d", i)] = id
		}
		return m
	}
	for _, tc := range []struct {
		name string
		l    lease
		want bool
	}{
		{"plain", lease{Default: "main", Heads: map[string]string{"main": id, "feat/x-1": strings.Repeat("0", 64)}}, true},
		{"a refspec", lease{Heads: map[string]string{"a:refs/heads/b": id}}, false},
		{"an option", lease{Heads: map[string]string{"--upload-pack=x": id}}, false},
		{"a pattern", lease{Heads: map[string]string{"a*": id}}, false},
		{"dot dot", lease{Heads: map[string]string{"a/../b": id}}, false},
		{"a hidden part", lease{Heads: map[string]string{"a/.b": id}}, false},
		{"a space", lease{Heads: map[string]string{"a b": id}}, false},
		{"a lock", lease{Heads: map[string]string{"a.lock": id}}, false},
		{"not an id", lease{Heads: map[string]string{"a": "HEAD"}}, false},
		{"an upper-case id", lease{Heads: map[string]string{"a": strings.Repeat("A", 40)}}, false},
		{"a bad default", lease{Default: "-x"}, false},
		{"negative omitted", lease{Omitted: -1}, false},
		{"at the bound", lease{Heads: heads(MaxSharedHeads)}, true},
		{"over the bound", lease{Heads: heads(MaxSharedHeads + 1)}, false},
	} {
		if got := tc.l.valid(); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The roles at one look of a shared watch, on a real board: the first
// Hall takes the lease; the second waits for its first answer, then
// follows it; an answer git must not see sends it to look itself; the
// lease standing still three renewals on the second's clock, it takes it.
func TestSharedRoles(t *testing.T) {
	ctx := context.Background()
	srv := natstest.RunServer(t, 0)
	board := func() *natsstore.Board { return testBoard(t, srv, "roles") }
	clock := clockwork.NewFakeClock()
	a := New(Config{Board: board(), Host: "h", Interval: time.Minute, Clock: clock})
	b := New(Config{Board: board(), Host: "h", Interval: time.Minute, Clock: clock})
	wa, wb := &watch{identity: "github.com/o/r"}, &watch{identity: "github.com/o/r"}

	if _, r := a.shared(ctx, wa, clock.Now()); r != lookSelf || !wa.share.holding {
		t.Fatalf("the first Hall: role %d holding %v, want lookSelf and the lease", r, wa.share.holding)
	}
	if _, r := b.shared(ctx, wb, clock.Now()); r != wait {
		t.Fatalf("the second Hall before any answer: role %d, want wait", r)
	}
	id := strings.Repeat("a", 40)
	wa.def, wa.heads, wa.branches, wa.seen = "main", map[string]string{"main": id, "old": id}, []Branch{}, map[string]int64{id: 7}
	a.publish(ctx, wa, clock.Now(), "")
	l, r := b.shared(ctx, wb, clock.Now())
	if r != follow || l.Default != "main" || len(l.Heads) != 1 || l.Heads["main"] != id || l.SeenMs[id] != 7 || wb.share.sharedBy != "h" {
		t.Fatalf("the second Hall after the answer: role %d %+v, want follow, main only (old is not active), seen 7", r, l)
	}
	bad, _ := json.Marshal(lease{Holder: "other", Host: "x", RenewMs: 30000, LookedMs: 1, Heads: map[string]string{"a:refs/heads/b": id}})
	if _, ok, err := a.cfg.Board.Swap(ctx, boardKey("h", "github.com/o/r"), bad, wa.share.rev); !ok || err != nil {
		t.Fatalf("swap: %v %v", ok, err)
	}
	if _, r := b.shared(ctx, wb, clock.Now()); r != lookSelf || wb.share.holding {
		t.Errorf("an answer naming a refspec: role %d, want lookSelf, not holding", r)
	}
	clock.Advance(lapses * 30 * time.Second)
	if _, r := b.shared(ctx, wb, clock.Now()); r != lookSelf || !wb.share.holding {
		t.Errorf("the lease lapsed: role %d holding %v, want lookSelf and the lease", r, wb.share.holding)
	}
	if _, r := a.shared(ctx, wa, clock.Now()); r != follow && r != wait {
		t.Errorf("the first Hall after the second took the lease: role %d, want it to follow or wait", r)
	}
}

// A Hall that stops releases the leases it holds: the next Hall to look
// takes one at once, with no lapse to wait out. A release never takes a
// lease back from a Hall that took it meanwhile.
func TestReleasedLeaseIsTakenAtOnce(t *testing.T) {
	ctx := context.Background()
	srv := natstest.RunServer(t, 0)
	board := func() *natsstore.Board { return testBoard(t, srv, "release") }
	clock := clockwork.NewFakeClock()
	a := New(Config{Board: board(), Host: "h", Interval: time.Minute, Clock: clock})
	b := New(Config{Board: board(), Host: "h", Interval: time.Minute, Clock: clock})
	c := New(Config{Board: board(), Host: "h", Interval: time.Minute, Clock: clock})
	wa, wb, wc := &watch{identity: "github.com/o/r"}, &watch{identity: "github.com/o/r"}, &watch{identity: "github.com/o/r"}
	a.watches, b.watches = map[string]*watch{wa.identity: wa}, map[string]*watch{wb.identity: wb}

	if _, r := a.shared(ctx, wa, clock.Now()); r != lookSelf || !wa.share.holding {
		t.Fatalf("the first Hall: role %d holding %v, want lookSelf and the lease", r, wa.share.holding)
	}
	if _, r := b.shared(ctx, wb, clock.Now()); r != wait {
		t.Fatalf("the second Hall: role %d, want wait", r)
	}
	a.release(ctx)
	if wa.share.holding {
		t.Error("the first Hall still holds the lease it released")
	}
	if _, r := b.shared(ctx, wb, clock.Now()); r != lookSelf || !wb.share.holding {
		t.Fatalf("the second Hall after the release, on the same clock: role %d holding %v, want lookSelf and the lease", r, wb.share.holding)
	}

	// The second Hall's lease, then a stale release from a Hall that
	// thinks it still holds it at an older revision: the lease stays.
	stale := &watch{identity: wa.identity, share: shareState{holding: true, rev: 1}}
	a.watches = map[string]*watch{stale.identity: stale}
	a.release(ctx)
	if _, r := c.shared(ctx, wc, clock.Now()); r != wait {
		t.Errorf("a third Hall after a stale release: role %d, want wait (the second Hall holds the lease)", r)
	}
	if _, r := b.shared(ctx, wb, clock.Now()); r != lookSelf || !wb.share.holding {
		t.Errorf("the second Hall after a stale release: role %d holding %v, want it still holds the lease", r, wb.share.holding)
	}
}

// testBoard opens a store of its own on srv, as one Hall does, and its
// board named after bucket.
func testBoard(t *testing.T, srv *natstest.Server, bucket string) *natsstore.Board {
	t.Helper()
	s, err := natsstore.Open(natsstore.Options{URLs: srv.URL(), Bucket: bucket})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Board(bucket+"-board", 0, 0)
}
