package gitscan_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gitscan"
)

// statField is a field of a /proc stat file, numbered as proc(5) does
// (counted after the command's name, which may hold spaces).
func statField(t *testing.T, stat string, n int) int {
	t.Helper()
	i := strings.LastIndexByte(stat, ')')
	fields := strings.Fields(stat[i+1:]) // fields 3 onwards
	if len(fields) < n-2 {
		t.Fatalf("stat %q: too few fields", stat)
	}
	v, err := strconv.Atoi(fields[n-3])
	if err != nil {
		t.Fatalf("stat %q: field %d: %v", stat, n, err)
	}
	return v
}

// niceOf is the nice value in a /proc stat file (its 19th field).
func niceOf(t *testing.T, stat string) int { return statField(t, stat, 19) }

// policyOf is the scheduling policy in a /proc stat file (its 41st field:
// 0 normal, 5 SCHED_IDLE).
func policyOf(t *testing.T, stat string) int { return statField(t, stat, 41) }

const schedIdle = 5

// TestGitRunsNiced: git, and what it runs, has the runner's nice value
// (or the Hall's own where that is lower already), -1 keeps the Hall's,
// and SCHED_IDLE when asked; no thread of the Hall is left lowered.
func TestGitRunsNiced(t *testing.T) {
	selfStat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	own := niceOf(t, string(selfStat))
	// A git alias run by git's shell prints its own stat: a child of git
	// has git's nice value.
	args := []string{"-c", "alias.whoami=!cat /proc/self/stat", "whoami"}
	ownPolicy := policyOf(t, string(selfStat))
	for _, tc := range []struct {
		nice       int
		idle       bool
		want       int
		wantPolicy int
	}{
		{0, false, max(own, gitscan.DefaultNice), ownPolicy},
		{15, false, max(own, 15), ownPolicy},
		{-1, false, own, ownPolicy},
		{0, true, max(own, gitscan.DefaultNice), schedIdle},
		{-1, true, own, schedIdle},
	} {
		r := newRunner(t, gitscan.RunnerConfig{Nice: tc.nice, Idle: tc.idle})
		for range 5 {
			out, err := r.Run(t.Context(), gitscan.Cmd{Dir: t.TempDir(), Args: args})
			if err != nil {
				t.Fatal(err)
			}
			if got := niceOf(t, string(out.Stdout)); got != tc.want {
				t.Errorf("Nice %d: git ran at nice %d, want %d", tc.nice, got, tc.want)
			}
			if got := policyOf(t, string(out.Stdout)); got != tc.wantPolicy {
				t.Errorf("Nice %d, Idle %v: git ran under policy %d, want %d", tc.nice, tc.idle, got, tc.wantPolicy)
			}
		}
	}
	// A lowered thread ends with the goroutine that started git: none
	// stays to run anything else.
	eventually.True(t, 10*time.Second, "no thread of the process left lowered", func() bool {
		threads, err := filepath.Glob("/proc/self/task/*/stat")
		if err != nil || len(threads) == 0 {
			t.Fatalf("threads: %v %v", threads, err)
		}
		for _, th := range threads {
			stat, err := os.ReadFile(th)
			if err != nil {
				continue // the thread ended meanwhile
			}
			if niceOf(t, string(stat)) != own || policyOf(t, string(stat)) != ownPolicy {
				return false
			}
		}
		return true
	})
}
