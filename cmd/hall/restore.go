package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/recovery"
)

// recoveryDir is the snapshot store's directory under the registry root.
const recoveryDir = "recovery"

const restoreAbout = `usage: hall restore --list [--worktree W] [--agent A] [--json]
       hall restore SNAP --diff [PATH…]
       hall restore SNAP [--force] [--to DIR] [PATH…]

Give back work a destructive command destroyed, from the snapshots the
Hall kept before it (in <registry-root>/recovery; docs/recovery.md).
--list lists them, newest first; --diff compares a snapshot's files with
the worktree now; otherwise the files (PATHs, or every file the snapshot
lists) are written back into the snapshot's worktree, byte-identical with
their modes and link targets. A file written since the snapshot is refused
(exit 1, nothing written) unless --force; --to DIR writes the files there
instead. The index, refs and stash are never touched.
`

// runRestore is `hall restore`: package recovery over the store under
// --registry-root, with no Hall running.
func runRestore(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hall restore", flag.ContinueOnError)
	var (
		root, worktree, agent, to string
		list, diff, force, asJSON bool
		limit                     int
		timeout                   time.Duration
	)
	fs.StringVar(&root, "registry-root", defaultRegistryRoot(), "registry root; snapshots live in <root>/"+recoveryDir)
	fs.BoolVar(&list, "list", false, "list the snapshots, newest first")
	fs.StringVar(&worktree, "worktree", "", "with --list: the snapshots of this worktree only")
	fs.StringVar(&agent, "agent", "", "with --list: the snapshots of this agent kind or presence only")
	fs.IntVar(&limit, "limit", recovery.DefaultListLimit, "with --list: the most listed")
	fs.BoolVar(&asJSON, "json", false, "answer in JSON")
	fs.BoolVar(&diff, "diff", false, "compare the snapshot's files with the worktree now")
	fs.BoolVar(&force, "force", false, "write over files changed since the snapshot")
	fs.StringVar(&to, "to", "", "write the files under this directory instead of the worktree")
	fs.DurationVar(&timeout, "timeout", time.Minute, "give up after this long")
	if err := parseFlags(fs, restoreAbout, interspersed(args), stdout, stderr); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var run *gitscan.Runner
	if !list {
		var err error
		if run, err = gitscan.NewRunner(ctx, gitscan.RunnerConfig{Timeout: timeout, Nice: -1}); err != nil {
			return err
		}
	}
	store, err := recovery.Open(ctx, filepath.Join(root, recoveryDir), run, recovery.Limits{NoPrune: true}, nil)
	if err != nil {
		return err
	}
	if list {
		if fs.NArg() > 0 {
			return &exitError{code: 2, err: fmt.Errorf("--list takes no snapshot, got %q", fs.Args())}
		}
		if worktree != "" {
			if worktree, err = filepath.Abs(worktree); err != nil {
				return &exitError{code: 2, err: err}
			}
		}
		snaps, left, err := store.List(ctx, recovery.Filter{Worktree: worktree, Agent: agent, Limit: limit})
		if err != nil {
			return err
		}
		if asJSON {
			if snaps == nil {
				snaps = []recovery.Snapshot{}
			}
			return json.NewEncoder(stdout).Encode(struct {
				Snapshots []recovery.Snapshot `json:"snapshots"`
				LeftOut   int                 `json:"left_out"`
			}{snaps, left})
		}
		for _, s := range snaps {
			printSnapshot(stdout, s)
		}
		if left > 0 {
			fmt.Fprintf(stdout, "(%d more; --limit)\n", left)
		}
		return nil
	}
	if fs.NArg() == 0 {
		return &exitError{code: 2, err: errors.New("name a snapshot (hall restore --list lists them)")}
	}
	id, paths := fs.Arg(0), fs.Args()[1:]
	if diff {
		diffs, err := store.Diff(ctx, id, paths)
		if err != nil {
			return err
		}
		if asJSON {
			return json.NewEncoder(stdout).Encode(struct {
				Files []recovery.FileDiff `json:"files"`
			}{diffs})
		}
		for _, d := range diffs {
			fmt.Fprintf(stdout, "%-8s %s\n", d.State, d.Path)
		}
		return nil
	}
	res, err := store.Restore(ctx, id, recovery.RestoreOptions{Paths: paths, Force: force, To: to})
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	for _, p := range res.Restored {
		fmt.Fprintf(stdout, "restored  %s\n", filepath.Join(res.Dir, p))
	}
	for _, p := range res.Unchanged {
		fmt.Fprintf(stdout, "unchanged %s\n", filepath.Join(res.Dir, p))
	}
	return nil
}

// interspersed moves the flags after the snapshot id and paths to the
// front, so `hall restore SNAP --diff` reads as written. "--" ends the
// flags.
func interspersed(args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(append(flags, "--"), append(rest, args[i+1:]...)...)
		case strings.HasPrefix(a, "-") && a != "-":
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue(name) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			rest = append(rest, a)
		}
	}
	return append(append(flags, "--"), rest...)
}

// takesValue names restore's flags that take a value.
func takesValue(name string) bool {
	switch name {
	case "registry-root", "worktree", "agent", "limit", "to", "timeout":
		return true
	}
	return false
}

// printSnapshot writes one snapshot as --list shows it.
func printSnapshot(w io.Writer, s recovery.Snapshot) {
	who := s.Agent
	if s.Presence != "" {
		who = strings.TrimSpace(who + " " + s.Presence)
	}
	trigger := s.Trigger.Kind
	if s.Trigger.Command != "" {
		trigger += ": " + s.Trigger.Command
	}
	fmt.Fprintf(w, "%s  %s  %s  %s  (%s)\n", s.ID, s.Taken.Local().Format(time.DateTime), s.Worktree, trigger, who)
	for _, f := range s.Files {
		fmt.Fprintf(w, "    %-12s %s\n", f.State, f.Path)
	}
	if s.FilesLeftOut > 0 {
		fmt.Fprintf(w, "    (%d more files)\n", s.FilesLeftOut)
	}
}
