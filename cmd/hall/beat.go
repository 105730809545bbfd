package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore"
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
	timeout      time.Duration
	hook         string
	req          contract.BeatRequest
	workingSet   stringList
	presenceID   string
}

func (f *beatFlags) register(fs *flag.FlagSet, withFields bool) {
	fs.StringVar(&f.hall, "hall", DefaultHallURL, "the Hall's base URL")
	fs.StringVar(&f.registryRoot, "registry-root", "", "write the sidecar folder directly instead of calling a Hall")
	fs.StringVar(&f.token, "token", "", "bearer token the Hall requires for writes")
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
	var err error
	if leave {
		err = f.leave(ctx)
	} else {
		var lines []string
		lines, err = f.beat(ctx)
		for _, l := range lines {
			fmt.Fprintln(stderr, "hall:", l)
		}
	}
	var bad *badInputError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &bad) && f.hook == "":
		return &exitError{code: 1, err: err}
	default:
		return warn(err)
	}
}

// badInputError is the Hall refusing what we sent: a script's mistake.
type badInputError struct{ msg string }

func (e *badInputError) Error() string { return e.msg }

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

// beat sends the beat to the Hall, or writes the registry directly.
func (f *beatFlags) beat(ctx context.Context) ([]string, error) {
	if f.registryRoot != "" {
		svc, err := f.directService()
		if err != nil {
			return nil, err
		}
		res, err := svc.Beat(ctx, f.req.Beat())
		if err != nil {
			return nil, &badInputError{presence.ErrorMessage(err)}
		}
		if !res.Stored {
			return nil, fmt.Errorf("beat not stored: %s", res.Reason)
		}
		return contract.NorthLines(res.PresenceID, res.Collisions, res.CollisionsTotal), nil
	}
	body, _ := json.Marshal(f.req)
	var resp contract.BeatResponse
	if err := f.call(ctx, http.MethodPost, "/api/presences/beat", body, &resp); err != nil {
		return nil, err
	}
	if !resp.Stored && resp.Reason != "" && !strings.HasPrefix(resp.Reason, "throttled") {
		return resp.North, fmt.Errorf("the Hall did not store the beat: %s", resp.Reason)
	}
	return resp.North, nil
}

// leave ends the presence.
func (f *beatFlags) leave(ctx context.Context) error {
	id := f.presenceID
	if id == "" {
		brain, err := presence.CanonicalPath(f.req.Brain)
		if err != nil {
			return &badInputError{presence.ErrorMessage(err)}
		}
		id = presence.ID(f.req.AgentID, brain)
	}
	if f.registryRoot != "" {
		svc, err := f.directService()
		if err != nil {
			return err
		}
		if err := svc.Leave(ctx, id); err != nil && presence.ErrorCode(err) != presence.ENOTFOUND {
			return err
		}
		return nil
	}
	err := f.call(ctx, http.MethodDelete, "/api/presences/"+url.PathEscape(id), nil, nil)
	var st *statusError
	if errors.As(err, &st) && st.status == http.StatusNotFound {
		return nil // already gone: the leave's goal holds
	}
	return err
}

func (f *beatFlags) directService() (*presence.Service, error) {
	store := dirstore.New(f.registryRoot)
	if err := store.Init(); err != nil {
		return nil, err
	}
	return presence.NewService(store, presence.Config{Logger: slog.New(slog.DiscardHandler)}), nil
}

// statusError is a non-2xx answer from the Hall.
type statusError struct {
	status int
	body   contract.ErrorResponse
}

func (e *statusError) Error() string {
	return fmt.Sprintf("the Hall answered %d %s: %s", e.status, e.body.Error, e.body.Detail)
}

// call does one JSON request against the Hall.
func (f *beatFlags) call(ctx context.Context, method, path string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(f.hall, "/")+path, bytes.NewReader(body))
	if err != nil {
		return &badInputError{fmt.Sprintf("--hall %q: %v", f.hall, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	if f.token != "" {
		req.Header.Set("Authorization", "Bearer "+f.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the Hall at %s is unreachable: %w", f.hall, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 300 {
		se := &statusError{status: resp.StatusCode}
		_ = json.Unmarshal(data, &se.body)
		if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusNotFound {
			return &badInputError{se.Error()}
		}
		return se
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("read the Hall's answer: %w", err)
		}
	}
	return nil
}
