package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
)

// DemoPeriod is how often the simulated agents beat in `hall --demo`.
const DemoPeriod = 2 * time.Second

// demoCycle is the length of the demo's script in steps; it then repeats.
const demoCycle = 12

// demoBase is where the simulated agents' brains and worktrees live. The
// paths need not exist: the Hall records what agents say.
const demoBase = "/home/demo"

// Demo drives a handful of simulated agents through the Hall's Beat, the
// same beat path real agents take: they work, move between worktrees, two of
// them end up editing one worktree (a collision) and part again, and one
// leaves and comes back. The script repeats until Close. Once, soon after
// the start, one agent runs `git checkout .` over another's uncommitted
// edit in a real repository of the demo's own (accident): the Hall
// snapshots it first and the page shows the loss as recoverable.
type Demo struct {
	app    *hall.Hall
	period time.Duration
	log    *slog.Logger

	// repo is the accident's git repository, in a temporary folder of
	// the demo's own (removed by Close); "" when it could not be made, and
	// the demo plays without the accident.
	repo, repoTemp string
	// accidentDone: the destructive command ran (once per demo).
	accidentDone bool

	// afterStep, when set, is called after each step with the roster it
	// left; tests use it to follow the script without sleeping.
	afterStep func(ctx context.Context, step int, snap presence.Snapshot)

	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
}

// NewDemo returns a demo that beats app every period.
func NewDemo(app *hall.Hall, period time.Duration, log *slog.Logger) *Demo {
	if period <= 0 {
		period = DemoPeriod
	}
	if log == nil {
		log = slog.Default()
	}
	return &Demo{app: app, period: period, log: log}
}

