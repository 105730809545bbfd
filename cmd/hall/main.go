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
	name, rest := "serve", args
	switch {
	case len(args) > 0 && (args[0] == "--version" || args[0] == "-version"):
		// As most programs answer it: hall --version is hall version.
		name, rest = "version", args[1:]
	case len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-':
		name, rest = args[0], args[1:]
	}
	cmd, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "hall: unknown command %q\n\n%s", name, usage())
		return 2
	}
	err := cmd.run(ctx, rest, stdin, stdout, stderr)
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
