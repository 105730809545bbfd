package presence_test

import (
	"context"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// Record.Equal must see a change in any field, or a change would go
// unsignalled, a brain's collisions would be served stale, and the live
// stream would miss an update. A field added to Record fails here until
// Equal compares it.
func TestRecordEqualSeesEveryField(t *testing.T) {
	base := presencetest.Rec("a", brain, presencetest.WS("src"), presencetest.CallerRoot("/r"), presencetest.Worktree("/w"))
	if clone := base.Clone(); !base.Equal(&base) || !base.Equal(&clone) {
		t.Fatal("Equal: a record differs from itself")
	}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		for i := 0; i < v.NumField(); i++ {
			f, name := v.Field(i), path+v.Type().Field(i).Name
			if f.Kind() == reflect.Struct {
				walk(f, name+".")
				continue
			}
			changed := base.Clone()
			cv := reflect.ValueOf(&changed).Elem()
			for _, part := range splitPath(name) {
				cv = cv.FieldByName(part)
			}
			switch cv.Kind() {
			case reflect.String:
				cv.SetString(cv.String() + "x")
			case reflect.Int64:
				cv.SetInt(cv.Int() + 1)
			case reflect.Slice:
				// One element of the slice's type, its strings "other".
				elem := reflect.New(cv.Type().Elem()).Elem()
				if elem.Kind() == reflect.String {
					elem.SetString("other")
				} else {
					for j := 0; j < elem.NumField(); j++ {
						if elem.Field(j).Kind() == reflect.String {
							elem.Field(j).SetString("other")
						}
					}
				}
				cv.Set(reflect.Append(reflect.MakeSlice(cv.Type(), 0, 1), elem))
			default:
				t.Fatalf("field %s: kind %s not covered by this test", name, cv.Kind())
			}
			if base.Equal(&changed) {
				t.Errorf("Equal: a change of %s is not seen", name)
			}
		}
	}
	walk(reflect.ValueOf(base), "")
}

func splitPath(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '.' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// Snapshot derives again only the brains whose live records changed; its
// collisions stay exactly CollisionsIn over the whole live roster through
// writes, beats, leaves, brains emptied and records going stale.
func TestSnapshotCollisionsEqualAWholeDerivation(t *testing.T) {
	ctx := context.Background()
	clk := presencetest.NewClock(presencetest.T0)
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Now: clk.Now})
	rng := rand.New(rand.NewSource(3))
	roster := presencetest.BenchRoster(300)
	for i := range roster {
		roster[i].TTLMs = int64(60_000 + rng.Intn(120_000))
		if err := store.Upsert(ctx, roster[i]); err != nil {
			t.Fatal(err)
		}
	}
	for step := 0; step < 60; step++ {
		snap, err := svc.Snapshot(ctx) // not watching: a listing, then the derivation
		if err != nil {
			t.Fatal(err)
		}
		want := presence.CollisionsIn("", snap.Live)
		if !reflect.DeepEqual(snap.Collisions, want) {
			t.Fatalf("step %d: Snapshot's collisions (%d) differ from CollisionsIn over its live roster (%d)", step, len(snap.Collisions), len(want))
		}
		if step > 0 && len(snap.Live) == 0 {
			break
		}
		// Change a few records: move them, drop their mutation, remove
		// them, or let the clock age the roster.
		for k := 0; k < 1+rng.Intn(4); k++ {
			r := roster[rng.Intn(len(roster))]
			switch rng.Intn(5) {
			case 0:
				store.Delete(ctx, r.PresenceID)
				continue
			case 1:
				r.Mutation = presence.Mutation{}
			case 2:
				r.Worktree, r.CallerRoot = roster[rng.Intn(len(roster))].Worktree, ""
			case 3:
				r.WorkingSet = append([]string(nil), roster[rng.Intn(len(roster))].WorkingSet...)
			}
			r.LastBeatMs = clk.Now().UnixMilli()
			if err := store.Upsert(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if rng.Intn(3) == 0 {
			clk.Advance(time.Duration(rng.Intn(40)) * time.Second)
		}
	}
}
