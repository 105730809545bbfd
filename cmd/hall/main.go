// Command hall runs the Hall: it serves presences and collisions of a team
// of coding agents (serve, the default command), takes beats from agent
// hooks (beat, leave) and follows the live stream (watch).
//
// main is thin: each command parses its flags into a config and runs a type
// that tests can start on their own.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// exitError carries a process exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// run dispatches to a command and turns its error into an exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, rest := "serve", args
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, rest = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "serve":
		err = runServe(ctx, rest, stdout, stderr)
	case "help":
		// "hall help" is "hall -h"; "hall help watch" is "hall watch -h".
		if len(rest) > 0 {
			return run(ctx, []string{rest[0], "-h"}, stdin, stdout, stderr)
		}
		return run(ctx, []string{"-h"}, stdin, stdout, stderr)
	default:
		if c, ok := commands[cmd]; ok {
			err = c(ctx, rest, stdin, stdout, stderr)
		} else {
			fmt.Fprintf(stderr, "hall: unknown command %q\n\n%s", cmd, usage)
			return 2
		}
	}
	var ee *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintln(stderr, "hall:", ee.err)
		}
		return ee.code
	default:
		fmt.Fprintln(stderr, "hall:", err)
		return 1
	}
}

// commands are the subcommands beside serve, registered by their files.
var commands = map[string]func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error{}

const usage = `usage: hall [command] [flags]

commands:
  serve    run the Hall (the default)
  beat     report a beat to a Hall, or straight into a registry
  leave    end a presence at once
  watch    follow a Hall's live stream
  hooks    install or uninstall the Hall's hooks in Claude Code, Codex, Cursor or Gemini CLI
  mcp      serve the Hall's tools to an agent over MCP (stdio)
  relay    mirror this machine's sidecar folder into a NATS bucket
  version  print hall's version and the Go version that built it
  help     this text; "hall help <command>" for a command's

Run "hall <command> -h" for a command's flags. Every flag can also be set
with a HALL_* environment variable: --registry-root is HALL_REGISTRY_ROOT.
`
