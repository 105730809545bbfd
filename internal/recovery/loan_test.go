package recovery_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"testing"

	"github.com/hall-dev/hall/internal/fifotest"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/recovery"
)

// TestLenderMovedMidWriteTree: the snapshot a new one borrows from is
// still being finished, and is renamed from <id>.tmp into place while
// the new one's git write-tree runs, after git read the loan (the
// directory then at <id>.tmp alone) and before it looks for the objects
// it found there a moment before (git add did not write them again).
// The new snapshot is saved all the same, whole.
//
// The race is made deterministic with a gate: once the loan is written
// (AfterBorrow), one more alternate is named after it whose own
// info/alternates is a FIFO, so each git process of the snapshot stops
// reading its alternates right after it linked <id>.tmp and found
// <id> missing; the test lets the lender finish while the third git
// process (rev-parse, add, write-tree) waits there.
func TestLenderMovedMidWriteTree(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, false)
	// More than one git at once: the lender's finishing runs its own
	// while the snapshot's write-tree waits at the gate.
	run, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{MaxProcs: 4})
	if err != nil {
		t.Fatal(err)
	}
	store, err := recovery.Open(ctx, filepath.Join(t.TempDir(), "recovery"), run, recovery.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	open := holdNext(store)
	defer open()
	write(t, filepath.Join(wt, "dir", "x.txt"), "x, first edit\n", 0o644)
	first := takeShell(t, store, wt, "git stash")

	gate := filepath.Join(t.TempDir(), "gate", "objects")
	if err := os.MkdirAll(filepath.Join(gate, "info"), 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(gate, "info", "alternates")
	fifotest.Make(t, fifo)
	recovery.AfterBorrow(store, func(objects string) {
		f, err := os.OpenFile(filepath.Join(objects, "info", "alternates"), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		if _, err := f.WriteString(gate + "\n"); err != nil {
			t.Error(err)
		}
	})
	before := run.Processes()
	var gated sync.WaitGroup
	stop := make(chan struct{})
	moved := false
	gated.Go(func() {
		for {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // until a git reads the gate
			if err != nil {
				t.Error(err)
				return
			}
			select {
			case <-stop:
				w.Close()
				return
			default:
			}
			if !moved && run.Processes()-before == 3 { // write-tree
				open()
				if err := store.Wait(ctx, first.ID); err != nil {
					t.Errorf("the lender: %v", err)
				}
				if _, err := os.Stat(filepath.Join(store.Dir(), first.ID+".tmp")); !os.IsNotExist(err) {
					t.Errorf("the lender's <id>.tmp after its record: %v, want gone", err)
				}
				moved = true
			}
			w.Close()
		}
	})
	write(t, filepath.Join(wt, "b.txt"), "b, second edit\n", 0o644)
	second, err := store.Take(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Command: "git reset --hard"}})
	close(stop)
	if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil { // lets the gate's last open end
		defer r.Close()
	}
	gated.Wait()
	if !moved {
		t.Fatal("the lender was never moved while the snapshot's write-tree waited at the gate: the test no longer reproduces the race")
	}
	if err != nil {
		t.Fatalf("a snapshot whose lender moved while its write-tree ran: %v, want saved", err)
	}
	if err := store.Wait(ctx, second.ID); err != nil {
		t.Fatal(err)
	}
	selfContained(t, store, wt, second.ID, first.ID, "dir/x.txt", "b.txt")
}
