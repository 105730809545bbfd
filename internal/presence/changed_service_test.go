package presence_test

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
)

// TestBeatCarriesGitsList: a beat takes git's latest answer for the
// record's worktree (Beat.Git) into the record and the store; the same
// answer again, rescanned later, is held by the throttle as any
// unchanged beat is; a new list is written at once; no answer leaves the
// record's as it was.
func TestBeatCarriesGitsList(t *testing.T) {
	svc, store, clk, _ := newTestService(t, presence.Config{})
	const wt = "/home/ana/shop-wt2"
	id := presence.ID("claude-7", brain)
	var (
		files  atomic.Pointer[[]string]
		answer atomic.Bool
		asked  atomic.Value
	)
	answer.Store(true)
	git := func(worktree string) (presence.GitChanges, bool) {
		asked.Store(worktree)
		f := *files.Load()
		return presence.GitChanges{Files: f, Total: len(f), AtMs: clk.Now().UnixMilli() - 500}, answer.Load()
	}
	beat := func() presence.BeatResult {
		return mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: brain, Tool: "Edit", Git: git})
	}
	first := []string{"src/a.go", "src/b.go"}
	files.Store(&first)
	mustBeat(t, svc, presence.Beat{AgentID: "claude-7", Brain: brain, Worktree: wt, Tool: "Edit", Git: git})
	if got := asked.Load(); got != wt {
		t.Fatalf("git asked for %v, want the record's worktree %s", got, wt)
	}
	disk := dirstoretest.ReadRecord(t, store.Dir(), id)
	if !slices.Equal(disk.Changed, first) || disk.ChangedTotal != 2 || disk.ChangedAtMs != clk.Now().UnixMilli()-500 {
		t.Fatalf("stored: changed %v total %d at %d, want %v, 2, the scan's time", disk.Changed, disk.ChangedTotal, disk.ChangedAtMs, first)
	}

	clk.Advance(time.Second)
	again := []string{"src/a.go", "src/b.go"} // rescanned: equal, another slice
	files.Store(&again)
	if res := beat(); !res.Throttled {
		t.Errorf("the same list rescanned: got stored=%v throttled=%v, want held by the throttle", res.Stored, res.Throttled)
	}

	clk.Advance(time.Second)
	next := []string{"src/a.go", "src/b.go", "src/c.go"}
	files.Store(&next)
	if res := beat(); !res.Stored {
		t.Errorf("a new file in git's list: got stored=%v throttled=%v, want written at once", res.Stored, res.Throttled)
	}
	if disk := dirstoretest.ReadRecord(t, store.Dir(), id); !slices.Equal(disk.Changed, next) {
		t.Errorf("stored after the new list: %v, want %v", disk.Changed, next)
	}

	clk.Advance(time.Second)
	answer.Store(false)
	if res := beat(); !res.Throttled {
		t.Errorf("no answer from git: got stored=%v, want held (nothing new)", res.Stored)
	}
	if got := snapshotRecord(t, svc, id); !slices.Equal(got.Changed, next) {
		t.Errorf("no answer from git: the record holds %v, want %v kept", got.Changed, next)
	}
}
