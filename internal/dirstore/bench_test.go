package dirstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/presence"
)

// benchRegistry writes benchRoster(n), beating now, into a fresh Store
// with Upsert, as n live Halls' sessions would have left it.
func benchRegistry(tb testing.TB, n int) (*Store, []presence.Record) {
	tb.Helper()
	store := mustOpenDirStore(tb)
	recs := benchRoster(n)
	now := time.Now().UnixMilli()
	for i := range recs {
		recs[i].LastBeatMs, recs[i].FirstSeenMs, recs[i].TTLMs = now, now, 3_600_000
		if recs[i].Mutation.ObservedAtMs != 0 {
			recs[i].Mutation.ObservedAtMs = now
		}
		if err := store.Upsert(context.Background(), recs[i]); err != nil {
			tb.Fatalf("Upsert: %v", err)
		}
	}
	return store, recs
}

// writeOutside writes r as another process does: a temp file in the
// folder, renamed over the record's file.
func writeOutside(tb testing.TB, dir string, r presence.Record) {
	tb.Helper()
	data, err := presence.EncodeRecord(r)
	if err != nil {
		tb.Fatalf("EncodeRecord: %v", err)
	}
	tmp := filepath.Join(dir, ".bench-"+r.PresenceID)
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		tb.Fatalf("write: %v", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, r.PresenceID+".json")); err != nil {
		tb.Fatalf("rename: %v", err)
	}
}

// BenchmarkDirStoreList is one full listing of 1,000 files none of which
// changed: the periodic rescan's cost.
//
//	go test -run '^$' -bench DirStoreList -benchmem ./internal/dirstore/
//
// BenchmarkServiceRefresh and BenchmarkServiceSnapshot, over the same
// registry, are in internal/presence.
func BenchmarkDirStoreList(b *testing.B) {
	store, _ := benchRegistry(b, 1000)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := store.List(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
