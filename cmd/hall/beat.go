package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/autostart"
	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hallclient"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/hookforward"
	"github.com/hall-dev/hall/internal/presence"
)

// beatFlags are the flags beat and leave share: where the Hall is, and who
// is speaking.
type beatFlags struct {
	hall         string
	registryRoot string
	token        string
	tokenFlag    cli.Secret
	readFlag     cli.Secret
	timeout      time.Duration
	hook         string
	onCollision  string
	mutating     cli.StringList
	req          contract.BeatRequest
	workingSet   cli.StringList
	presenceID   string
	autostart    bool // beat only: start a Hall when none answers (internal/autostart)
}

func (f *beatFlags) register(fs *flag.FlagSet, withFields bool) {
	fs.StringVar(&f.hall, "hall", cli.DefaultURL, "the Hall's base URL")
	fs.StringVar(&f.registryRoot, "registry-root", "", "write the sidecar folder directly instead of calling a Hall")
	f.tokenFlag.Register(fs, "token", "bearer token the Hall requires for writes")
	f.readFlag.Register(fs, "read-token", "the Hall's read token (--read-token), sent when there is no --token")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Second, "give up on the Hall after this long (the beat is then skipped, exit 0)")
	fs.StringVar(&f.hook, "hook", "", `read an agent's hook payload on stdin and answer in its hook output: "claude" (Claude Code), "codex" (Codex CLI), "cursor" (Cursor) or "gemini" (Gemini CLI)`)
	fs.StringVar(&f.onCollision, "on-collision", "warn", `with --hook: "warn" puts the collision in the model's context; "ask" also asks the person before a mutating tool runs while in a collision`)
	fs.Var(&f.mutating, "mutating-tool", "with --hook: a tool name that counts as a mutation when deciding to ask (repeatable; default the Hall's defaults)")
	fs.StringVar(&f.req.AgentID, "agent-id", "", "who is speaking (required unless --hook gives it)")
	fs.StringVar(&f.req.Brain, "brain", "", "the workspace root (default: the main worktree of the git repository, else the working directory)")
	if !withFields {
		fs.StringVar(&f.presenceID, "presence-id", "", "the presence to end (instead of --agent-id and --brain)")
		return
	}
	fs.BoolVar(&f.autostart, autostart.Flag, true, autostart.FlagUsage)
	fs.StringVar(&f.req.CallerRoot, "caller-root", "", "the agent's working directory (default: this process's)")
	fs.StringVar(&f.req.Worktree, "worktree", "", "the git worktree (default: the top level of the caller root's repository)")
	fs.StringVar(&f.req.Kind, "kind", "", "executor, reviewer, planner…")
	fs.StringVar(&f.req.Theme, "theme", "", "what the session works on, in a few words")
	fs.Var(&f.workingSet, "working-set", "a path the agent will touch (repeatable; relative to the worktree)")
	fs.StringVar(&f.req.TaskRef, "task-ref", "", "the task or mission id")
	fs.StringVar(&f.req.Tool, "tool", "", "the tool the agent just ran (the Hall classifies it)")
	fs.StringVar(&f.req.DeclaredIntent, "intent", "", "the declared intent: \"mutate\" (any case) declares a mutation; any other text is shown and signals nothing")
}

// runBeat is `hall beat`: one beat from a hook or a script. It prints the
// north lines on stderr; with --hook, the agent's own hook output on stdout
// instead. A Hall that cannot be reached, or a hook payload it cannot use,
// prints a warning and exits 0: a hook must never break the agent it
// reports on.
func runBeat(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return beatCommand(ctx, args, stdin, stdout, stderr, true)
}

// runLeave is `hall leave`: end a presence at once.
func runLeave(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return beatCommand(ctx, args, stdin, stdout, stderr, false)
}

// hookMode reports whether the command runs as an agent's hook: --hook on
// the command line or HALL_HOOK set. A hook exits 0 whatever happens (Claude
// Code reads exit 2 as "block the tool call"), flag mistakes included.
func hookMode(args []string) bool {
	if os.Getenv(cli.EnvName("hook")) != "" {
		return true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "hook" {
			return true
		}
	}
	return false
}

// The openings of beat's and leave's usage.
const (
	beatAbout = `usage: hall beat [flags]

Report one beat to a Hall (--hall), or straight into a registry
(--registry-root): who is speaking, on what, and the tool it just ran. With
--hook, read an agent's hook payload on stdin instead. Collision lines
print on stderr. A Hall that cannot be reached is a warning, and exit 0.
`
	leaveAbout = `usage: hall leave [flags]

End a presence at once: --presence-id, or --agent-id and --brain.
`
)

func beatCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, beat bool) error {
	name, about := "hall leave", leaveAbout
	if beat {
		name, about = "hall beat", beatAbout
	}
	var f beatFlags
	// A warning goes to stderr, or where the hook's agent shows it once
	// (hook.WarningAnswer: Gemini CLI's answer).
	warn := func(err error) error {
		msg := fmt.Sprintf("hall: warning: %v (the agent carries on)", err)
		if out := hook.WarningAnswer(f.hook, msg); out != nil {
			fmt.Fprintf(stdout, "%s\n", out)
			return nil
		}
		fmt.Fprintln(stderr, msg)
		return nil
	}
	asHook := hookMode(args)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	f.register(fs, beat)
	// A usage mistake is exit 2, or in hook mode a warning and exit 0.
	usage := func(err error) error {
		if asHook {
			return warn(err)
		}
		return &exitError{code: 2, err: err}
	}
	if asHook {
		// stdout is the agent's hook output: nothing else goes there.
		fs.SetOutput(stderr)
		if err := cli.ParseWithEnv(fs, args); err != nil {
			return warn(err)
		}
	} else if err := parseFlags(fs, about, args, stdout, stderr); err != nil {
		return err
	}
	var err error
	if f.token, err = f.tokenFlag.Value(); err != nil {
		return usage(err)
	}
	if rt, err := f.readFlag.Value(); err != nil {
		return usage(err)
	} else if f.token == "" {
		// A Hall with a read token and no write token takes beats with
		// the read token: their answer (north) reads the roster.
		f.token = rt
	}
	if f.workingSet != nil {
		ws := []string(f.workingSet)
		f.req.WorkingSet = &ws
	}
	if f.hook != "" {
		if err := f.runHook(ctx, stdin, stdout, stderr, !beat); err != nil {
			return warn(err)
		}
		return nil
	}
	// --timeout bounds the place lookup too, whatever directory the flags
	// name (the hook path's is bounded in runHook).
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if err := fillDefaults(ctx, &f.req); err != nil {
		return &exitError{code: 2, err: err}
	}
	if f.presenceID == "" && f.req.AgentID == "" {
		return &exitError{code: 2, err: errors.New("--agent-id is required (or --presence-id for leave)")}
	}
	if beat {
		var lines []string
		lines, err = f.beat(ctx)
		for _, l := range lines {
			fmt.Fprintln(stderr, "hall:", l)
		}
	} else {
		err = f.leave(ctx)
	}
	switch {
	case err == nil:
		return nil
	case contract.IsBadInput(err):
		return &exitError{code: 1, err: err}
	default:
		return warn(err)
	}
}

