package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/recovery"
)

// snapshotFiles and snapshotRounds size the snapshot scenario: issue 31's
// ~10,000-file repository, a snapshot a round.
const (
	snapshotFiles  = 10000
	snapshotRounds = 40
)

// snapshot measures recovery.Store.Save, the snapshot a destructive
// command's hook takes before it answers: on a 10,000-file repository
// with three files edited and one new each round, the time of a Save
// (p50 / p99 over the rounds) and what each adds to the store.
func (b *bench) snapshot(ctx context.Context) error {
	repo := filepath.Join(b.tmp, "snapshot-repo")
	if err := makeRepo(ctx, repo, snapshotFiles); err != nil {
		return err
	}
	run, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{})
	if err != nil {
		return err
	}
	store, err := recovery.Open(ctx, filepath.Join(b.tmp, "snapshot-store"), run, recovery.Limits{}, nil)
	if err != nil {
		return err
	}
	var took []time.Duration
	var bytes int64
	for r := range snapshotRounds {
		for k := range 3 {
			i := (r*3 + k) * 97 % snapshotFiles
			if err := os.WriteFile(filepath.Join(repo, repoFileRel(i)), fileContent(i, map[int]string{5: fmt.Sprintf("// round %d", r)}), 0o644); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(repo, fmt.Sprintf("new%03d.txt", r)), []byte("untracked\n"), 0o644); err != nil {
			return err
		}
		start := time.Now()
		snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: repo, Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Command: "git checkout ."}})
		if err != nil {
			return err
		}
		took = append(took, time.Since(start))
		bytes += snap.Bytes
	}
	slices.Sort(took)
	at := func(q float64) float64 {
		return float64(took[min(len(took)-1, int(q*float64(len(took))))].Microseconds()) / 1000
	}
	p99 := at(0.99)
	b.add(fmt.Sprintf("snapshot before a destructive command, %d files, 3 edited + new untracked each round: Save p50 / p99 of %d", snapshotFiles, snapshotRounds),
		fmt.Sprintf("%.1f / %.1f ms", at(0.5), p99), "p99 ≤ 150 ms (with the hook)", pass(p99 <= 150))
	b.add("snapshot: the store's growth per snapshot (mean)", fmt.Sprintf("%.1f KiB", float64(bytes)/snapshotRounds/1024), "", nil)
	return nil
}
