package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// command is one of hall's subcommands. The table in commands is the only
// list of them: the dispatch in run, "hall help" and the usage are derived
// from it, so a command cannot exist without being listed, nor be listed
// without existing.
type command struct {
	name    string
	summary string // one line in the usage
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// commands is hall's subcommands, in the order the usage lists them; serve
// is the default. A function rather than a variable: help runs the table,
// and a variable whose initializer reaches itself does not compile.
func commands() []command {
	return []command{
		{"serve", "run the Hall (the default)", runServe},
		{"beat", "report a beat to a Hall, or straight into a registry", runBeat},
		{"leave", "end a presence at once", runLeave},
		{"check", "ask whom work on some paths would collide with, writing nothing", runCheck},
		{"watch", "follow a Hall's live stream", runWatch},
		{"hooks", "install or uninstall the Hall's hooks in Claude Code, Codex, Cursor or Gemini CLI", runHooks},
		{"mcp", "serve the Hall's tools to an agent over MCP (stdio)", runMCP},
		{"restore", "give back work a destructive command destroyed, from the Hall's snapshots", runRestore},
		{"service", "keep a Hall always on as your user's systemd unit or launchd agent (install, uninstall)", runService},
		{"relay", "mirror this machine's sidecar folder into a NATS bucket", runRelay},
		{"version", "print hall's version and the Go version that built it", runVersion},
		{"help", `the list of commands; "hall help <command>" for a command's`, runHelp},
	}
}

// lookup finds a command by name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usage is hall's own usage: the command table, then how to ask for more.
func usage() string {
	cmds := commands()
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.name))
	}
	var b strings.Builder
	b.WriteString("usage: hall [command] [flags]\n\ncommands:\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.name, c.summary)
	}
	b.WriteString(`
Run "hall <command> -h" for a command's flags. Every flag can also be set
with a HALL_* environment variable: --registry-root is HALL_REGISTRY_ROOT.
`)
	return b.String()
}

// runHelp is `hall help [command]`: "hall help" is "hall -h" (serve is the
// default command, so its help is hall's), "hall help watch" is
// "hall watch -h".
func runHelp(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	name := "serve"
	if len(args) > 0 {
		name = args[0]
	}
	return &exitError{code: run(ctx, []string{name, "-h"}, stdin, stdout, stderr)}
}
