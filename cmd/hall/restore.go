package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/hall"
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
their modes and link targets, nothing outside the worktree (or DIR) and
nothing through a symbolic link. A file written since the snapshot, or a
FIFO, socket or directory where it was, is refused (exit 1, nothing
written) unless --force; a file under a symbolic link is refused even then;
--to DIR writes the files there instead. An entry of the snapshot that is
not a clean relative path (../x, .git/x) is never written: listed as
refused. The index, refs and stash are never touched.
`

// runRestore is `hall restore`: the Hall's snapshot operations
// (hall.Hall's Snapshots, SnapshotFiles, Restore) over the store under
// --registry-root, with no Hall running. Everything it prints that a
// snapshot or a worktree holds (names, commands, errors) goes through
// terminalText.
func runRestore(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	err := restoreCommand(ctx, args, stdin, stdout, stderr)
	var ee *exitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee) && ee.err != nil:
		return &exitError{code: ee.code, err: errors.New(terminalText(ee.err.Error()))}
	case errors.As(err, &ee):
		return err
	default:
		return errors.New(terminalText(err.Error()))
	}
}

// restoreCommand is runRestore before its error is made printable.
func restoreCommand(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
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
	// --list runs git only to finish a snapshot a dead Hall left
	// (recovery's orphans): without git it lists what is finished.
	run, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{Timeout: timeout, Nice: -1})
	if err != nil && !list {
		return err
	}
	if err != nil {
		run = nil
	}
	store, err := recovery.Open(ctx, filepath.Join(root, recoveryDir), run, recovery.Limits{NoPrune: true}, nil)
	if err != nil {
		return err
	}
	// The one door: the Hall's operations over the store, with no Hall
	// serving (their bounds, the uid rule); no client key, no rate limit.
	app := &hall.Hall{Recovery: store}
	defer app.Close()
	if list {
		if fs.NArg() > 0 {
			return &exitError{code: 2, err: fmt.Errorf("--list takes no snapshot, got %q", fs.Args())}
		}
		if worktree != "" {
			if worktree, err = filepath.Abs(worktree); err != nil {
				return &exitError{code: 2, err: err}
			}
		}
		out, err := app.Snapshots(ctx, worktree, agent, limit)
		if err != nil {
			return refusalExit(err)
		}
		if asJSON {
			return json.NewEncoder(stdout).Encode(out)
		}
		for _, s := range out.Snapshots {
			printSnapshot(stdout, s)
		}
		if out.LeftOut > 0 {
			fmt.Fprintf(stdout, "(%d more; --limit)\n", out.LeftOut)
		}
		return nil
	}
	if fs.NArg() == 0 {
		return &exitError{code: 2, err: errors.New("name a snapshot (hall restore --list lists them)")}
	}
	id, paths := fs.Arg(0), fs.Args()[1:]
	if diff {
		out, err := app.SnapshotFiles(ctx, id, paths)
		if err != nil {
			return refusalExit(err)
		}
		if asJSON {
			return json.NewEncoder(stdout).Encode(out)
		}
		for _, d := range out.Files {
			line := fmt.Sprintf("%-8s %s", d.State, terminalText(d.Path))
			if d.Why != "" {
				line += "  (" + terminalText(d.Why) + ")"
			}
			fmt.Fprintln(stdout, line)
		}
		return nil
	}
	res, err := app.Restore(ctx, id, recovery.RestoreOptions{Paths: paths, Force: force, To: to})
	// A write that failed midway (a full disk) says which files it wrote
	// first, and the error after them.
	for _, p := range res.Restored {
		fmt.Fprintf(stdout, "restored  %s\n", terminalText(filepath.Join(res.Dir, p)))
	}
	for _, p := range res.Unchanged {
		fmt.Fprintf(stdout, "unchanged %s\n", terminalText(filepath.Join(res.Dir, p)))
	}
	if err == nil {
		for _, r := range res.Refused {
			fmt.Fprintf(stdout, "refused   %s  (%s)\n", terminalText(r.Path), terminalText(r.Why))
		}
	}
	return err
}

// refusalExit is a refusal of the Hall's operations as hall restore
// exits with it: its detail alone (no Hall answered: the operation ran
// here), exit 2 for a request that broke a rule (a --limit out of range,
// a path outside the worktree), 1 for anything else (no such snapshot,
// another user's worktree, a store that cannot be read).
func refusalExit(err error) error {
	var r *contract.Error
	if !errors.As(err, &r) {
		return err
	}
	code := 1
	if r.BadInput() {
		code = 2
	}
	return &exitError{code: code, err: errors.New(r.Detail)}
}

// terminalText is text from a snapshot, a worktree or another agent as
// hall restore prints it: as it is when every character is printable,
// else Go-quoted ("x\x1b]0;title\a.txt"), so no control character (C0,
// C1, DEL: an escape sequence that retitles or clears the terminal), no
// invisible format character and no byte that is not UTF-8 reaches the
// terminal raw, and a quoted name reads as one.
func terminalText(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || (!unicode.IsPrint(r) && r != ' ') {
			return strconv.Quote(s)
		}
	}
	return s
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
	fmt.Fprintf(w, "%s  %s  %s  %s  (%s)\n", s.ID, s.Taken.Local().Format(time.DateTime), terminalText(s.Worktree), terminalText(trigger), terminalText(who))
	for _, f := range s.Files {
		fmt.Fprintf(w, "    %-12s %s\n", f.State, terminalText(f.Path))
	}
	if s.FilesLeftOut > 0 {
		fmt.Fprintf(w, "    (%d more files)\n", s.FilesLeftOut)
	}
	for _, r := range s.Refused {
		fmt.Fprintf(w, "    %-12s %s  (%s)\n", "refused", terminalText(r.Path), terminalText(r.Why))
	}
}
