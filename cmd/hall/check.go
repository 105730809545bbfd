package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hallclient"
)

const checkAbout = `usage: hall check [flags] [path…]

Ask a Hall whom work on some paths would collide with (another mutating
session in the same worktree, caller root or working set) or overlap
(another worktree changing the same files), and why. It writes nothing.
Exit 0: no collision; 3: it would collide; 4: the Hall is rate-limiting
this client's checks (retry after the time it says); 1: the Hall refused
the request; 2: a flag mistake. Paths are relative to the worktree or
absolute.
`

// hall check's exit codes beside 0, 1 and 2: the work would collide; the
// Hall refused the check under its rate limit (a retry later answers,
// unlike a 1).
const (
	exitWouldCollide = 3
	exitRateLimited  = 4
)

// checkBurst is the checks a client may make at once under --check-rate:
// twice the rate, at least one.
func checkBurst(rate float64) int {
	return max(int(math.Ceil(2*rate)), 1)
}

// runCheck is `hall check`: hall.Check over the Hall --hall names.
func runCheck(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hall check", flag.ContinueOnError)
	var (
		base, agent string
		token, read cli.Secret
		timeout     time.Duration
		paths       cli.StringList
		readOnly    bool
		req         contract.BeatRequest
	)
	fs.StringVar(&base, "hall", cli.DefaultURL, "the Hall's base URL")
	token.Register(fs, "token", "bearer token the Hall requires")
	read.Register(fs, "read-token", "the Hall's read token, sent when there is no --token")
	fs.DurationVar(&timeout, "timeout", 2*time.Second, "give up on the Hall after this long")
	fs.Var(&paths, "paths", "a file or directory the work would change (repeatable)")
	fs.StringVar(&agent, "agent-id", "", "who asks: its own presence is left out")
	fs.StringVar(&req.Brain, "brain", "", "the workspace root (default: the main worktree of the git repository)")
	fs.StringVar(&req.CallerRoot, "caller-root", "", "where the work happens from (default: this process's directory)")
	fs.StringVar(&req.Worktree, "worktree", "", "the git worktree (default: the top level of the caller root's repository)")
	fs.BoolVar(&readOnly, "read-only", false, "the work changes no file (a read-only session collides with nobody, but overlaps are listed)")
	if err := parseFlags(fs, checkAbout, args, stdout, stderr); err != nil {
		return err
	}
	paths = append(paths, fs.Args()...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := fillDefaults(ctx, &req); err != nil {
		return &exitError{code: 2, err: err}
	}
	tok, err := token.Value()
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if tok == "" {
		if tok, err = read.Value(); err != nil {
			return &exitError{code: 2, err: err}
		}
	}
	mutating := !readOnly
	c := &hallclient.HTTP{Base: base, Token: tok}
	resp, err := c.Check(ctx, contract.CheckRequest{
		AgentID: agent, Brain: req.Brain, CallerRoot: req.CallerRoot, Worktree: req.Worktree, Paths: paths, Mutating: &mutating,
	})
	var refused *contract.Error
	if errors.As(err, &refused) && refused.Code == "rate_limited" {
		return &exitError{code: exitRateLimited, err: fmt.Errorf("the Hall is rate-limiting checks from this client: %s", refused.Detail)}
	}
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if resp.Error != "" {
		return &exitError{code: 1, err: fmt.Errorf("the Hall cannot read its roster: %s: %s", resp.Error, resp.Detail)}
	}
	fmt.Fprint(stdout, contract.CheckText(resp, 10))
	if resp.WouldCollide {
		return &exitError{code: exitWouldCollide}
	}
	return nil
}
