// Command hallbench is the Hall's benchmark command: it builds and starts a
// real Hall, drives it from separate processes over loopback (this same
// binary in a worker role), and prints one table of figures beside their
// goals. `task bench` runs it; docs/performance.md publishes its output.
//
// Roles: the default role orchestrates; -role beat, get and subscribe are
// load generators; -role bare serves a bare Echo handler (204) so the beat
// and read paths are compared with the framework's own floor in one run.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}

// usageError is a flag hallbench cannot read; its usage is already on
// stderr.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

// exitCode is hallbench's exit status for run's error, as hall's: 0 when
// it ran or was asked for help (-h), 2 for a flag it cannot read, 1 for a
// failure, whose error it prints.
func exitCode(err error, stderr io.Writer) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "hallbench:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "hallbench:", err)
		return 1
	}
}

// options are every role's flags; each role reads the ones it needs.
type options struct {
	role     string
	url      string
	addr     string
	agents   int
	conns    int
	duration time.Duration
	path     string
	etag     string
	method   string
	body     string
	subs     int
	probes   int
	quick    bool
	only     string
	soak     time.Duration
	cpuprof  string
	client   string
	crowd    bool
	every    time.Duration
	// The overlaps scenario's worktrees, and those of its memory figure
	// (0 skips it).
	worktrees, memWorktrees int
	rounds                  int
	stagger                 time.Duration
	gitPriority             string
	// The pushed scenario's (issue #44): its short --remote-interval and
	// rounds there, its rounds at the default interval, the idle watch's
	// window and the active branches of the store figure.
	pushedInterval      time.Duration
	pushedRounds        int
	pushedDefaultRounds int
	pushedIdle          time.Duration
	pushedBranches      int
}

// run parses the flags and runs the role. Asked for help, it prints the
// usage on stdout and returns flag.ErrHelp; a flag it cannot read prints
// the usage on stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hallbench", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.role, "role", "", "worker role: beat, get, subscribe, bare (internal)")
	fs.StringVar(&o.url, "url", "", "the Hall's base URL (worker roles)")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "listen address (bare role)")
	fs.IntVar(&o.agents, "agents", 200, "simulated agents (beat role)")
	fs.IntVar(&o.conns, "conns", 8, "concurrent connections (get role)")
	fs.DurationVar(&o.duration, "duration", 8*time.Second, "how long each load runs")
	fs.StringVar(&o.path, "path", "/api/presences", "path to read (get role)")
	fs.StringVar(&o.etag, "etag", "", "If-None-Match to send (get role)")
	fs.StringVar(&o.method, "method", "GET", "method to send (get role)")
	fs.StringVar(&o.body, "body", "", "a file whose bytes every request sends as its JSON body (get role)")
	fs.IntVar(&o.subs, "subs", 1000, "SSE subscribers (subscribe role)")
	fs.IntVar(&o.probes, "probes", 20, "probe changes to wait for (subscribe role)")
	fs.BoolVar(&o.quick, "quick", false, "smaller loads and shorter runs (a smoke run, not the published figures)")
	fs.StringVar(&o.only, "only", "", "run only the scenarios whose name contains this")
	fs.DurationVar(&o.soak, "soak", 0, "run the soak for this long instead of the benchmarks")
	fs.StringVar(&o.client, "client", "raw", "subscribe role's client: raw (sockets and one epoll loop, Linux) or http (net/http, a goroutine a stream)")
	fs.StringVar(&o.cpuprof, "cpuprofile", "", "write this process's CPU profile here (to profile a worker role)")
	fs.BoolVar(&o.crowd, "crowd", false, "beat role: every agent mutating in one worktree of one brain")
	fs.DurationVar(&o.every, "every", 0, "beat role: each agent beats once this often (0: as soon as the last beat is answered)")
	fs.IntVar(&o.worktrees, "worktrees", 50, "overlaps: worktrees of the generated repository, an agent beating in each")
	fs.IntVar(&o.memWorktrees, "mem-worktrees", 200, "overlaps: worktrees of the memory figure (0 skips it)")
	fs.IntVar(&o.rounds, "rounds", 3, "overlaps: rounds of each side, git on and git off by turns (more: a steadier p99)")
	fs.StringVar(&o.gitPriority, "git-priority", "", "overlaps: the git-on Hall's --git-priority (empty: the Hall's default)")
	fs.DurationVar(&o.stagger, "stagger", 6*time.Second, "overlaps: the probe cycle's pairs start over this long (shorter: more overlaps opening at once)")
	fs.DurationVar(&o.pushedInterval, "pushed-interval", 5*time.Second, "pushed: the Hall's --remote-interval for the many rounds")
	fs.IntVar(&o.pushedRounds, "pushed-rounds", 60, "pushed: rounds at -pushed-interval, each pushing a new branch at a random phase")
	fs.IntVar(&o.pushedDefaultRounds, "pushed-default-rounds", 3, "pushed: rounds at the default --remote-interval (1m), after the idle figure")
	fs.DurationVar(&o.pushedIdle, "pushed-idle", 10*time.Minute, "pushed: how long the idle watch's git processes are counted")
	fs.IntVar(&o.pushedBranches, "pushed-branches", 200, "pushed: active branches of the store figure")
	fs.SetOutput(io.Discard) // the flag package's own messages: ours follow
	if err := fs.Parse(args); err != nil {
		w := stderr
		if errors.Is(err, flag.ErrHelp) {
			w = stdout
		}
		fmt.Fprintln(w, "usage: hallbench [flags]\n\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if o.cpuprof != "" {
		f, err := os.Create(o.cpuprof)
		if err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	switch o.role {
	case "":
		if o.soak > 0 {
			return runSoak(ctx, o)
		}
		return orchestrate(ctx, o)
	case "beat":
		return emit(loadBeats(ctx, o))
	case "get":
		return emit(loadGets(ctx, o))
	case "subscribe":
		if o.client == "http" {
			return emit(subscribe(ctx, o))
		}
		return emit(subscribeEpoll(ctx, o))
	case "bare":
		return serveBare(ctx, o.addr)
	default:
		return fmt.Errorf("unknown role %q", o.role)
	}
}

// emit prints a worker's result as one JSON line for the orchestrator.
func emit(v any, err error) error {
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(v)
}
