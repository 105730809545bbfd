package dirstore_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/fifotest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// Each change an outside writer makes, reread by its file name alone,
// answers what a whole listing would for the ids it touched, and the
// listing's skip count.
func TestDirStoreRereadAnswersAsAListing(t *testing.T) {
	a := presencetest.Rec("a", brain, presencetest.WS("src"))
	b := presencetest.Rec("b", brain)
	aName, bName := a.PresenceID+".json", b.PresenceID+".json"
	newer := func(r presence.Record, d int64) presence.Record { r.LastBeatMs += d; r.QueryCount += d; return r }

	type want struct {
		id  string
		rec *presence.Record // nil: the store holds no copy
	}
	tests := []struct {
		name    string
		change  func(t *testing.T, dir string)
		reread  []string
		touched []want
		skipped int
	}{{
		name:    "create",
		change:  func(t *testing.T, dir string) { dirstoretest.WriteFile(t, dir, bName, presencetest.Encode(t, b)) },
		reread:  []string{bName},
		touched: []want{{b.PresenceID, &b}},
	}, {
		name: "rewrite in place",
		change: func(t *testing.T, dir string) {
			dirstoretest.WriteFile(t, dir, aName, presencetest.Encode(t, newer(a, 7)))
		},
		reread:  []string{aName},
		touched: []want{{a.PresenceID, ptr(newer(a, 7))}},
	}, {
		name: "rename into place",
		change: func(t *testing.T, dir string) {
			tmp := dirstoretest.WriteFile(t, dir, dirstore.TempPrefix+"x", presencetest.Encode(t, newer(a, 9)))
			if err := os.Rename(tmp, filepath.Join(dir, aName)); err != nil {
				t.Fatal(err)
			}
		},
		reread:  []string{dirstore.TempPrefix + "x", aName}, // the temp file's own events name it too
		touched: []want{{a.PresenceID, ptr(newer(a, 9))}},
	}, {
		name:    "delete",
		change:  func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, aName)) },
		reread:  []string{aName},
		touched: []want{{a.PresenceID, nil}},
	}, {
		// A record is only ever taken from the file named for its id:
		// one filed under another name is skipped, and speaks for no one.
		name: "a file named for one id holding a copy of another",
		change: func(t *testing.T, dir string) {
			dirstoretest.WriteFile(t, dir, bName, presencetest.Encode(t, newer(a, 5)))
		},
		reread:  []string{bName},
		touched: []want{{b.PresenceID, nil}}, // a keeps its own file's copy
		skipped: 1,
	}, {
		name: "a newer copy under a name that is no id",
		change: func(t *testing.T, dir string) {
			dirstoretest.WriteFile(t, dir, "notes.json", presencetest.Encode(t, newer(a, 5)))
		},
		reread:  []string{"notes.json"},
		skipped: 1,
	}, {
		name: "the record's own file deleted: a copy elsewhere does not stand in",
		change: func(t *testing.T, dir string) {
			dirstoretest.WriteFile(t, dir, "notes.json", presencetest.Encode(t, newer(a, -5)))
			os.Remove(filepath.Join(dir, aName))
		},
		reread:  []string{"notes.json", aName},
		touched: []want{{a.PresenceID, nil}},
		skipped: 1,
	}, {
		name:    "a file overwritten with another id's record: skipped, its own id gone",
		change:  func(t *testing.T, dir string) { dirstoretest.WriteFile(t, dir, aName, presencetest.Encode(t, b)) },
		reread:  []string{aName},
		touched: []want{{a.PresenceID, nil}},
		skipped: 1,
	}, {
		name: "a record with an id that is no id, under its own name",
		change: func(t *testing.T, dir string) {
			dirstoretest.WriteFile(t, dir, "__proto__.json", []byte(`{"presence_id":"__proto__","agent_id":"x","brain":"/b","last_beat_ms":1}`))
		},
		reread:  []string{"__proto__.json"},
		skipped: 1,
	}, {
		// Entries that are not regular files are skipped unopened, at
		// once (nothing is mid-write in them), symlinks not followed.
		name: "a FIFO at a record's name",
		change: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, aName))
			mkfifo(t, filepath.Join(dir, aName))
		},
		reread:  []string{aName},
		touched: []want{{a.PresenceID, nil}},
		skipped: 1,
	}, {
		name: "a symlink to a FIFO",
		change: func(t *testing.T, dir string) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			mkfifo(t, fifo)
			symlink(t, fifo, filepath.Join(dir, bName))
		},
		reread:  []string{bName},
		touched: []want{{b.PresenceID, nil}},
		skipped: 1,
	}, {
		name: "a symlink to a whole record named for its id",
		change: func(t *testing.T, dir string) {
			target := dirstoretest.WriteFile(t, t.TempDir(), bName, presencetest.Encode(t, b))
			symlink(t, target, filepath.Join(dir, bName))
		},
		reread:  []string{bName},
		touched: []want{{b.PresenceID, nil}},
		skipped: 1,
	}, {
		name:    "a symlink to a character device",
		change:  func(t *testing.T, dir string) { symlink(t, "/dev/zero", filepath.Join(dir, bName)) },
		reread:  []string{bName},
		touched: []want{{b.PresenceID, nil}},
		skipped: 1,
	}, {
		name:    "a symlink to /proc/self/fd/0",
		change:  func(t *testing.T, dir string) { symlink(t, "/proc/self/fd/0", filepath.Join(dir, bName)) },
		reread:  []string{bName},
		touched: []want{{b.PresenceID, nil}},
		skipped: 1,
	}, {
		name:    "corrupted: skipped, and the id it held gone",
		change:  func(t *testing.T, dir string) { dirstoretest.WriteFile(t, dir, aName, []byte(`{"presence_id":`)) },
		reread:  []string{aName},
		touched: []want{{a.PresenceID, nil}},
		skipped: 1,
	}, {
		name:    "a foreign junk file: skipped, no id touched",
		change:  func(t *testing.T, dir string) { dirstoretest.WriteFile(t, dir, "junk.json", []byte("junk")) },
		reread:  []string{"junk.json"},
		skipped: 1,
	}, {
		name:    "names that hold no record are passed by",
		change:  func(t *testing.T, dir string) { dirstoretest.WriteFile(t, dir, "notes.txt", presencetest.Encode(t, b)) },
		reread:  []string{"notes.txt", "../" + bName, "sub/" + bName},
		touched: nil,
	}, {
		name:    "a folder named like a record",
		change:  func(t *testing.T, dir string) { os.Mkdir(filepath.Join(dir, bName), 0o755) },
		reread:  []string{bName},
		touched: []want{{b.PresenceID, nil}}, // the id it is named for: none held
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			s := dirstoretest.Open(t)
			if err := s.Upsert(ctx, a); err != nil {
				t.Fatal(err)
			}
			if _, err := s.List(ctx); err != nil {
				t.Fatal(err)
			}
			tt.change(t, s.Dir())
			d, err := rereadBounded(t, s, tt.reread)
			if err != nil {
				t.Fatalf("Reread: %v", err)
			}
			if len(d.Unsettled) > 0 {
				// Not decoding at first look: left as it was, and taken
				// as it is on the second.
				if len(d.Touched) != 0 {
					t.Errorf("first look at a file that does not decode: got %s touched, want none", describe(d.Touched))
				}
				if d, err = s.Reread(ctx, d.Unsettled); err != nil || len(d.Unsettled) > 0 {
					t.Fatalf("second look: got %+v, %v, want it settled", d, err)
				}
			}
			got := map[string]*presence.Record{}
			for id, r := range d.Touched {
				got[id] = r
			}
			wantTouched := map[string]*presence.Record{}
			for _, w := range tt.touched {
				wantTouched[w.id] = w.rec
			}
			if !reflect.DeepEqual(got, wantTouched) {
				t.Errorf("Touched:\ngot  %s\nwant %s", describe(got), describe(wantTouched))
			}
			if d.Skipped != tt.skipped {
				t.Errorf("Skipped: got %d, want %d", d.Skipped, tt.skipped)
			}
			// And a whole listing agrees.
			listed, skipped := presencetest.ListedByID(t, s)
			for id, r := range d.Touched {
				l, ok := listed[id]
				if (r == nil) == ok || (ok && !reflect.DeepEqual(l, *r)) {
					t.Errorf("%s: reread %s, listing %v (held: %v)", id, describe(map[string]*presence.Record{id: r}), l, ok)
				}
			}
			if skipped != d.Skipped {
				t.Errorf("Skipped: reread %d, listing %d", d.Skipped, skipped)
			}
		})
	}
}

