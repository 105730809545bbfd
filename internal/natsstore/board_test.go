package natsstore

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/hall-dev/hall/internal/natsstore/natstest"
	"github.com/hall-dev/hall/internal/presence"
)

// TestBoardPutGet: a value written is read back by another store on the
// same server; a key never written is absent, no error; the bucket is
// kept in memory on the server, with the TTL asked; with the server gone
// both fail at once with the store's unreachable error.
func TestBoardPutGet(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	ctx := context.Background()
	a := mustOpen(t, srv.URL(), Options{}).Board("board-test", 0, 0)
	b := mustOpen(t, srv.URL(), Options{}).Board("board-test", 0, 0)
	if err := a.Put(ctx, "side.x", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	got, ok, err := b.Get(ctx, "side.x")
	if err != nil || !ok || string(got) != "hello" {
		t.Fatalf("got %q %v %v, want hello", got, ok, err)
	}
	if _, ok, err := b.Get(ctx, "side.none"); ok || err != nil {
		t.Errorf("a key never written: %v %v, want absent and no error", ok, err)
	}
	kv, err := a.open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.TTL() != DefaultBoardTTL || st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Storage != jetstream.MemoryStorage {
		t.Errorf("bucket ttl %s storage %v, want %s in memory", st.TTL(), st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config.Storage, DefaultBoardTTL)
	}
	srv.Shutdown()
	if err := a.Put(ctx, "side.x", []byte("again")); presence.ErrorCode(err) != presence.EUNREACHABLE {
		t.Errorf("put with the server gone: %v, want unreachable", err)
	}
}

// TestBoardSwap: a swap at revision 0 creates a key only once; a swap at
// the revision read wins once, a second at the same revision loses, no
// error.
func TestBoardSwap(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	ctx := context.Background()
	a := mustOpen(t, srv.URL(), Options{}).Board("board-test", 0, 0)
	b := mustOpen(t, srv.URL(), Options{}).Board("board-test", 0, 0)
	rev, ok, err := a.Swap(ctx, "lease.x", []byte("a"), 0)
	if err != nil || !ok || rev == 0 {
		t.Fatalf("create: %d %v %v, want a revision", rev, ok, err)
	}
	if _, ok, err := b.Swap(ctx, "lease.x", []byte("b"), 0); ok || err != nil {
		t.Errorf("create again: %v %v, want lost, no error", ok, err)
	}
	v, got, ok, err := b.Entry(ctx, "lease.x")
	if err != nil || !ok || got != rev || string(v) != "a" {
		t.Fatalf("entry: %q %d %v %v, want a at %d", v, got, ok, err, rev)
	}
	if _, ok, err := b.Swap(ctx, "lease.x", []byte("b"), rev); !ok || err != nil {
		t.Errorf("swap at the revision read: %v %v, want won", ok, err)
	}
	if _, ok, err := a.Swap(ctx, "lease.x", []byte("a"), rev); ok || err != nil {
		t.Errorf("swap at a stale revision: %v %v, want lost, no error", ok, err)
	}
}
