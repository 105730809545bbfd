package hookforward

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/autostart"
	"github.com/hall-dev/hall/internal/cli"
)

// Usage is hall-hook's usage text; its flags follow it.
const Usage = `usage: hall-hook claude|codex|cursor|gemini [flags]

The lean command hook: it hands the agent's hook payload (stdin) to the
Hall's hook endpoint, POST /api/hooks/{agent}, and prints the Hall's answer
on stdout, the agent's own hook output (nothing when there is nothing to
say). It does what "hall beat --hook <agent>" does, in one request and a
process that starts in a fraction of the time. The Hall completes the place
from the payload's cwd, so it must run on this machine; for a Hall
elsewhere, or a registry written directly, run "hall beat --hook". Whatever
happens it exits 0: a Hall that cannot be reached, or a payload the Hall
refuses, is a warning on stderr, once per session and kind of failure
(a marker under the user's cache folder, hall/hook-warned), and the agent
carries on. When nothing listens at a loopback --hall, it starts a Hall
there (hall serve --autostarted, found beside hall-hook or on PATH) and
hands it the payload if it answers within --timeout; HALL_AUTOSTART=0
turns that off. Every flag can also be set with its HALL_* variable
(--hall is HALL_HALL).
`

// Main runs hall-hook with args (the program's name left out). It always
// ends well: a hook must never break the agent it reports on, so every
// mistake, the command line's included, is a warning on stderr.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) {
	var r Request
	warn := func(err error) {
		msg := fmt.Sprintf("hall-hook: warning: %v (the agent carries on)", err)
		if out := warningAnswer(r.Agent, msg); out != nil {
			fmt.Fprintf(stdout, "%s\n", out)
			return
		}
		fmt.Fprintln(stderr, msg)
	}
	fs := flag.NewFlagSet("hall-hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		token, readToken cli.Secret
		timeout          time.Duration
		start            bool
	)
	fs.StringVar(&r.Hall, "hall", cli.DefaultURL, "the Hall's base URL (plain http, on this machine)")
	token.Register(fs, "token", "bearer token the Hall requires for writes")
	readToken.Register(fs, "read-token", "the Hall's read token (--read-token), sent when there is no --token")
	fs.StringVar(&r.OnCollision, "on-collision", "warn", `"warn" puts the collision in the model's context; "ask" also asks the person before a mutating tool runs while in a collision`)
	fs.DurationVar(&timeout, "timeout", 2*time.Second, "give up on the Hall after this long (the beat is then skipped)")
	fs.BoolVar(&start, autostart.Flag, true, autostart.FlagUsage)

	// The agent comes before the flags (hall-hook claude --hall …) or
	// after them; the HALL_* variables fill what neither gave.
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		r.Agent, args = args[0], args[1:]
	}
	err := fs.Parse(args)
	if err == nil && r.Agent == "" && fs.NArg() > 0 {
		r.Agent = fs.Arg(0)
		err = fs.Parse(fs.Args()[1:])
	}
	extra := fs.Args()
	if err == nil {
		err = cli.ParseWithEnv(fs, nil)
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, Usage, "\nflags:\n")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return
	case err != nil:
		warn(err)
		return
	case r.Agent == "" || len(extra) > 0:
		warn(fmt.Errorf("want one agent, claude, codex, cursor or gemini, as in hall-hook claude [flags]; got %q", strings.Join(append([]string{r.Agent}, extra...), " ")))
		return
	}
	if r.Token, err = token.Value(); err != nil {
		warn(err)
		return
	}
	if r.Token == "" {
		// A Hall with a read token and no write token takes beats with
		// the read token, as hall beat does.
		if r.Token, err = readToken.Value(); err != nil {
			warn(err)
			return
		}
	}

	r.Payload, err = io.ReadAll(io.LimitReader(stdin, MaxPayload+1))
	if err != nil {
		warn(fmt.Errorf("read the %s hook payload: %w", r.Agent, err))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := Forward(ctx, r)
	if err != nil && start && autostart.Refused(err) {
		// Only a refused connection gets here: the path where the Hall
		// answers does no more than before.
		if _, ok := autostart.LoopbackAddr(r.Hall); ok {
			if serr := autostart.Start(ctx, autostart.Config{Hall: r.Hall}); serr != nil {
				err = fmt.Errorf("%w; %v", err, serr)
			} else {
				out, err = Forward(ctx, r)
			}
		}
	}
	if err != nil {
		// Once per session and kind of failure (warnonce.go): a Hall that
		// is down must not print a line at every tool call.
		if FirstWarning(r.Agent, r.Payload, WarningKind(err)) {
			warn(fmt.Errorf("%w; said once per session", err))
		}
		return
	}
	if out != nil {
		if _, err := fmt.Fprintf(stdout, "%s\n", out); err != nil {
			warn(fmt.Errorf("write the hook answer: %w", err))
		}
	}
}