func ptr(r presence.Record) *presence.Record { return &r }

// rereadBounded is Reread, failing the test rather than hanging it when a
// read blocks.
func rereadBounded(tb testing.TB, s *dirstore.Store, names []string) (presence.Delta, error) {
	tb.Helper()
	type answer struct {
		d   presence.Delta
		err error
	}
	done := make(chan answer, 1)
	go func() {
		d, err := s.Reread(context.Background(), names)
		done <- answer{d, err}
	}()
	select {
	case a := <-done:
		return a.d, a.err
	case <-time.After(10 * time.Second):
		tb.Fatalf("Reread(%v) blocked", names)
		return presence.Delta{}, nil
	}
}

func mkfifo(tb testing.TB, path string) {
	tb.Helper()
	fifotest.Make(tb, path)
}

func symlink(tb testing.TB, target, path string) {
	tb.Helper()
	if err := os.Symlink(target, path); err != nil {
		tb.Fatal(err)
	}
}

func describe(m map[string]*presence.Record) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := "{"
	for _, k := range keys {
		if m[k] == nil {
			out += k + ":none "
		} else {
			out += fmt.Sprintf("%s:{beat %d theme %q} ", k, m[k].LastBeatMs, m[k].Theme)
		}
	}
	return out + "}"
}

