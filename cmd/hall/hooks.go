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
	"github.com/hall-dev/hall/internal/hookinstall"
)

const hooksUsage = `usage: hall hooks install|uninstall claude|codex|cursor [--project DIR | --user] [--http] [--dry-run]

Writes the Hall's hooks into the agent's own hook configuration (Claude Code
.claude/settings.json, Codex .codex/hooks.json, Cursor .cursor/hooks.json),
in the project folder (default: this one) or the user's home. The file's
other settings and hooks are kept; a second run changes nothing; the file
it replaces is kept beside it as <file>.hall-backup-<time>.
`

// runHooks is `hall hooks install|uninstall <agent>`.
func runHooks(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hall hooks", flag.ContinueOnError)
	var (
		project     = fs.String("project", ".", "the project folder whose agent configuration to edit")
		user        = fs.Bool("user", false, "edit the user's configuration (in $HOME) instead of a project's")
		httpHooks   = fs.Bool("http", false, "wire HTTP hooks where the agent has them (Claude Code): no process per tool call")
		dryRun      = fs.Bool("dry-run", false, "print what would change and the resulting file; write nothing")
		hall        = fs.String("hall", cli.DefaultURL, "the Hall the hooks talk to")
		onCollision = fs.String("on-collision", "warn", `"warn", or "ask" to ask the person before a mutating tool runs while in a collision`)
		command     = fs.String("command", "", `what a command hook runs: "hall-hook" (the lean hook) or "hall", by name on PATH or by path (default: hall-hook when it is on PATH, else hall)`)
	)
	switch {
	case len(args) > 0 && isHelp(args[0]):
		printUsage(stdout, fs, hooksUsage)
		return &exitError{code: 0}
	case len(args) < 2 || (args[0] != "install" && args[0] != "uninstall"):
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
	projectSet := false
	fs.Visit(func(f *flag.Flag) { projectSet = projectSet || f.Name == "project" })
	if *user && projectSet {
		return &exitError{code: 2, err: errors.New("--project and --user: choose one")}
	}
	home := ""
	if *user {
		h, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("home folder: %w", err)
		}
		home = h
	}
	file, err := hookinstall.ConfigFile(agent, *project, *user, home)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if *command == "" {
		*command = "hall"
		if _, err := exec.LookPath(hookinstall.Lean); err == nil {
			*command = hookinstall.Lean
		}
	}
	o := hookinstall.Options{Agent: agent, File: file, Command: *command, HTTP: *httpHooks, HallURL: *hall, OnCollision: *onCollision}
	edit := hookinstall.Install
	if verb == "uninstall" {
		edit = hookinstall.Uninstall
	}
	res, err := edit(o)
	if err != nil {
		return &exitError{code: 1, err: err}
	}

	fmt.Fprintf(stdout, "hall hooks %s %s: %s\n", verb, agent, file)
	for _, c := range res.Changes {
		fmt.Fprintf(stdout, "  %s\n", c)
	}
	if len(res.Changes) == 0 {
		fmt.Fprintln(stdout, "  (no Hall hooks here)")
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stdout, "  note: %s\n", n)
	}
	if verb == "install" && !strings.Contains(*command, "/") && !*httpHooks {
		if _, err := exec.LookPath(*command); err != nil {
			fmt.Fprintf(stdout, "  note: %q is not on PATH here: install it (go install github.com/hall-dev/hall/cmd/%s@latest) or pass --command /path/to/%s\n", *command, filepath.Base(*command), filepath.Base(*command))
		}
		if !hookinstall.IsLean(*command) {
			fmt.Fprintf(stdout, "  note: the command hooks run %s beat --hook; the lean %s starts in a fraction of its time (go install github.com/hall-dev/hall/cmd/%s@latest, then install again)\n", *command, hookinstall.Lean, hookinstall.Lean)
		}
	}
	switch {
	case !res.Changed:
		fmt.Fprintln(stdout, "  unchanged: nothing to write")
	case *dryRun:
		fmt.Fprintln(stdout, "  dry run: nothing written; the file would read:")
		fmt.Fprintf(stdout, "%s", res.After)
	default:
		backup, err := hookinstall.Write(res, time.Now())
		if err != nil {
			return &exitError{code: 1, err: err}
		}
		if backup != "" {
			fmt.Fprintf(stdout, "  backup: %s\n", backup)
		}
		fmt.Fprintln(stdout, "  written")
	}
	return nil
}
