// Command hall-hook is the Hall's lean command hook: an agent's hook
// payload in, the Hall's answer out, in one request to the Hall's hook
// endpoint, by a process that starts in a fraction of hall's time. `hall
// hooks install` wires it when it is on PATH. Package hookforward is the
// program; this file only runs it, and the exit status is always 0.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/hall-dev/hall/internal/hookforward"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hookforward.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
