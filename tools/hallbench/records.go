package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hall-dev/hall/internal/presence"
)

// benchRecord is presence i of a synthetic roster.
func benchRecord(i, brains int, beatMs int64) presence.Record {
	brain := fmt.Sprintf("/bench/brain-%02d", i%brains)
	agent := fmt.Sprintf("agent-%05d", i)
	r := presence.Record{
		Schema: presence.Schema, PresenceID: presence.ID(agent, brain), AgentID: agent, Brain: brain,
		Kind: "executor", Theme: fmt.Sprintf("task %d", i),
		Worktree:    fmt.Sprintf("%s/wt-%04d", brain, i/2/brains), // pairs on a brain share a worktree
		WorkingSet:  []string{fmt.Sprintf("src/pkg%d/task%d.go", i%7, i), fmt.Sprintf("src/pkg%d/task%d_test.go", i%7, i)},
		FirstSeenMs: beatMs, LastBeatMs: beatMs, QueryCount: 1, TTLMs: 3_600_000,
	}
	// Most entries are the agent's own; a few agents also declare a file
	// every task may touch. m1nd's rule (issue 41) meets working sets by
	// the exact entry, so a file every record declared would make each
	// brain's mutating records all collide: no roster a person keeps.
	if i%8 == 0 {
		r.WorkingSet = append(r.WorkingSet, "go.mod")
	}
	if i%3 != 0 {
		r.Mutation.ObservedAtMs = beatMs
	}
	return r
}

// writeRecord writes one record atomically, as any sidecar writer must.
func writeRecord(dir string, r presence.Record) error {
	b, err := presence.EncodeRecord(r)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".tmp-"+r.PresenceID)
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, r.PresenceID+".json"))
}
