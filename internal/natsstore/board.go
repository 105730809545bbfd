package natsstore

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// DefaultBoardBucket is the Key-Value bucket where Halls share what they
// know of sides in an overlap across hosts (package peershare): a side's
// content, in --share-changes=content only, and the merge verdicts.
const DefaultBoardBucket = "hall-changes"

// Bounds of the board bucket.
const (
	// DefaultBoardTTL is how long an entry lives unless written again: a
	// Hall that stops leaves nothing behind for long.
	DefaultBoardTTL = time.Minute
	// MaxBoardValue is the most one entry holds (the server's default
	// max payload).
	MaxBoardValue = 1 << 20
	// DefaultBoardBytes bounds the whole bucket on the server; past it
	// the oldest entries go.
	DefaultBoardBytes = 16 << 20
)

// Board is the bucket Halls share sides through. It rides the Store's
// connection, so it fails as fast as the store does while NATS is gone
// or stalled (ready), and every request has the store's op timeout. The
// bucket is kept in memory on the server (uncommitted content never
// reaches the server's disk) and every entry expires after its TTL.
// Safe for concurrent use.
type Board struct {
	s      *Store
	bucket string
	ttl    time.Duration
	bytes  int64

	mu sync.Mutex
	kv jetstream.KeyValue
}

// Board returns the store's board bucket (DefaultBoardBucket, DefaultBoardTTL,
// DefaultBoardBytes where zero), opened on first use.
func (s *Store) Board(bucket string, ttl time.Duration, maxBytes int64) *Board {
	if bucket == "" {
		bucket = DefaultBoardBucket
	}
	if ttl <= 0 {
		ttl = DefaultBoardTTL
	}
	if maxBytes <= 0 {
		maxBytes = DefaultBoardBytes
	}
	return &Board{s: s, bucket: bucket, ttl: ttl, bytes: maxBytes}
}

// TTL is how long an entry lives unless written again.
func (b *Board) TTL() time.Duration { return b.ttl }

func (b *Board) open(ctx context.Context) (jetstream.KeyValue, error) {
	if err := b.s.ready(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.kv != nil {
		return b.kv, nil
	}
	octx, cancel := b.s.opCtx(ctx)
	defer cancel()
	kv, err := b.s.js.CreateKeyValue(octx, jetstream.KeyValueConfig{
		Bucket:       b.bucket,
		Description:  "Hall: sides shared across hosts (docs/nats.md)",
		History:      1,
		TTL:          b.ttl,
		MaxValueSize: MaxBoardValue,
		MaxBytes:     b.bytes,
		Storage:      jetstream.MemoryStorage,
	})
	if errors.Is(err, jetstream.ErrBucketExists) {
		kv, err = b.s.js.KeyValue(octx, b.bucket)
	}
	if err != nil {
		return nil, b.s.unavailable(octx, err, "open bucket %s", b.bucket)
	}
	b.kv = kv
	return kv, nil
}

// Put writes value at key (it lives the bucket's TTL).
func (b *Board) Put(ctx context.Context, key string, value []byte) error {
	kv, err := b.open(ctx)
	if err != nil {
		return err
	}
	octx, cancel := b.s.opCtx(ctx)
	defer cancel()
	if _, err := kv.Put(octx, key, value); err != nil {
		return b.s.unavailable(octx, err, "put %s", key)
	}
	return nil
}

// Get reads the value at key; false when there is none (never written,
// expired, deleted).
func (b *Board) Get(ctx context.Context, key string) ([]byte, bool, error) {
	kv, err := b.open(ctx)
	if err != nil {
		return nil, false, err
	}
	octx, cancel := b.s.opCtx(ctx)
	defer cancel()
	e, err := kv.Get(octx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, b.s.unavailable(octx, err, "get %s", key)
	}
	return e.Value(), true, nil
}

// Entry reads the value at key and its revision (which every write
// moves); false when there is none.
func (b *Board) Entry(ctx context.Context, key string) ([]byte, uint64, bool, error) {
	kv, err := b.open(ctx)
	if err != nil {
		return nil, 0, false, err
	}
	octx, cancel := b.s.opCtx(ctx)
	defer cancel()
	e, err := kv.Get(octx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return nil, 0, false, nil
	case err != nil:
		return nil, 0, false, b.s.unavailable(octx, err, "get %s", key)
	}
	return e.Value(), e.Revision(), true, nil
}

// Swap writes value at key only when the key's revision is still rev (0:
// only when there is none), and answers the new revision; false, no
// error, when another writer came first. A lease is taken and renewed
// with it (package remotewatch).
func (b *Board) Swap(ctx context.Context, key string, value []byte, rev uint64) (uint64, bool, error) {
	kv, err := b.open(ctx)
	if err != nil {
		return 0, false, err
	}
	octx, cancel := b.s.opCtx(ctx)
	defer cancel()
	var next uint64
	if rev == 0 {
		next, err = kv.Create(octx, key, value)
	} else {
		next, err = kv.Update(octx, key, value, rev)
	}
	switch {
	case errors.Is(err, jetstream.ErrKeyExists), errors.Is(err, jetstream.ErrKeyRevisionMismatch):
		return 0, false, nil
	case err != nil:
		return 0, false, b.s.unavailable(octx, err, "swap %s", key)
	}
	return next, true, nil
}