// runHook is `hall beat --hook <agent>`: the Hall's hook operation
// (hall.Hook) on the payload read from stdin, over the Hall this command
// reaches, its answer (the agent's own hook output) on stdout. What the
// command line said wins over the payload; `hall leave --hook` always
// leaves. Any error is returned for a warning; nothing is written on
// stdout then, and the agent carries on.
func (f *beatFlags) runHook(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, leave bool) error {
	payload, err := io.ReadAll(io.LimitReader(stdin, hall.MaxHookPayload+1))
	if err != nil {
		return fmt.Errorf("read the %s hook payload: %w", f.hook, err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if err := absPaths(&f.req); err != nil {
		return err
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	classifier := presence.NewClassifier(f.mutatingTools())
	ans, err := hall.Hook(ctx, c, hall.HookRequest{
		Agent: f.hook, Payload: payload, Policy: f.onCollision, Override: f.req,
		DefaultCallerRoot: wd, Leave: leave, Mutating: classifier.Mutating, Page: f.page(),
	})
	if err != nil {
		// A Hall that cannot be reached is said once per session, as
		// hall-hook says it (hookforward/warnonce.go): some agents show
		// every line of a hook's stderr.
		if kind := hookforward.WarningKind(err); kind == "reach" {
			if !hookforward.FirstWarning(f.hook, payload, kind) {
				return nil
			}
			return fmt.Errorf("%w; said once per session", err)
		}
		return err
	}
	if ans.Warning != "" {
		msg := fmt.Sprintf("hall: warning: %s (the agent carries on)", ans.Warning)
		if out := hook.WarningAnswer(f.hook, msg); out != nil && ans.Output == nil {
			ans.Output = out
		} else {
			fmt.Fprintln(stderr, msg)
		}
	}
	if ans.Output != nil {
		if _, err := fmt.Fprintf(stdout, "%s\n", ans.Output); err != nil {
			return fmt.Errorf("write the hook answer: %w", err)
		}
	}
	return nil
}

// page is the page's address the hook tells the person at a session's
// start: the Hall's at --hall; none when the registry is written
// directly (no Hall serves a page).
func (f *beatFlags) page() string {
	if f.registryRoot != "" {
		return ""
	}
	return strings.TrimRight(f.hall, "/") + "/"
}

// mutatingTools is --mutating-tool, else the Hall's defaults: what the
// hook counts as a mutation when it decides to ask. Set it (or
// HALL_MUTATING_TOOL) as the Hall's own when the Hall's list differs.
func (f *beatFlags) mutatingTools() []string {
	if len(f.mutating) > 0 {
		return f.mutating
	}
	return presence.DefaultMutatingTools
}

// fillDefaults measures what the agent did not say: its working directory,
// its git worktree, and the brain (the repository's main worktree, so every
// worktree of one repository shares one brain). The hook operation derives
// the same from a payload's cwd (hall.CompletePlace).
func fillDefaults(ctx context.Context, req *contract.BeatRequest) error {
	if req.CallerRoot == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
		req.CallerRoot = wd
	}
	if err := absPaths(req); err != nil {
		return err
	}
	*req = hall.CompletePlace(ctx, *req)
	return nil
}

// absPaths makes the paths given on the command line absolute: they are
// the shell's, relative to this process's directory.
func absPaths(req *contract.BeatRequest) error {
	for _, p := range []*string{&req.CallerRoot, &req.Brain, &req.Worktree} {
		if *p != "" && !filepath.IsAbs(*p) {
			abs, err := filepath.Abs(*p)
			if err != nil {
				return fmt.Errorf("%s: %w", *p, err)
			}
			*p = abs
		}
	}
	return nil
}

// client is the Hall this command speaks to: the registry folder written
// directly through the same store code when --registry-root is set (every
// call writes: there is no process to hold a throttled state), else the
// Hall at --hall.
func (f *beatFlags) client() (hallclient.Client, error) {
	if f.registryRoot != "" {
		svc, err := directService(f.registryRoot)
		if err != nil {
			return nil, err
		}
		return &hall.Hall{Service: svc}, nil
	}
	return &hallclient.HTTP{Base: f.hall, Token: f.token, Start: autostarter(f.autostart, f.hall)}, nil
}

// autostarter is the Start of a client of the Hall at hallURL
// (hallclient.HTTP): nil, starting nothing, when on is false (--autostart,
// HALL_AUTOSTART) or the address is not loopback.
func autostarter(on bool, hallURL string) func(context.Context) error {
	if _, ok := autostart.LoopbackAddr(hallURL); !on || !ok {
		return nil
	}
	return func(ctx context.Context) error {
		return autostart.Start(ctx, autostart.Config{Hall: hallURL})
	}
}

// beat sends the beat and returns the north lines.
func (f *beatFlags) beat(ctx context.Context) ([]string, error) {
	c, err := f.client()
	if err != nil {
		return nil, err
	}
	resp, err := c.Beat(ctx, f.req)
	if err != nil {
		return nil, err
	}
	if !hall.Stored(resp) {
		return resp.North, fmt.Errorf("the Hall did not store the beat: %s", resp.Reason)
	}
	return resp.North, nil
}

// leave ends the presence; one already gone is no error, since the
// leave's goal holds.
func (f *beatFlags) leave(ctx context.Context) error {
	c, err := f.client()
	if err != nil {
		return err
	}
	if f.presenceID == "" {
		return hall.LeaveAgent(ctx, c, f.req.AgentID, f.req.Brain)
	}
	if err := c.Leave(ctx, f.presenceID); err != nil && !contract.IsNotFound(err) {
		return err
	}
	return nil
}

// directService is a presence service over the sidecar folder at root,
// for commands that write the registry directly.
func directService(root string) (*presence.Service, error) {
	store := dirstore.New(root)
	if err := store.Init(); err != nil {
		return nil, err
	}
	return presence.NewService(store, presence.Config{Logger: slog.New(slog.DiscardHandler)}), nil
}
