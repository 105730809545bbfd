package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/hookinstall"
)

const hooksUsage = `usage: hall hooks install|uninstall claude|codex|cursor|gemini [--project DIR [--shared] [--git-exclude] | --user] [--http] [--dry-run] [--force]

Writes the Hall's hooks into the agent's own hook configuration, in the
project (the root of the git worktree you are in, or --project DIR) or,
with --user, in your home:

  Claude Code  .claude/settings.local.json (personal; --shared: the
               committed .claude/settings.json), ~/.claude/settings.json
  Codex CLI    .codex/hooks.json, ~/.codex/hooks.json
  Cursor       .cursor/hooks.json, ~/.cursor/hooks.json
  Gemini CLI   .gemini/settings.json, ~/.gemini/settings.json

Only the Hall's entries are added, replaced or removed: every other byte of
the file stays as it was, and a hook is the Hall's only when it is exactly
what the Hall writes (anybody else's stays, whatever its URL or command).
A file with a comment, a trailing comma or a repeated key is refused (line
and column named) and left alone; so is a file that is a symbolic link or
read-only, unless --force (a link is then replaced by a regular file, the
link kept as the backup; a read-only file keeps its mode). Nothing is
written outside the project (--user: your home): a folder link that leads
out of it (.claude -> /elsewhere) is refused by name, with or without
--force; with --user, --force follows your own link. A second run
changes nothing and keeps the flags installed before (--hall,
--on-collision, --http, --command) unless they are given again. The file
it replaces is kept beside it as <file>.hall-backup-<time>, never over
another backup; the write is atomic and is dropped if another program
wrote the file meanwhile. An uninstall that leaves the file as an install
starts one (the Hall wrote all of it) removes it. The summary says when
the other scope (user or project) has the Hall's hooks too (every event would beat
twice), which agents never ask (Codex, Gemini CLI: --on-collision ask
warns there) and how to trust the hooks (Codex's /hooks, Gemini CLI's
prompt).

A project's file that git neither tracks nor ignores would be committed by
the next git add -A (the Hall itself keeps it out of overlaps and the shell
guard): the summary says so, and --git-exclude lists it, and its backups,
in the repository's .git/info/exclude (read by every worktree of the
repository, never committed). Nothing is written there without the flag.

Codex runs a linked worktree's hooks from the main worktree's
.codex/hooks.json, and only with the linked one's beside it: an install in
a linked worktree writes both and says so.
`

// maxWriteTries bounds the reads and writes of a file another program
// keeps changing.
const maxWriteTries = 3

