package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/hall-dev/hall/internal/agentid"
	"github.com/hall-dev/hall/internal/autostart"
	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hallclient"
	"github.com/hall-dev/hall/internal/mcp"
	"github.com/hall-dev/hall/internal/presence"
)

// mcpAbout opens mcp's usage.
const mcpAbout = `usage: hall mcp [flags]

Serve the Hall's tools to the agent that started this process, over MCP
on stdin and stdout, speaking to a running Hall (--hall) or writing the
registry directly (--registry-root). It runs until the agent closes stdin.
`

// runMCP is `hall mcp`: the Hall's tools served over stdio to the agent
// that started it, speaking to a running Hall (--hall, --token) or writing
// the registry directly (--registry-root). It runs until the agent closes
// stdin. Nothing but MCP goes to stdout; warnings go to stderr.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hall mcp", flag.ContinueOnError)
	var (
		hallURL, root, token, agent string
		timeout                     time.Duration
		start                       bool
	)
	fs.StringVar(&hallURL, "hall", cli.DefaultURL, "the Hall's base URL")
	fs.StringVar(&root, "registry-root", "", "write and read the sidecar folder directly instead of calling a Hall")
	fs.StringVar(&token, "token", "", "bearer token the Hall requires for writes")
	fs.DurationVar(&timeout, "timeout", 2*time.Second, "give up on a tool call (the Hall's answer included) after this long")
	fs.BoolVar(&start, autostart.Flag, true, autostart.FlagUsage)
	fs.StringVar(&agent, "agent-id", "", "the agent_id this session beats as (default: the Claude Code session that started it, else one per MCP session)")
	if err := parseFlags(fs, mcpAbout, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &exitError{code: 2, err: fmt.Errorf("mcp takes no arguments, got %q", fs.Args())}
	}
	if agent == "" {
		agent = agentid.FromEnv(os.Getenv)
	}
	wd, _ := os.Getwd()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := mcp.Config{AgentID: agent, Dir: wd, Timeout: timeout, Log: log, Version: buildVersion()}

	if root == "" {
		cfg.Client = &hallclient.HTTP{Base: hallURL, Token: token, Start: autostarter(start, hallURL)}
		return mcp.ServeStdio(ctx, cfg, stdin, stdout)
	}
	svc, err := directService(root)
	if err != nil {
		return fmt.Errorf("registry %s: %w", root, err)
	}
	// A long-lived process holds throttled beats: run the service's loop,
	// whose last act writes them, as the Hall does.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { defer close(done); _ = svc.Run(runCtx, presence.RunConfig{}) }()
	defer func() { cancel(); <-done }()
	cfg.Client = &hall.Hall{Service: svc, Changes: svc.Changed(), Log: log}
	return mcp.ServeStdio(ctx, cfg, stdin, stdout)
}
