package main

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/shellword"
)

// The pushed scenario counts the git processes a Hall starts with a git
// of its own (--git): a script that writes one line a process (the time
// and argv) to a log and execs the real git. It sees every process the
// Hall starts, the scanner's and the watch's; not git's own children
// (index-pack, upload-pack on a file:// remote's side, a partial clone's
// lazy fetch), which git finds in its exec path, not through --git.

// gitLogSep parts a log line's fields: the time and each argument. An
// argument the Hall passes never holds it.
const gitLogSep = "\x1f"

// writeGitWrapper writes the counting git into dir, logging to log, and
// returns its path.
func writeGitWrapper(dir, log string) (string, error) {
	real, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("the real git: %w", err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// bash for $EPOCHREALTIME (5.0): a date process a line would be
	// counted by no one but would cost a fork each.
	script := "#!/bin/bash\nIFS=$'\\037'\nprintf '%s\\037%s\\n' \"$EPOCHREALTIME\" \"$*\" >> " + shellword.Quote(log) +
		"\nexec " + shellword.Quote(real) + " \"$@\"\n"
	path := filepath.Join(dir, "git")
	return path, os.WriteFile(path, []byte(script), 0o755)
}

// gitRun is one process the counting git logged.
type gitRun struct {
	at   time.Time
	args []string
}

// readGitLog reads the counting git's log; a missing log is no process.
func readGitLog(path string) ([]gitRun, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var runs []gitRun
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		f := strings.Split(string(l), gitLogSep)
		sec, err := strconv.ParseFloat(strings.Replace(f[0], ",", ".", 1), 64)
		if err != nil {
			return nil, fmt.Errorf("git log line %q: %w", l, err)
		}
		runs = append(runs, gitRun{at: time.UnixMicro(int64(sec * 1e6)), args: f[1:]})
	}
	return runs, nil
}

// gitKind names a process by its subcommand, past git's own options
// (-C dir, -c key=value, --no-pager); ls-remote by what it asks: a look
// (--heads), the default branch (--symref), a remote's URL (--get-url,
// which connects to nothing).
func gitKind(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c":
			i++
		case strings.HasPrefix(a, "-"):
		case a == "ls-remote":
			for _, o := range args[i+1:] {
				if o == "--heads" || o == "--symref" || o == "--get-url" {
					return a + " " + o
				}
			}
			return a
		default:
			return a
		}
	}
	return "(none)"
}

// gitCounts counts runs by kind, those at or after from and before to.
func gitCounts(runs []gitRun, from, to time.Time) map[string]int {
	n := map[string]int{}
	for _, r := range runs {
		if !r.at.Before(from) && r.at.Before(to) {
			n[gitKind(r.args)]++
		}
	}
	return n
}

// fmtCounts is counts as "kind n, …", the most frequent first, or
// "none".
func fmtCounts(n map[string]int) string {
	kinds := make([]string, 0, len(n))
	for k := range n {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if c := cmp.Compare(n[b], n[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, n[k])
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
