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

// niceOf is the nice value in a /proc stat file (its 19th field, counted
// after the command's name, which may hold spaces).
func niceOf(t *testing.T, stat string) int {
	t.Helper()
	i := strings.LastIndexByte(stat, ')')
	fields := strings.Fields(stat[i+1:]) // fields 3 onwards
	if len(fields) < 17 {
		t.Fatalf("stat %q: too few fields", stat)
	}
	n, err := strconv.Atoi(fields[16])
	if err != nil {
		t.Fatalf("stat %q: nice: %v", stat, err)
	}
	return n
}

// TestGitRunsNiced: git, and what it runs, has the runner's nice value
// (or the Hall's own where that is lower already), -1 keeps the Hall's;
// no thread of the Hall is left lowered.
func TestGitRunsNiced(t *testing.T) {
	selfStat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	own := niceOf(t, string(selfStat))
	// A git alias run by git's shell prints its own stat: a child of git
	// has git's nice value.
	args := []string{"-c", "alias.whoami=!cat /proc/self/stat", "whoami"}
	for _, tc := range []struct {
		nice int
		want int
	}{
		{0, max(own, gitscan.DefaultNice)},
		{15, max(own, 15)},
		{-1, own},
	} {
		r := newRunner(t, gitscan.RunnerConfig{Nice: tc.nice})
		for range 5 {
			out, err := r.Run(t.Context(), gitscan.Cmd{Dir: t.TempDir(), Args: args})
			if err != nil {
				t.Fatal(err)
			}
			if got := niceOf(t, string(out.Stdout)); got != tc.want {
				t.Errorf("Nice %d: git ran at nice %d, want %d", tc.nice, got, tc.want)
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
			if niceOf(t, string(stat)) != own {
				return false
			}
		}
		return true
	})
}
