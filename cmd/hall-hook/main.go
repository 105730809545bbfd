// Command hall-hook is the Hall's lean command hook: an agent's hook
// payload in, the Hall's answer out, in one request to the Hall's hook
// endpoint, by a process that starts in a fraction of hall's time. `hall
// hooks install` wires it when it is on PATH. Package hookforward is the
// program; this file only runs it, and the exit status is always 0.
//
// It installs no signal handler: a hook has nothing to clean up, an agent
// that gives up on it may kill it as it is, and the handler's goroutine
// and its set-up cost about a millisecond on every call.
package main

import (
	"context"
	"os"

	"github.com/hall-dev/hall/internal/hookforward"
)

func main() {
	hookforward.Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
