package dirstore_test

import (
	"context"
	"testing"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
)

// BenchmarkDirStoreList is one full listing of 1,000 files none of which
// changed: the periodic rescan's cost.
//
//	go test -run '^$' -bench DirStoreList -benchmem ./internal/dirstore/
//
// BenchmarkServiceRefresh and BenchmarkServiceSnapshot, over the same
// registry, are in internal/presence.
func BenchmarkDirStoreList(b *testing.B) {
	store, _ := dirstoretest.BenchRegistry(b, 1000)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := store.List(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
