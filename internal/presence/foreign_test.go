package presence_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
)

// A foreign writer's record is served repaired (presence.DecodeRecordRepaired)
// and counted on the snapshot, through a listing and through a reread;
// one with a relative brain is shown, its brain as written (m1nd writes
// it so).
func TestForeignRecordsRepairedAndCounted(t *testing.T) {
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{})
	now := time.Now().UnixMilli()
	bad := presence.ID("m1nd-bad", brain)
	dirstoretest.WriteFile(t, store.Dir(), bad+".json", []byte(fmt.Sprintf(
		`{"presence_id":%q,"agent_id":"m1nd-bad","brain":%q,"last_beat_ms":%d,"query_count":-4,"touched_omitted":-5}`, bad, brain, now)))
	rel := presence.ID("m1nd-rel", "srv")
	dirstoretest.WriteFile(t, store.Dir(), rel+".json", []byte(fmt.Sprintf(
		`{"presence_id":%q,"agent_id":"m1nd-rel","brain":"srv","last_beat_ms":%d}`, rel, now)))

	snap, err := svc.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	r, ok := snap.Find(bad)
	if !ok || r.QueryCount != 0 || r.TouchedOmitted != 0 {
		t.Fatalf("the repaired record: got %+v (found %v), want query_count and touched_omitted 0", r, ok)
	}
	if snap.Repaired != 1 || snap.Skipped != 0 || len(snap.Live) != 2 {
		t.Errorf("got %d live, %d repaired, %d skipped; want 2, 1, 0 (the relative brain shown)", len(snap.Live), snap.Repaired, snap.Skipped)
	}
	if r, ok := snap.Find(rel); !ok || r.Brain != "srv" {
		t.Errorf("the relative brain's record: got %+v (found %v), want brain \"srv\" as written", r, ok)
	}

	svc.ReadFromCache()
	dirstoretest.Remove(t, filepath.Dir(store.Dir()), bad)
	if err := svc.RereadKeys(t.Context(), []string{bad + ".json"}); err != nil {
		t.Fatal(err)
	}
	if snap, _ := svc.Snapshot(t.Context()); snap.Repaired != 0 {
		t.Errorf("after the repaired record left: got %d repaired, want 0", snap.Repaired)
	}
}
