// Package dirstoretest is the sidecar folder's test kit: a store over a
// fresh temp registry, and the hand of another writer (an m1nd runtime, a
// second Hall) writing, renaming, reading and listing record files behind a
// store's back. Every package's tests that need a real store or its files
// take them here.
package dirstoretest

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// Open returns an initialised store over a fresh temp registry root.
func Open(tb testing.TB) *dirstore.Store {
	tb.Helper()
	s := dirstore.New(tb.TempDir())
	if err := s.Init(); err != nil {
		tb.Fatalf("Init: %v", err)
	}
	return s
}

// Upsert writes r into the registry at root as another writer does,
// atomically through the store's own path; an empty presence id is filled
// from the agent and brain.
func Upsert(tb testing.TB, root string, r presence.Record) {
	tb.Helper()
	if r.PresenceID == "" {
		r.PresenceID = presence.ID(r.AgentID, r.Brain)
	}
	if err := dirstore.New(root).Upsert(context.Background(), r); err != nil {
		tb.Fatalf("Upsert %s: %v", r.PresenceID, err)
	}
}

// Remove deletes the presence id from the registry at root, as another
// writer does.
func Remove(tb testing.TB, root, id string) {
	tb.Helper()
	if err := dirstore.New(root).Delete(context.Background(), id); err != nil {
		tb.Fatalf("Delete %s: %v", id, err)
	}
}

// WriteFile writes raw bytes as <dir>/<name>, as another writer would, and
// returns the path.
func WriteFile(tb testing.TB, dir, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatalf("write %s: %v", p, err)
	}
	return p
}

// WriteOutside writes r into the folder dir as another process does: a
// temp file in the folder, renamed over the record's file.
func WriteOutside(tb testing.TB, dir string, r presence.Record) {
	tb.Helper()
	tmp := WriteFile(tb, dir, ".outside-"+r.PresenceID, presencetest.Encode(tb, r))
	if err := os.Rename(tmp, filepath.Join(dir, r.PresenceID+".json")); err != nil {
		tb.Fatalf("rename: %v", err)
	}
}

// ReadRecord decodes the record file of id in the folder dir straight
// from disk.
func ReadRecord(tb testing.TB, dir, id string) presence.Record {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if err != nil {
		tb.Fatalf("read record %s: %v", id, err)
	}
	r, err := presence.DecodeRecord(data)
	if err != nil {
		tb.Fatalf("decode record %s: %v\n%s", id, err, data)
	}
	return r
}

// Names lists the folder's entry names, sorted.
func Names(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatalf("ReadDir: %v", err)
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// BenchRegistry writes presencetest.BenchRoster(n), beating now for an
// hour, into a fresh store with Upsert, as n live sessions would have left
// it.
func BenchRegistry(tb testing.TB, n int) (*dirstore.Store, []presence.Record) {
	tb.Helper()
	store := Open(tb)
	recs := presencetest.BenchRoster(n)
	now := time.Now().UnixMilli()
	for i := range recs {
		presencetest.At(now)(&recs[i])
		recs[i].TTLMs = 3_600_000
		if err := store.Upsert(context.Background(), recs[i]); err != nil {
			tb.Fatalf("Upsert: %v", err)
		}
	}
	return store, recs
}
