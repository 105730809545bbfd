package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestOverlapsMeasures runs the overlaps scenario small (4 worktrees of
// 60 files, one round a side, memory at 5 worktrees) against the real
// hall binary and git, and checks that each figure measures what it
// says: on the git-on Hall every probe is seen with git's answer and each
// conflict told to both sides in their hook answers; on the git-off Hall
// the overlaps are the hooks' observed ones, never git's; hook calls are
// timed on both; the scanner counted scans; CPU and memory were read. No
// time is asserted: a probe's window is far longer than a scan.
func TestOverlapsMeasures(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the hall binary and runs two Halls for a minute")
	}
	ctx := t.Context()
	b := &bench{tmp: t.TempDir()}
	var err error
	if b.hall, err = buildHall(ctx, b.tmp); err != nil {
		t.Fatal(err)
	}
	z := overlapSizes{files: 60, worktrees: 4, memWorktrees: 5, rounds: 1, cycles: 1, stagger: time.Second, window: 20 * time.Second, memFor: time.Second, steady: 2 * time.Second}
	ons, offs, mem, err := b.overlapRounds(ctx, z)
	if err != nil {
		t.Fatal(err)
	}
	if len(ons) != 1 || len(offs) != 1 || mem == nil {
		t.Fatalf("got %d on rounds, %d off, memory round %v; want 1, 1 and one", len(ons), len(offs), mem != nil)
	}
	on, off := ons[0], offs[0]
	if len(on.probes) != 2 || len(off.probes) != 2 {
		t.Fatalf("got %d probes on, %d off; want 2 each (4 agents: 2 pairs)", len(on.probes), len(off.probes))
	}
	conflicts := 0
	for _, p := range on.probes {
		if p.second.IsZero() || p.seenAny.IsZero() || p.seenGit.IsZero() {
			t.Errorf("git on, probe %s (conflict %v): second %v, seen %v, with git %v; want all three", p.rel, p.conflict, p.second, p.seenAny, p.seenGit)
		}
		if p.conflict {
			conflicts++
			if p.toldA.IsZero() || p.toldB.IsZero() {
				t.Errorf("git on, conflict %s told a at %v, b at %v; want both told", p.rel, p.toldA, p.toldB)
			}
		}
	}
	if conflicts != 1 {
		t.Errorf("got %d conflict probes of 2, want 1", conflicts)
	}
	for _, p := range off.probes {
		if p.seenAny.IsZero() || !p.seenGit.IsZero() || !p.toldA.IsZero() || !p.toldB.IsZero() {
			t.Errorf("git off, probe %s: seen %v, with git %v, told %v/%v; want observed only", p.rel, p.seenAny, p.seenGit, p.toldA, p.toldB)
		}
	}
	for _, r := range []obRound{on, off, *mem} {
		r.times.mu.Lock()
		pre, post, errs := len(r.times.pre), len(r.times.post), r.times.errors
		r.times.mu.Unlock()
		if pre == 0 || post == 0 || errs != 0 {
			t.Errorf("git %v: %d PreToolUse and %d PostToolUse calls timed, %d errors; want some, no errors", r.git, pre, post, errs)
		}
		r.times.mu.Lock()
		steady := len(r.times.steadyPre) + len(r.times.steadyPost)
		r.times.mu.Unlock()
		if probed := r.probes != nil; probed != (steady > 0) {
			t.Errorf("git %v: %d calls timed in the steady phase, probes %v; want calls in it on a probed round, none in the memory round", r.git, steady, probed)
		}
		if r.rss.totalKiB == 0 || r.elapsed <= 0 {
			t.Errorf("git %v: resident %d KiB over %s; want both read", r.git, r.rss.totalKiB, r.elapsed)
		}
	}
	if on.gitStats["scans_total"] == 0 || on.gitStats["merge_checks_total"] == 0 || off.gitStats["scans_total"] != 0 {
		t.Errorf("scans %v and merges %v on, scans %v off; want scans and merges on, none off", on.gitStats["scans_total"], on.gitStats["merge_checks_total"], off.gitStats["scans_total"])
	}
	if got := mem.gitStats["tracked"]; got != 5 {
		t.Errorf("memory round tracked %v worktrees, want 5", got)
	}
	b.overlapRows(z, ons, offs)
	if len(b.rows) == 0 || !strings.Contains(b.rows[0].value, "2 probes") {
		t.Errorf("rows %+v; want the overlap figure over 2 probes first", b.rows)
	}
	steadyRows := 0
	for _, r := range b.rows {
		if strings.Contains(r.figure, "steady work") {
			steadyRows++
		}
	}
	if steadyRows != 2 {
		t.Errorf("%d rows of the steady phase, want 2 (PreToolUse, PostToolUse)", steadyRows)
	}
}

// TestPairing: each round pairs every agent (but one, when odd) with
// another, and no pair meets twice in n-1 rounds.
func TestPairing(t *testing.T) {
	for _, n := range []int{2, 3, 4, 7, 50} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			met := map[[2]int]bool{}
			rounds := n - 1
			if n%2 == 1 {
				rounds = n
			}
			for r := range rounds {
				seen := map[int]bool{}
				for _, p := range pairing(n, r) {
					if p[0] == p[1] || seen[p[0]] || seen[p[1]] {
						t.Fatalf("round %d: pair %v repeats an agent", r, p)
					}
					seen[p[0]], seen[p[1]] = true, true
					k := [2]int{min(p[0], p[1]), max(p[0], p[1])}
					if met[k] {
						t.Fatalf("round %d: pair %v met before", r, k)
					}
					met[k] = true
				}
				if got, want := len(seen), n-n%2; got != want {
					t.Fatalf("round %d: %d agents paired, want %d", r, got, want)
				}
			}
		})
	}
}

// TestParseStatCPU reads utime+stime and cutime+cstime past a command
// name with spaces and parentheses.
func TestParseStatCPU(t *testing.T) {
	stat := "4242 (hall (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 50 30 20 20 0 12 0 100 1000 200"
	got, err := parseStatCPU(stat)
	if err != nil {
		t.Fatal(err)
	}
	if want := (cpuTimes{self: 2 * time.Second, children: 500 * time.Millisecond}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := parseStatCPU("garbage"); err == nil {
		t.Error("garbage parsed, want an error")
	}
}
