package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/hallclient"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/place"
	"github.com/hall-dev/hall/internal/presence"
)

func init() {
	commands["beat"] = runBeat
	commands["leave"] = runLeave
}

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
}

func (f *beatFlags) register(fs *flag.FlagSet, withFields bool) {
	fs.StringVar(&f.hall, "hall", cli.DefaultURL, "the Hall's base URL")
	fs.StringVar(&f.registryRoot, "registry-root", "", "write the sidecar folder directly instead of calling a Hall")
	f.tokenFlag.Register(fs, "token", "bearer token the Hall requires for writes")
	f.readFlag.Register(fs, "read-token", "the Hall's read token (--read-token), sent when there is no --token")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Second, "give up on the Hall after this long (the beat is then skipped, exit 0)")
	fs.StringVar(&f.hook, "hook", "", `read an agent's hook payload on stdin and answer in its hook output: "claude" (Claude Code), "codex" (Codex CLI) or "cursor" (Cursor)`)
	fs.StringVar(&f.onCollision, "on-collision", "warn", `with --hook: "warn" puts the collision in the model's context; "ask" also asks the person before a mutating tool runs while in a collision`)
	fs.Var(&f.mutating, "mutating-tool", "with --hook: a tool name that counts as a mutation when deciding to ask (repeatable; default the Hall's defaults)")
	fs.StringVar(&f.req.AgentID, "agent-id", "", "who is speaking (required unless --hook gives it)")
	fs.StringVar(&f.req.Brain, "brain", "", "the workspace root (default: the main worktree of the git repository, else the working directory)")
	if !withFields {
		fs.StringVar(&f.presenceID, "presence-id", "", "the presence to end (instead of --agent-id and --brain)")
		return
	}
	fs.StringVar(&f.req.CallerRoot, "caller-root", "", "the agent's working directory (default: this process's)")
	fs.StringVar(&f.req.Worktree, "worktree", "", "the git worktree (default: the top level of the caller root's repository)")
	fs.StringVar(&f.req.Kind, "kind", "", "executor, reviewer, planner…")
	fs.StringVar(&f.req.Theme, "theme", "", "what the session works on, in a few words")
	fs.Var(&f.workingSet, "working-set", "a path the agent will touch (repeatable; relative to the worktree)")
	fs.StringVar(&f.req.TaskRef, "task-ref", "", "the task or mission id")
	fs.StringVar(&f.req.Tool, "tool", "", "the tool the agent just ran (the Hall classifies it)")
	fs.StringVar(&f.req.DeclaredIntent, "intent", "", "what the agent declares it will change")
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
	warn := func(err error) error {
		fmt.Fprintf(stderr, "hall: warning: %v (the agent carries on)\n", err)
		return nil
	}
	asHook := hookMode(args)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	var f beatFlags
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
	// --timeout bounds everything from here: the place lookup too, whatever
	// directory the payload or the flags name.
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if f.hook != "" {
		if err := f.runHook(ctx, stdin, stdout, !beat); err != nil {
			return warn(err)
		}
		return nil
	}
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
	case hallclient.IsBadInput(err):
		return &exitError{code: 1, err: err}
	default:
		return warn(err)
	}
}

// runHook is `hall beat --hook <agent>`: read the agent's payload on stdin,
// beat (or leave, on the events that end a session, and always for `hall
// leave --hook`), and write the agent's own hook output on stdout: the
// collision warning where the model reads it, an ask under
// --on-collision ask. Any error is returned for a warning; nothing is
// written on stdout then, and the agent carries on.
func (f *beatFlags) runHook(ctx context.Context, stdin io.Reader, stdout io.Writer, leave bool) error {
	ad, ok := hook.For(f.hook)
	if !ok {
		return fmt.Errorf("--hook %q: want one of %s", f.hook, strings.Join(hook.Agents(), ", "))
	}
	policy, err := hook.ParsePolicy(f.onCollision)
	if err != nil {
		return err
	}
	payload, err := io.ReadAll(io.LimitReader(stdin, hook.MaxPayload+1))
	if err != nil {
		return fmt.Errorf("read the %s hook payload: %w", f.hook, err)
	}
	ev, err := ad.Parse(payload)
	if err != nil {
		return fmt.Errorf("read the %s hook payload: %w", f.hook, err)
	}
	f.req = withFlags(ev.Beat, f.req)
	if err := fillDefaults(ctx, &f.req); err != nil {
		return err
	}
	if leave || ev.Leave {
		return f.leave(ctx)
	}
	north, err := f.beat(ctx)
	if err != nil {
		return err
	}
	mutating := presence.NewClassifier(f.mutatingTools()).Mutating(f.req.Tool)
	if out := ad.Answer(ev, hook.Decide(policy, ev, mutating, north)); out != nil {
		if _, err := fmt.Fprintf(stdout, "%s\n", out); err != nil {
			return fmt.Errorf("write the hook answer: %w", err)
		}
	}
	return nil
}

// withFlags lays what the command line said over what the payload said:
// a flag given wins (--agent-id, --theme, --working-set…).
func withFlags(fromPayload, flags contract.BeatRequest) contract.BeatRequest {
	out := fromPayload
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&out.AgentID, flags.AgentID)
	set(&out.Brain, flags.Brain)
	set(&out.CallerRoot, flags.CallerRoot)
	set(&out.Worktree, flags.Worktree)
	set(&out.Kind, flags.Kind)
	set(&out.Theme, flags.Theme)
	set(&out.TaskRef, flags.TaskRef)
	set(&out.Tool, flags.Tool)
	set(&out.DeclaredIntent, flags.DeclaredIntent)
	if flags.WorkingSet != nil {
		out.WorkingSet = flags.WorkingSet
	}
	return out
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
// worktree of one repository shares one brain). The Hall's hook endpoint
// derives the same from a payload's cwd (package place).
func fillDefaults(ctx context.Context, req *contract.BeatRequest) error {
	if req.CallerRoot == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
		req.CallerRoot = wd
	}
	p := place.Place{CallerRoot: req.CallerRoot, Worktree: req.Worktree, Brain: req.Brain}.Complete(ctx)
	req.CallerRoot, req.Worktree, req.Brain = p.CallerRoot, p.Worktree, p.Brain
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
		return &hallclient.Local{Service: svc}, nil
	}
	return &hallclient.HTTP{Base: f.hall, Token: f.token}, nil
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
	if !resp.Stored && resp.Reason != "" && !strings.HasPrefix(resp.Reason, "throttled") {
		return resp.North, fmt.Errorf("the Hall did not store the beat: %s", resp.Reason)
	}
	return resp.North, nil
}

// leave ends the presence; one already gone is no error, since the
// leave's goal holds.
func (f *beatFlags) leave(ctx context.Context) error {
	id := f.presenceID
	if id == "" {
		brain, err := presence.CanonicalPath(f.req.Brain)
		if err != nil {
			return &hallclient.Error{Status: http.StatusBadRequest, Code: "invalid_brain", Detail: presence.ErrorMessage(err)}
		}
		id = presence.ID(f.req.AgentID, brain)
	}
	c, err := f.client()
	if err != nil {
		return err
	}
	if err := c.Leave(ctx, id); err != nil && !hallclient.IsNotFound(err) {
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