// Start runs the script in a goroutine until ctx ends or Close is called.
func (d *Demo) Start(ctx context.Context) {
	if err := d.makeRepo(ctx); err != nil {
		d.log.Warn("demo: no repository for the accident; the demo plays without a loss", "err", err)
	}
	ctx, d.cancel = context.WithCancel(ctx)
	d.done = make(chan struct{})
	go func() {
		defer close(d.done)
		t := time.NewTicker(d.period)
		defer t.Stop()
		for step := 0; ; step++ {
			d.step(ctx, step)
			if d.afterStep != nil {
				if snap, err := d.app.Snapshot(ctx); err == nil {
					d.afterStep(ctx, step, snap)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// Close stops the script, waits for its goroutine and lets every simulated
// presence leave, so a Hall that outlives the demo shows nobody.
func (d *Demo) Close() {
	d.closeOnce.Do(func() {
		if d.cancel == nil {
			return
		}
		d.cancel()
		<-d.done
		ctx := context.Background()
		for _, a := range demoAgents {
			if err := d.app.Leave(ctx, presence.ID(a.agent, a.brain)); err != nil && !contract.IsNotFound(err) {
				d.log.Debug("demo leave", "agent", a.agent, "err", err)
			}
		}
		if d.repo != "" {
			for _, a := range accidentCast {
				if _, err := d.app.Hook(ctx, hall.HookRequest{Agent: "claude", Payload: a.payload("SessionEnd", d.repo, "", nil), Override: a.override(), Leave: true}); err != nil && !contract.IsNotFound(err) {
					d.log.Debug("demo leave", "agent", a.agent, "err", err)
				}
			}
		}
		if d.repoTemp != "" {
			if err := os.RemoveAll(d.repoTemp); err != nil {
				d.log.Warn("demo: remove the accident's repository", "dir", d.repoTemp, "err", err)
			}
		}
	})
}

// demoAgent is one simulated agent: fixed declarations, and a script that
// says, for each step of the cycle, where it works and what it just ran.
type demoAgent struct {
	agent, brain, kind, theme, task, intent string
	arrive                                  int // first step it beats, so the first minute shows joins
	at                                      func(step int) demoMove
}

// demoMove is an agent's state at one step.
type demoMove struct {
	away       bool // not in the Hall at this step (it left)
	worktree   string
	callerRoot string
	workingSet []string
	tool       string
	touched    []string // files its tool changes, absolute (observed)
}

func demoPath(rel string) string { return demoBase + "/" + rel }

// demoAgents is the cast. codex-2 moves into claude-7's worktree for steps
// 4–8 and touches the files claude-7 declared: a collision on both
// same_worktree and working_set_overlap, which dissolves when it moves
// back. Before and after, in its own worktree, it changes go.mod, which
// claude-7 changes in its own: an overlap of two worktrees (issue #20).
// gemini-4, in a third worktree, changes cart.go, which claude-7 changes
// too: an overlap throughout, the page's picture. Overlaps on observed
// and declared files only: the demo's worktrees do not exist for git, so
// never a conflict. cursor-1 and claude-9 share a caller root but only read: same place
// alone never warns. nightly-bot leaves at step 9 and rejoins at 11. The
// agents arrive over the first steps, so a newcomer sees them join.
var demoAgents = []demoAgent{
	{
		agent: "claude-7", brain: demoPath("shop"), kind: "executor",
		theme: "checkout refactor", task: "msn_8c1d2e",
		at: func(int) demoMove {
			return demoMove{worktree: demoPath("shop-wt2"), workingSet: []string{"src/checkout/", "go.mod"}, tool: "Edit",
				touched: []string{demoPath("shop-wt2/src/checkout/cart.go"), demoPath("shop-wt2/go.mod")}}
		},
	},
	{
		agent: "codex-2", brain: demoPath("shop"), kind: "executor",
		theme: "search index rebuild", task: "msn_41aa07", arrive: 1,
		at: func(step int) demoMove {
			switch {
			case step < 2:
				return demoMove{worktree: demoPath("shop-wt3"), workingSet: []string{"internal/search/"}, tool: "Read"}
			case step < 4 || step > 8:
				return demoMove{worktree: demoPath("shop-wt3"), workingSet: []string{"internal/search/"}, tool: "Edit",
					touched: []string{demoPath("shop-wt3/internal/search/index.go"), demoPath("shop-wt3/go.mod")}}
			default:
				return demoMove{worktree: demoPath("shop-wt2"), workingSet: []string{"src/checkout/cart.go", "internal/search/"}, tool: "Write"}
			}
		},
	},
	{
		agent: "gemini-4", brain: demoPath("shop"), kind: "executor",
		theme: "cart discounts", task: "msn_5e90b3", arrive: 3,
		at: func(int) demoMove {
			return demoMove{worktree: demoPath("shop-wt4"), workingSet: []string{"src/checkout/discount.go"}, tool: "Edit",
				touched: []string{demoPath("shop-wt4/src/checkout/discount.go"), demoPath("shop-wt4/src/checkout/cart.go")}}
		},
	},
	{
		agent: "cursor-1", brain: demoPath("shop"), kind: "reviewer",
		theme: "review PR #412", task: "pr_412", arrive: 2,
		at: func(int) demoMove { return demoMove{callerRoot: demoPath("shop"), tool: "Read"} },
	},
	{
		agent: "claude-9", brain: demoPath("shop"), kind: "planner",
		theme: "plan Q3 search work", arrive: 3,
		at: func(int) demoMove { return demoMove{callerRoot: demoPath("shop"), tool: "Grep"} },
	},
	{
		agent: "m1nd-runtime", brain: demoPath("payments"), kind: "runtime",
		theme: "ledger reconcile", intent: "migrate ledger schema", task: "msn_77c0de",
		at: func(int) demoMove {
			return demoMove{worktree: demoPath("payments"), workingSet: []string{"migrations/"}, tool: "search"}
		},
	},
	{
		agent: "nightly-bot", brain: demoPath("payments"), kind: "script",
		theme: "dependency bump", arrive: 2,
		at: func(step int) demoMove {
			switch {
			case step == 9 || step == 10:
				return demoMove{away: true}
			case step >= 6 && step < 9:
				return demoMove{callerRoot: demoPath("payments-ci"), workingSet: []string{"go.mod", "go.sum"}, tool: "Write"}
			default:
				return demoMove{callerRoot: demoPath("payments-ci"), workingSet: []string{"go.mod", "go.sum"}, tool: "Read"}
			}
		},
	},
}

// step plays one step of the script: every agent that has arrived beats,
// or leaves.
func (d *Demo) step(ctx context.Context, step int) {
	for _, a := range demoAgents {
		if ctx.Err() != nil {
			return
		}
		if step < a.arrive {
			continue
		}
		mv := a.at(step % demoCycle)
		if mv.away {
			err := d.app.Leave(ctx, presence.ID(a.agent, a.brain))
			if err != nil && !contract.IsNotFound(err) {
				d.log.Warn("demo leave", "agent", a.agent, "err", err)
			}
			continue
		}
		ws := mv.workingSet
		if ws == nil {
			ws = []string{}
		}
		heard := false // no agent reads the demo's answers (contract.BeatRequest.Listening)
		_, err := d.app.Beat(ctx, contract.BeatRequest{
			AgentID: a.agent, Brain: a.brain, Kind: a.kind, Theme: a.theme, TaskRef: a.task,
			DeclaredIntent: a.intent, Worktree: mv.worktree, CallerRoot: mv.callerRoot,
			WorkingSet: &ws, Tool: mv.tool, Touched: mv.touched, Listening: &heard,
		})
		if err != nil {
			d.log.Warn("demo beat", "agent", a.agent, "err", err)
		}
	}
	if d.repo != "" && ctx.Err() == nil {
		d.accident(ctx, step)
	}
}

// The accident (issue 42 item 9): in a real repository of the demo's own,
// claude-3 edits tax.go and leaves it uncommitted; claude-5, in the same
// worktree, cleaning up, runs `git checkout .` over it. Both beat through
// the agents' hook path (Hall.Hook, as Claude Code's HTTP hook does), so
// the Hall snapshots the worktree before the command, finds the loss after
// it and the page marks it recoverable. It happens once, after the cast's
// first collision has dissolved (step accidentStep or later, once git
// lists the edit), well inside the first minute.
const (
	accidentArrive = 6  // claude-3 arrives and edits
	accidentStep   = 10 // claude-5's `git checkout .`, at the earliest
	accidentFile   = "src/pricing/tax.go"
)

// accidentAgent is one of the accident's two agents.
type accidentAgent struct {
	agent, session, kind, theme, task string
	arrive                            int
}

var accidentCast = []accidentAgent{
	{agent: "claude-3", session: "3d3d3d3d-0000-4000-8000-000000000003", kind: "executor", theme: "tax rounding", task: "msn_3c0f11", arrive: accidentArrive},
	{agent: "claude-5", session: "5d5d5d5d-0000-4000-8000-000000000005", kind: "executor", theme: "tidy the build", arrive: accidentArrive + 2},
}

func (a accidentAgent) override() contract.BeatRequest {
	return contract.BeatRequest{AgentID: a.agent, Kind: a.kind, Theme: a.theme, TaskRef: a.task}
}

// payload is a Claude Code hook payload for event in cwd: a tool's use
// when tool is set.
func (a accidentAgent) payload(event, cwd, tool string, input map[string]any) []byte {
	p := map[string]any{"hook_event_name": event, "session_id": a.session, "cwd": cwd}
	if tool != "" {
		p["tool_name"] = tool
		p["tool_input"] = input
		if event == "PostToolUse" {
			p["tool_response"] = map[string]any{"success": true}
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	return b
}

// accident plays the accident's step: its agents beat through the hook
// path, and once, the destructive command.
func (d *Demo) accident(ctx context.Context, step int) {
	writer, cleaner := accidentCast[0], accidentCast[1]
	file := filepath.Join(d.repo, filepath.FromSlash(accidentFile))
	hook := func(a accidentAgent, payload []byte) {
		if _, err := d.app.Hook(ctx, hall.HookRequest{Agent: "claude", Payload: payload, Override: a.override()}); err != nil {
			d.log.Warn("demo hook", "agent", a.agent, "err", err)
		}
	}
	if step >= writer.arrive {
		tool := "Edit"
		if step == writer.arrive {
			if err := os.WriteFile(file, []byte("package pricing\n\n// Round halves to even, per the tax office (claude-3, uncommitted).\nfunc Round(cents float64) int64 { return int64(cents + 0.5) }\n"), 0o644); err != nil {
				d.log.Warn("demo: claude-3's edit", "err", err)
			}
		} else if d.accidentDone {
			tool = "Read" // its edit is gone; it reads the file again
		}
		hook(writer, writer.payload("PostToolUse", d.repo, tool, map[string]any{"file_path": file}))
	}
	if step < cleaner.arrive {
		return
	}
	if d.accidentDone || step < accidentStep || !d.gitListsEdit() {
		hook(cleaner, cleaner.payload("PostToolUse", d.repo, "Grep", map[string]any{"pattern": "TODO"}))
		return
	}
	const line = "git checkout ."
	d.accidentDone = true
	hook(cleaner, cleaner.payload("PreToolUse", d.repo, "Bash", map[string]any{"command": line}))
	if out, err := demoGit(ctx, d.repo, "checkout", "."); err != nil {
		d.log.Warn("demo: claude-5's git checkout .", "err", err, "output", out)
	}
	hook(cleaner, cleaner.payload("PostToolUse", d.repo, "Bash", map[string]any{"command": line}))
}

// gitListsEdit says whether the Hall's scanner lists claude-3's edit as
// uncommitted (so the snapshot holds it as git's answer); a Hall without
// a scanner does not wait.
func (d *Demo) gitListsEdit() bool {
	if d.app.Git == nil {
		return true
	}
	res, ok := d.app.Git.Result(d.repo)
	if !ok || res.Err != nil {
		return false
	}
	_, listed := res.Changes.StateOf(accidentFile)
	return listed
}

// makeRepo makes the accident's repository, a committed tax.go, in a
// temporary folder of the demo's own.
func (d *Demo) makeRepo(ctx context.Context) error {
	tmp, err := os.MkdirTemp("", "hall-demo-repo-*")
	if err != nil {
		return fmt.Errorf("demo repository: %w", err)
	}
	d.repoTemp = tmp
	// The folder's real path: git and the Hall name the worktree by it.
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	repo := filepath.Join(tmp, "storefront")
	if err := os.MkdirAll(filepath.Join(repo, "src", "pricing"), 0o755); err != nil {
		return fmt.Errorf("demo repository: %w", err)
	}
	if err := os.WriteFile(filepath.Join(repo, filepath.FromSlash(accidentFile)), []byte("package pricing\n\nfunc Round(cents float64) int64 { return int64(cents) }\n"), 0o644); err != nil {
		return fmt.Errorf("demo repository: %w", err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "pricing"}} {
		if out, err := demoGit(ctx, repo, args...); err != nil {
			return fmt.Errorf("demo repository: git %s: %w: %s", strings.Join(args, " "), err, out)
		}
	}
	d.repo = repo
	return nil
}

// demoGit runs git in the demo's own repository, with no user or system
// configuration and a fixed identity (so a person's hooks, signing or
// templates never run on it).
func demoGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=hall demo", "GIT_AUTHOR_EMAIL=demo@hall.invalid",
		"GIT_COMMITTER_NAME=hall demo", "GIT_COMMITTER_EMAIL=demo@hall.invalid", "GIT_TERMINAL_PROMPT=0")
	return cmd.CombinedOutput()
}

// runDemo is `hall --demo`: the Hall over a temporary registry (removed on
// exit) with the simulated agents, until SIGINT or SIGTERM.
func runDemo(ctx context.Context, cfg Config, log *slog.Logger, stdout io.Writer) (err error) {
	dir, err := os.MkdirTemp("", "hall-demo-*")
	if err != nil {
		return fmt.Errorf("demo registry: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(dir); rerr != nil && err == nil {
			err = fmt.Errorf("remove demo registry: %w", rerr)
		}
	}()
	cfg.RegistryRoot = dir
	m := NewMain(cfg, log)
	if err := m.Run(ctx); err != nil {
		return err
	}
	d := NewDemo(m.App, DemoPeriod, log)
	d.Start(ctx)
	fmt.Fprintf(stdout, "Hall demo: open %s\n", m.URL())
	fmt.Fprintf(stdout, "simulated agents over a temporary registry %s (removed on exit); Ctrl-C stops\n", dir)
	<-ctx.Done()
	log.Info("shutting down")
	d.Close()
	return m.Close()
}