// runHooks is `hall hooks install|uninstall <agent>`.
func runHooks(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hall hooks", flag.ContinueOnError)
	var (
		project     = fs.String("project", "", "the project whose agent configuration to edit (default: the root of the git worktree holding this folder, else this folder)")
		user        = fs.Bool("user", false, "edit the user's configuration (in $HOME) instead of a project's")
		shared      = fs.Bool("shared", false, "Claude Code: edit the project's shared, committed .claude/settings.json instead of the personal .claude/settings.local.json")
		httpHooks   = fs.Bool("http", false, "wire HTTP hooks where the agent has them (Claude Code): no process per tool call")
		dryRun      = fs.Bool("dry-run", false, "print what would change and the resulting file; write nothing")
		hall        = fs.String("hall", cli.DefaultURL, "the Hall the hooks talk to (kept from the installed hooks when not given)")
		onCollision = fs.String("on-collision", "warn", `"warn", or "ask" to ask the person before a mutating tool runs while in a collision, where the agent honours it (kept from the installed hooks when not given)`)
		gitExclude  = fs.Bool("git-exclude", false, "install in a project: list the file (and its backups) in the repository's .git/info/exclude when git neither tracks nor ignores it")
		command     = fs.String("command", "", `what a command hook runs: "hall-hook" (the lean hook) or "hall", by name on PATH or by path (default: the installed one, else hall-hook when it is on PATH, else hall)`)
		force       = fs.Bool("force", false, "write a file that is a symbolic link (replaced by a regular file, the link kept as the backup) or read-only (its mode kept); with --user, follow a folder link out of your home; refused without it")
	)
	// Help anywhere before the agent's flags is help, not an agent named -h.
	for _, a := range args[:min(len(args), 2)] {
		if isHelp(a) {
			printUsage(stdout, fs, hooksUsage)
			return &exitError{code: 0}
		}
	}
	if len(args) < 2 || (args[0] != "install" && args[0] != "uninstall") {
		printUsage(stderr, fs, hooksUsage)
		return &exitError{code: 2}
	}
	verb, agent := args[0], args[1]
	if err := parseWith((*flag.FlagSet).Parse, fs, hooksUsage, args[2:], stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &exitError{code: 2, err: fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if *user && (given["project"] || given["shared"] || given["git-exclude"]) {
		return &exitError{code: 2, err: errors.New("--user edits your home's file: --project, --shared and --git-exclude are for a project's")}
	}
	home, err := os.UserHomeDir()
	if err != nil && *user {
		return fmt.Errorf("home folder: %w", err)
	}
	root := *project
	if !given["project"] {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("this folder: %w", err)
		}
		if root, err = hookinstall.NewGit(ctx).ProjectRoot(ctx, wd); err != nil {
			return fmt.Errorf("project folder: %w", err)
		}
	}
	file, err := hookinstall.ConfigFile(agent, root, *user, home, *shared)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if given["command"] {
		if err := hookinstall.CheckCommand(*command); err != nil {
			return &exitError{code: 2, err: err}
		}
	}
	if *command == "" {
		*command = "hall"
		if _, err := exec.LookPath(hookinstall.Lean); err == nil {
			*command = hookinstall.Lean
		}
	}
	// Every write stays beneath the project's root (the home, --user): a
	// folder link out of it is refused (hookinstall.LinkOutError).
	base := root
	if *user {
		base = home
	}
	o := hookinstall.Options{
		Agent: agent, File: file, Root: base, User: *user, Command: *command, HTTP: *httpHooks, HallURL: *hall, OnCollision: *onCollision,
		Given: hookinstall.Given{Command: given["command"], HTTP: given["http"], HallURL: given["hall"], OnCollision: given["on-collision"]},
		Force: *force,
	}
	e := hooksEdit{verb: verb, agent: agent, root: root, home: home, o: o, user: *user, shared: *shared, gitExclude: *gitExclude, dryRun: *dryRun}
	if err := e.run(ctx, stdout); err != nil {
		return err
	}
	// An agent that runs a linked worktree's hooks from the main
	// worktree's file (Codex) needs both: the main one's is installed
	// too, and an uninstall says the main one's stays.
	capa, _ := hook.CapabilityOf(agent)
	if *user || !capa.MainWorktreeHooks {
		return nil
	}
	main, linked := hookinstall.NewGit(ctx).MainWorktree(ctx, root)
	if !linked {
		return nil
	}
	mainFile, err := hookinstall.ConfigFile(agent, main, false, home, *shared)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if verb == "uninstall" {
		if has, _ := hookinstall.HasHall(agent, mainFile); has {
			fmt.Fprintf(stdout, "  note: the main worktree's %s keeps the Hall's hooks (its own sessions run them); %s runs no hook here without this worktree's file\n", mainFile, capa.Product)
		}
		return nil
	}
	e.root, e.o.File, e.o.Root = main, mainFile, main
	e.why = fmt.Sprintf("the main worktree's: %s runs its hooks for a session in this linked worktree, and only with this worktree's file beside it", capa.Product)
	return e.run(ctx, stdout)
}

// hooksEdit is one file's edit by `hall hooks install|uninstall`: the
// agent, the project's root (or the home, --user), the options and
// flags; why, when set, says why this file is edited too.
type hooksEdit struct {
	verb, agent, root, home string
	o                       hookinstall.Options
	user, shared            bool
	gitExclude, dryRun      bool
	why                     string
}

// run edits the file, says what changed and what to know, and writes it
// (or, with --dry-run, shows it).
func (e hooksEdit) run(ctx context.Context, stdout io.Writer) error {
	o, verb, agent, file := e.o, e.verb, e.agent, e.o.File
	edit := hookinstall.Install
	if verb == "uninstall" {
		edit = hookinstall.Uninstall
	}
	res, err := edit(o)
	if err != nil {
		return &exitError{code: 1, err: err}
	}

	fmt.Fprintf(stdout, "hall hooks %s %s: %s\n", verb, agent, file)
	if e.why != "" {
		fmt.Fprintf(stdout, "  (%s)\n", e.why)
	}
	if res.Link != "" && res.Changed && res.Refused == "" {
		fmt.Fprintf(stdout, "  (a link to %s: --force replaces the link with a regular file; the link is kept as the backup, and %s is left as it is)\n", res.Link, res.Link)
	}
	for _, c := range res.Changes {
		fmt.Fprintf(stdout, "  %s\n", c)
	}
	if len(res.Changes) == 0 {
		fmt.Fprintln(stdout, "  (no Hall hooks here)")
	}
	if len(res.Kept) > 0 {
		fmt.Fprintf(stdout, "  kept from the installed hooks: %s (give a flag again to change it)\n", strings.Join(res.Kept, " "))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stdout, "  note: %s\n", n)
	}
	if verb == "install" {
		for _, other := range hookinstall.ConfigFiles(agent, e.root, e.home) {
			if other == file {
				continue
			}
			if has, _ := hookinstall.HasHall(agent, other); has {
				fmt.Fprintf(stdout, "  warning: %s has the Hall's hooks too: with both, every event beats twice; keep one (hall hooks uninstall %s with the other scope)\n", other, agent)
			}
		}
		if capa, _ := hook.CapabilityOf(agent); !e.user && (!e.shared || capa.SharedProjectFile == "") {
			if err := sayUntracked(ctx, stdout, e.root, file, e.gitExclude, e.dryRun); err != nil {
				return &exitError{code: 1, err: err}
			}
		}
		lean, http := res.Options.Command, res.Options.HTTP
		if !strings.Contains(lean, "/") && !http {
			if _, err := exec.LookPath(lean); err != nil {
				fmt.Fprintf(stdout, "  note: %q is not on PATH here: install it (go install github.com/hall-dev/hall/cmd/%s@latest) or pass --command /path/to/%s\n", lean, filepath.Base(lean), filepath.Base(lean))
			}
			if !hookinstall.IsLean(lean) {
				fmt.Fprintf(stdout, "  note: the command hooks run %s beat --hook; the lean %s starts in a fraction of its time (go install github.com/hall-dev/hall/cmd/%s@latest, then install again)\n", lean, hookinstall.Lean, hookinstall.Lean)
			}
		}
	}
	switch {
	case !res.Changed:
		fmt.Fprintln(stdout, "  unchanged: nothing to write")
	case e.dryRun:
		if res.Refused != "" {
			fmt.Fprintf(stdout, "  dry run: refused without --force: %s\n", res.Refused)
		}
		fmt.Fprintln(stdout, "  dry run: nothing written; the file would read:")
		if res.Remove {
			fmt.Fprintln(stdout, "  (removed: nothing of it would be left)")
		} else {
			fmt.Fprintf(stdout, "%s", res.After)
		}
	default:
		backup, err := hookinstall.Write(res, time.Now())
		// Another program wrote the file since it was read: read it again
		// and redo the edit, a few times, then give up with nothing lost.
		for try := 1; errors.Is(err, hookinstall.ErrChanged) && try < maxWriteTries; try++ {
			if res, err = edit(o); err != nil {
				return &exitError{code: 1, err: err}
			}
			backup, err = hookinstall.Write(res, time.Now())
		}
		if errors.Is(err, hookinstall.ErrChanged) {
			return &exitError{code: 1, err: fmt.Errorf("%w: another program keeps writing it; nothing was written, run again when it is done", err)}
		}
		if err != nil {
			return &exitError{code: 1, err: err}
		}
		if backup != "" {
			fmt.Fprintf(stdout, "  backup: %s\n", backup)
		}
		if res.Remove {
			fmt.Fprintln(stdout, "  removed: the file held only the Hall's hooks")
		} else {
			fmt.Fprintln(stdout, "  written")
		}
	}
	return nil
}

