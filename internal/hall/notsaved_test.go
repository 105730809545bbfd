package hall_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/agentid"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/recovery"
)

// TestSnapshotNotSavedSaysWhy (issue 40 item 16): a worktree the Hall
// cannot snapshot before a destructive command has the hook answer say
// why, typed (hook.not_saved: the worktree and its reason) and in its
// line, and counts it by reason, for each reason: a 2 GB untracked file
// (sparse) and more files than a snapshot takes are refused at once
// from git's last answer, before git reads them; a snapshot over
// --snapshot-max-bytes after git wrote it; git past the budget; a store
// git cannot write into.
func TestSnapshotNotSavedSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		reason recovery.Reason
		says   string
		lim    recovery.Limits
		budget time.Duration
		setup  func(t *testing.T, wt string, store *recovery.Store)
	}{
		{recovery.ReasonTooLarge, "too large", recovery.Limits{}, 0, func(t *testing.T, wt string, _ *recovery.Store) {
			f, err := os.Create(filepath.Join(wt, "disk.img"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(2 << 30); err != nil { // sparse: no disk used
				t.Fatal(err)
			}
		}},
		{recovery.ReasonTooManyFiles, "too many files", recovery.Limits{}, 0, func(t *testing.T, wt string, _ *recovery.Store) {
			for i := range recovery.MaxSnapshotFiles + 1 {
				name := filepath.Join(wt, "gen", fmt.Sprintf("d%03d", i/100), fmt.Sprintf("f%05d.txt", i))
				if i%100 == 0 {
					if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(name, []byte("x\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{recovery.ReasonOverMaxBytes, "over --snapshot-max-bytes", recovery.Limits{MaxBytes: 16 << 10}, 0, func(t *testing.T, wt string, _ *recovery.Store) {
			b := make([]byte, 64<<10)
			_, _ = rand.Read(b)
			if err := os.WriteFile(filepath.Join(wt, "noise.bin"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{recovery.ReasonTimeout, "git took over", recovery.Limits{}, time.Nanosecond, func(t *testing.T, wt string, _ *recovery.Store) {
			writeUntracked(t, wt)
		}},
		{recovery.ReasonFailed, "git could not take it", recovery.Limits{}, 0, func(t *testing.T, wt string, store *recovery.Store) {
			writeUntracked(t, wt)
			if err := os.RemoveAll(store.Dir()); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(store.Dir(), []byte("not a directory"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(string(tc.reason), func(t *testing.T) {
			ctx := context.Background()
			h, _, _ := newHall(t)
			s := newShop(t)
			git := gitCache{}
			h.Git = git
			h.SnapshotBudget = tc.budget
			store := withStoreLimits(t, h, tc.lim)
			tc.setup(t, s.wt2, store)
			git.scan(t, s.wt2)
			brain := hall.CompletePlace(ctx, contract.BeatRequest{CallerRoot: s.wt2})
			req := contract.BeatRequest{AgentID: agentid.Claude("5e1f-5e55-1on", ""), Brain: brain.Brain, Worktree: brain.Worktree, CallerRoot: s.wt2,
				Tool: "Bash", Hook: &contract.HookBeat{Moment: contract.MomentBefore, Command: "git clean -fdx"}}
			resp, err := h.Beat(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Hook == nil {
				t.Fatal("no hook answer")
			}
			want := []contract.NotSaved{{Worktree: s.wt2, Reason: string(tc.reason)}}
			if fmt.Sprint(resp.Hook.NotSaved) != fmt.Sprint(want) || len(resp.Hook.Snapshots) != 0 {
				t.Errorf("not_saved %+v, snapshots %v; want %+v and none", resp.Hook.NotSaved, resp.Hook.Snapshots, want)
			}
			said := strings.Join(resp.Hook.Recovery, "\n")
			if !strings.Contains(said, "not saved") || !strings.Contains(said, tc.says) {
				t.Errorf("the model reads %q; want %q and why, %q", said, "not saved", tc.says)
			}
			st := h.RecoveryStats()
			for _, r := range recovery.Reasons {
				want := int64(0)
				if r == tc.reason {
					want = 1
				}
				if st.NotSavedBy[r] != want {
					t.Errorf("not saved for %s: %d, want %d (%+v)", r, st.NotSavedBy[r], want, st)
				}
			}
			if st.NotSaved != 1 {
				t.Errorf("not saved: %d, want 1", st.NotSaved)
			}
		})
	}
}

// writeUntracked leaves an untracked file in wt, a person's work a
// git clean loses.
func writeUntracked(t *testing.T, wt string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(wt, "notes.txt"), []byte("a person's notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// withStoreLimits is withStore with the store's limits.
func withStoreLimits(t *testing.T, h *hall.Hall, lim recovery.Limits) *recovery.Store {
	t.Helper()
	run, err := gitscan.NewRunner(context.Background(), gitscan.RunnerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := recovery.Open(context.Background(), filepath.Join(t.TempDir(), "recovery"), run, lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close(context.Background()) })
	h.Recovery = store
	return store
}
