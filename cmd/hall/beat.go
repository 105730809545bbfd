package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/hallclient"
	"github.com/hall-dev/hall/internal/place"
	"github.com/hall-dev/hall/internal/presence"
)

func init() {
	commands["beat"] = runBeat
	commands["leave"] = runLeave
}

// DefaultHallURL is where beat, leave and watch find a Hall by default.
const DefaultHallURL = "http://" + DefaultAddr

// beatFlags are the flags beat and leave share: where the Hall is, and who
// is speaking.
type beatFlags struct {
	hall         string
	registryRoot string
	token        string
	tokenFlag    secret
	readFlag     secret
	timeout      time.Duration
	hook         string
	req          contract.BeatRequest
	workingSet   stringList
	presenceID   string
}

func (f *beatFlags) register(fs *flag.FlagSet, withFields bool) {
	fs.StringVar(&f.hall, "hall", DefaultHallURL, "the Hall's base URL")
	fs.StringVar(&f.registryRoot, "registry-root", "", "write the sidecar folder directly instead of calling a Hall")
	f.tokenFlag.register(fs, "token", "bearer token the Hall requires for writes")
	f.readFlag.register(fs, "read-token", "the Hall's read token (--read-token), sent when there is no --token")
	fs.DurationVar(&f.timeout, "timeout", 2*time.Second, "give up on the Hall after this long (the beat is then skipped, exit 0)")
	fs.StringVar(&f.hook, "hook", "", `read an agent hook payload on stdin: "claude" (Claude Code)`)
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
// north lines on stderr. A Hall that cannot be reached, or a hook payload it
// cannot use, prints a warning and exits 0: a hook must never break the
// agent it reports on.
func runBeat(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return beatCommand(ctx, args, stdin, stderr, true)
}

// runLeave is `hall leave`: end a presence at once.
func runLeave(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return beatCommand(ctx, args, stdin, stderr, false)
}

func beatCommand(ctx context.Context, args []string, stdin io.Reader, stderr io.Writer, beat bool) error {
	name := "hall leave"
	if beat {
		name = "hall beat"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f beatFlags
	f.register(fs, beat)
	if err := parseWithEnv(fs, args); err != nil {
		return &exitError{code: 2, err: err}
	}
	var err error
	if f.token, err = f.tokenFlag.value(); err != nil {
		return &exitError{code: 2, err: err}
	}
	if rt, err := f.readFlag.value(); err != nil {
		return &exitError{code: 2, err: err}
	} else if f.token == "" {
		// A Hall with a read token and no write token takes beats with
		// the read token: their answer (north) reads the roster.
		f.token = rt
	}
	if f.workingSet != nil {
		ws := []string(f.workingSet)
		f.req.WorkingSet = &ws
	}
	warn := func(err error) error {
		fmt.Fprintf(stderr, "hall: warning: %v (the agent carries on)\n", err)
		return nil
	}
	leave := !beat
	switch f.hook {
	case "":
	case "claude":
		var ev claudeHookEvent
		if err := json.NewDecoder(io.LimitReader(stdin, 1<<20)).Decode(&ev); err != nil {
			return warn(fmt.Errorf("read Claude Code hook payload: %w", err))
		}
		if ev.HookEventName == "SessionEnd" {
			leave = true
		}
		f.req = ev.beat(f.req)
	default:
		return &exitError{code: 2, err: fmt.Errorf("--hook %q: only \"claude\" is known", f.hook)}
	}
	if err := fillDefaults(&f.req); err != nil {
		if f.hook != "" {
			return warn(err)
		}
		return &exitError{code: 2, err: err}
	}
	if f.presenceID == "" && f.req.AgentID == "" {
		err := errors.New("--agent-id is required (or --presence-id for leave)")
		if f.hook != "" {
			return warn(err)
		}
		return &exitError{code: 2, err: err}
	}

	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if leave {
		err = f.leave(ctx)
	} else {
		var lines []string
		lines, err = f.beat(ctx)
		for _, l := range lines {
			fmt.Fprintln(stderr, "hall:", l)
		}
	}
	switch {
	case err == nil:
		return nil
	case hallclient.IsBadInput(err) && f.hook == "":
		return &exitError{code: 1, err: err}
	default:
		return warn(err)
	}
}

// fillDefaults measures what the agent did not say: its working directory,
// its git worktree, and the brain (the repository's main worktree, so every
// worktree of one repository shares one brain). The Hall's hook endpoint
// derives the same from a payload's cwd (package place).
func fillDefaults(req *contract.BeatRequest) error {
	if req.CallerRoot == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
		req.CallerRoot = wd
	}
	p := place.Place{CallerRoot: req.CallerRoot, Worktree: req.Worktree, Brain: req.Brain}.Complete()
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