// A reread answers only over a listing, and never takes a missing folder
// for a room everyone left.
func TestDirStoreRereadRefusesWithoutAListing(t *testing.T) {
	ctx := context.Background()
	s := dirstoretest.Open(t)
	a := presencetest.Rec("a", brain)
	if err := s.Upsert(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reread(ctx, []string{a.PresenceID + ".json"}); err == nil {
		t.Errorf("Reread before any listing: got no error, want one (the caller lists)")
	}
	if _, err := s.List(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(s.Dir()); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Reread(ctx, []string{a.PresenceID + ".json"}); presence.ErrorCode(err) != presence.EUNAVAILABLE {
		t.Errorf("Reread with the folder gone: got %+v, %v, want an EUNAVAILABLE error", d, err)
	}
	if _, err := s.List(ctx); err == nil {
		t.Fatal("List with the folder gone: got no error")
	}
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reread(ctx, []string{a.PresenceID + ".json"}); err == nil {
		t.Errorf("Reread after a failed listing: got no error, want one until the next listing")
	}
}

// Random outside changes, each reread by name as the watch names it, keep
// the store's memory equal to the folder: after every step a reread of
// everything touched agrees with a whole listing.
func TestDirStoreRereadFollowsRandomChanges(t *testing.T) {
	ctx := context.Background()
	s := dirstoretest.Open(t)
	rng := rand.New(rand.NewSource(1))
	var recs []presence.Record
	for i := 0; i < 12; i++ {
		recs = append(recs, presencetest.Rec(fmt.Sprintf("agent-%d", i), brain))
	}
	names := []string{"stray.json", "zz.json"}
	for _, r := range recs {
		names = append(names, r.PresenceID+".json")
	}
	if _, err := s.List(ctx); err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 400; step++ {
		name := names[rng.Intn(len(names))]
		p := filepath.Join(s.Dir(), name)
		switch rng.Intn(5) {
		case 0:
			os.Remove(p)
		case 1:
			dirstoretest.WriteFile(t, s.Dir(), name, []byte("{broken"))
		default:
			r := recs[rng.Intn(len(recs))]
			r.LastBeatMs += int64(rng.Intn(4))
			r.QueryCount = int64(step)
			tmp := dirstoretest.WriteFile(t, s.Dir(), dirstore.TempPrefix+"w", presencetest.Encode(t, r))
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		}
		d, err := s.Reread(ctx, []string{name})
		if err != nil {
			t.Fatalf("step %d: Reread: %v", step, err)
		}
		if len(d.Unsettled) > 0 {
			if d, err = s.Reread(ctx, d.Unsettled); err != nil {
				t.Fatalf("step %d: Reread: %v", step, err)
			}
		}
		// Everything, by name: the memory must hold exactly the folder.
		all, err := s.Reread(ctx, names)
		if err != nil {
			t.Fatalf("step %d: Reread: %v", step, err)
		}
		listed, skipped := presencetest.ListedByID(t, s)
		if d.Skipped != skipped || all.Skipped != skipped {
			t.Fatalf("step %d: skipped: reread %d (all %d), listing %d", step, d.Skipped, all.Skipped, skipped)
		}
		for id, r := range all.Touched {
			l, ok := listed[id]
			if (r == nil) == ok || (ok && !reflect.DeepEqual(l, *r)) {
				t.Fatalf("step %d: %s: reread %s, listing %+v (held: %v)", step, id, describe(map[string]*presence.Record{id: r}), l, ok)
			}
		}
		if len(listed) > len(all.Touched) {
			t.Fatalf("step %d: listing holds %d ids, the reread of every file touched %d", step, len(listed), len(all.Touched))
		}
	}
}

// A file written in place is empty for an instant after its first event.
// A reread that sees it so leaves the record as it was, and takes the
// file as it is on its next look: the record back when the write is done,
// or the file skipped when it still does not decode.
func TestDirStoreRereadWaitsOutAWriteInPlace(t *testing.T) {
	ctx := context.Background()
	s := dirstoretest.Open(t)
	a := presencetest.Rec("a", brain)
	name := a.PresenceID + ".json"
	if err := s.Upsert(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(s.Dir(), name), os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := s.Reread(ctx, []string{name})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Touched) != 0 || d.Skipped != 0 || !reflect.DeepEqual(d.Unsettled, []string{name}) {
		t.Errorf("the truncated instant: got touched %s, skipped %d, unsettled %v; want nothing touched, 0 skipped, %s unsettled", describe(d.Touched), d.Skipped, d.Unsettled, name)
	}
	a.QueryCount = 9
	if _, err := f.Write(presencetest.Encode(t, a)); err != nil {
		t.Fatal(err)
	}
	d, err = s.Reread(ctx, []string{name})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Touched[a.PresenceID]; got == nil || got.QueryCount != 9 || len(d.Unsettled) != 0 {
		t.Errorf("the write done: got touched %s, unsettled %v; want the new record", describe(d.Touched), d.Unsettled)
	}

	// Truncated and left so: skipped on the second look.
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	for look, want := range []int{0, 1} {
		d, err = s.Reread(ctx, []string{name})
		if err != nil {
			t.Fatal(err)
		}
		if d.Skipped != want {
			t.Errorf("look %d at a file left empty: got %d skipped, want %d", look+1, d.Skipped, want)
		}
	}
	if r, ok := d.Touched[a.PresenceID]; !ok || r != nil {
		t.Errorf("second look at a file left empty: got touched %s, want %s gone", describe(d.Touched), a.PresenceID)
	}
}

// BenchmarkDirStoreReread is what an outside write now costs the store:
// one of 1,000 files rewritten, reread by name (stat, read, decode, one
// walk of the store's memory).
//
//	go test -run '^$' -bench DirStoreReread -benchmem ./internal/dirstore/
func BenchmarkDirStoreReread(b *testing.B) {
	store, recs := dirstoretest.BenchRegistry(b, 1000)
	ctx := context.Background()
	if _, err := store.List(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r := recs[i%len(recs)]
		r.QueryCount = int64(1_000_000 + i)
		i++
		b.StopTimer()
		dirstoretest.WriteOutside(b, store.Dir(), r)
		b.StartTimer()
		if _, err := store.Reread(ctx, []string{r.PresenceID + ".json"}); err != nil {
			b.Fatal(err)
		}
	}
}