// sayUntracked tells of a project's hook file that git neither tracks nor
// ignores (its next `git add -A` would commit it) and, with exclude, lists
// it in the repository's info/exclude (hookinstall.Exclude; dryRun: says
// what it would add). Outside a repository, or for a file git tracks or
// ignores already, it says nothing.
func sayUntracked(ctx context.Context, stdout io.Writer, root, file string, exclude, dryRun bool) error {
	g := hookinstall.NewGit(ctx)
	if !g.InRepository(ctx, root) || g.Tracked(ctx, root, file) || g.Ignored(ctx, root, file) {
		return nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("project folder: %w", err)
	}
	rel, err := filepath.Rel(abs, file)
	if err != nil {
		return fmt.Errorf("project file: %w", err)
	}
	rel = filepath.ToSlash(rel)
	switch {
	case !exclude:
		fmt.Fprintf(stdout, "  note: git neither tracks nor ignores %s, so git add -A would commit it: run again with --git-exclude to list it in the repository's .git/info/exclude (every worktree, never committed), or add it to .gitignore\n", rel)
	case dryRun:
		ex, err := g.ExcludeFile(ctx, root)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  dry run: would add to %s: %s\n", ex, strings.Join(hookinstall.ExcludePatterns(rel), " "))
	default:
		ex, added, err := g.Exclude(ctx, root, rel)
		if err != nil {
			return err
		}
		if len(added) > 0 {
			fmt.Fprintf(stdout, "  git: added to %s: %s\n", ex, strings.Join(added, " "))
		}
	}
	return nil
}
