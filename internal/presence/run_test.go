package presence_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// startRun runs svc.Run until the test ends and returns a stop function
// that cancels it and waits for it to return.
func startRun(tb testing.TB, svc *presence.Service, cfg presence.RunConfig) (stop func()) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx, cfg) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("Run: got %v, want nil on cancel", err)
			}
		case <-time.After(15 * time.Second):
			tb.Fatalf("Run did not return within 15s of cancel")
		}
	}
	tb.Cleanup(stop)
	return stop
}

func foreignRecordJSON(agent, brain string, lastBeatMs, ttlMs int64) []byte {
	return []byte(fmt.Sprintf(`{"presence_id":%q,"agent_id":%q,"brain":%q,"last_beat_ms":%d,"ttl_ms":%d,"mutation":{"observed_at_ms":%d},"worktree":"/w/shared","runtime":"m1nd"}`,
		presence.ID(agent, brain), agent, brain, lastBeatMs, ttlMs, lastBeatMs))
}

// While Run is active, a record another process writes appears, a record
// it removes leaves, and a record whose ttl runs out leaves though no file
// changed; each is announced on Changed.
func TestServiceRunFollowsStoreAndExpiry(t *testing.T) {
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{})
	startRun(t, svc, presence.RunConfig{Rescan: time.Hour}) // only the watch and the expiry timer can deliver

	long := presence.ID("m1nd-long", "/srv/brain")
	dirstoretest.WriteFile(t, store.Dir(), long+".json", foreignRecordJSON("m1nd-long", "/srv/brain", time.Now().UnixMilli(), 0))
	untilSnapshot(t, svc, "a foreign record to appear", func(s presence.Snapshot) bool {
		_, ok := s.Find(long)
		return ok
	})

	// ttl_ms 300, its beat stamped a second ahead so a loaded machine still
	// sees it live before it lapses: what is under test is that the lapse
	// alone, with no file event, removes it and signals the change.
	short := presence.ID("m1nd-short", "/srv/brain")
	shortFile := dirstoretest.WriteFile(t, store.Dir(), short+".json", foreignRecordJSON("m1nd-short", "/srv/brain", time.Now().UnixMilli()+1000, 300))
	snap := untilSnapshot(t, svc, "the short-lived record to appear", func(s presence.Snapshot) bool {
		_, ok := s.Find(short)
		return ok
	})
	if got := len(snap.Collisions); got != 1 {
		t.Errorf("collisions while both live: got %d, want 1", got)
	}
	snap = untilSnapshot(t, svc, "the short-lived record to lapse", func(s presence.Snapshot) bool {
		_, ok := s.Find(short)
		return !ok
	})
	if _, ok := snap.Find(long); !ok {
		t.Errorf("after the lapse: got %v live, want %s still live", presencetest.IDs(snap.Live), long)
	}
	if got := len(snap.Collisions); got != 0 {
		t.Errorf("collisions after the lapse: got %d, want 0", got)
	}
	if _, err := os.Stat(shortFile); err != nil {
		t.Errorf("lapsed record file: got %v, want it still on disk (staleness is filtered at read)", err)
	}

	// Another process removes a record: it leaves.
	if err := os.Remove(filepath.Join(store.Dir(), long+".json")); err != nil {
		t.Fatal(err)
	}
	untilSnapshot(t, svc, "a removed record to leave", func(s presence.Snapshot) bool {
		_, ok := s.Find(long)
		return !ok
	})
}

// Run flushes every held beat when it returns, and leaves no goroutine
// of its own behind.
func TestServiceRunFlushesOnReturn(t *testing.T) {
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{})
	stop := startRun(t, svc, presence.RunConfig{})
	b := presence.Beat{AgentID: "claude-7", Brain: "/b"}
	if res := mustBeat(t, svc, b); !res.Stored {
		t.Fatalf("first beat: got %+v, want stored", res)
	}
	if res := mustBeat(t, svc, b); !res.Throttled {
		t.Fatalf("second beat: got %+v, want throttled", res)
	}
	if got := dirstoretest.ReadRecord(t, store.Dir(), presence.ID("claude-7", "/b")).QueryCount; got != 1 {
		t.Fatalf("query_count before Run returns: got %d, want 1", got)
	}
	stop()
	if got := dirstoretest.ReadRecord(t, store.Dir(), presence.ID("claude-7", "/b")).QueryCount; got != 2 {
		t.Errorf("query_count after Run returned: got %d, want 2 (the held beat flushed)", got)
	}
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, fn := range []string{"(*Service).watchLoop", "(*dirstore.Store).Watch", "(*Service).Run"} {
		if strings.Contains(stacks, fn) {
			t.Errorf("after Run returned: got a goroutine in %s, want none", fn)
		}
	}
}
