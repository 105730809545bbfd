//go:build linux

package gitscan_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
)

// TestNoChildOutlivesGit: a git that starts a long-running command (as a
// hook, a filter or an fsmonitor would) leaves nothing behind, whether
// it is killed at its timeout or ends on its own: the whole process
// group goes with it.
func TestNoChildOutlivesGit(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       gitscan.Code
	}{
		{"killed at its timeout", `sleep 300 & echo $! >> "$PIDS"; sleep 300 & echo $! >> "$PIDS"; wait`, gitscan.Timeout},
		{"ended on its own", `sleep 300 & echo $! >> "$PIDS"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			t.Setenv("PIDS", pids)
			git := fakeGit(t, `case " $* " in *" status "*) `+tc.body+`;; esac`)
			// The timeout is each git process's: the real ones before
			// status (rev-parse, config, ...) must end well inside it
			// however loaded the machine, or status never runs (at one
			// second, a load of 13 timed one out first).
			g := newRunner(t, gitscan.RunnerConfig{Path: git, Timeout: 5 * time.Second})
			a := newRepo(t).worktree("a")
			_, gitErr := g.Changes(context.Background(), a, gitscan.ChangesOptions{})
			if got := gitscan.CodeOf(gitErr); got != tc.want {
				t.Fatalf("code %q, want %q (%v)", got, tc.want, gitErr)
			}
			b, err := os.ReadFile(pids)
			if err != nil {
				t.Fatalf("git status never ran (%v): %v", err, gitErr)
			}
			for _, p := range strings.Fields(string(b)) {
				pid, _ := strconv.Atoi(p)
				// A SIGKILL lands at once but is not a wait: give the
				// kernel (and init, which reaps the orphan) a bounded while.
				deadline := time.Now().Add(10 * time.Second)
				for alive(pid) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if alive(pid) {
					t.Errorf("git's child %d outlived it", pid)
				}
			}
		})
	}
}

// alive reports whether pid is a process that has not ended (a zombie
// waiting for its parent to reap it has ended).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// "pid (comm) S ...": the state follows the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}
