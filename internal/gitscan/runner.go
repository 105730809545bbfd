package gitscan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// MinVersion is the oldest git the Hall asks: merge-tree --write-tree
// (which predicts a merge without a worktree) came in 2.38.
var MinVersion = [2]int{2, 38}

// Runner defaults: see RunnerConfig.
const (
	DefaultTimeout   = 10 * time.Second
	DefaultMaxOutput = 8 << 20
	// DefaultNice is the scheduling priority git runs at: below the
	// Hall's own, so a scan takes CPU the Hall's answers and the agents
	// leave over (on 2 cores, 50 worktrees' scans at normal priority
	// made hook answers 4× slower).
	DefaultNice = 10
)

// DefaultMaxProcs is how many git processes a runner runs at once unless
// told: half the machine's cores, one at least, each held to one thread
// (fixedConfig). Git's work then never takes more than half the machine
// from the Hall's answers and the agents: on 2 cores, two processes at once
// (and git status's own threads) made a hook answer's p99 3.5× its figure
// without git, one process on one thread 1.5× (docs/performance.md).
func DefaultMaxProcs() int { return max(1, runtime.NumCPU()/2) }

// RunnerConfig chooses the git program and bounds each process.
type RunnerConfig struct {
	// Path is the git program (the --git flag); "" looks "git" up on PATH.
	Path string
	// Timeout bounds each git process (default DefaultTimeout): past it
	// the process is killed and the call fails with Timeout.
	Timeout time.Duration
	// MaxOutput bounds what is kept of a process's standard output
	// (default DefaultMaxOutput bytes); the rest is read and dropped, and
	// the answer says it was cut.
	MaxOutput int
	// MaxProcs caps the git processes running at once through this
	// runner (default DefaultMaxProcs()): the machine is shared with the
	// agents the Hall watches.
	MaxProcs int
	// Nice is the nice value git runs at (default DefaultNice; negative:
	// the Hall's own). Linux only.
	Nice int
	// Idle runs git under Linux's SCHED_IDLE policy as well: it gets a
	// core only when nothing else ready to run wants it, and any other
	// work that wakes takes the core from it at once (a nice value only
	// weighs shares). Git's CPU then never delays a hook answer; on a
	// machine kept busy by other work, git waits for a quiet moment (each
	// process still bounded by Timeout). Linux only.
	Idle bool
}

// Runner runs git: one program, checked once, with a timeout, a bounded
// output and a cap on processes at once. It is safe for concurrent use.
type Runner struct {
	path      string
	version   [3]int
	timeout   time.Duration
	maxOutput int
	nice      int
	idle      bool
	slots     chan struct{}
	cache     *changesCache // what Changes keeps between scans
	drivers   driverCache   // each directory's drivers to turn off (gitenv.go)
	started   atomic.Int64  // git processes started
}

// MaxProcs is how many git processes the runner runs at once.
func (r *Runner) MaxProcs() int { return cap(r.slots) }

// Processes counts the git processes the runner started.
func (r *Runner) Processes() int64 {
	if r == nil {
		return 0
	}
	return r.started.Load()
}

// NewRunner finds git and checks its version. A missing git is a
// GitMissing error, an old one GitTooOld: the caller falls back to
// observed files only and says why.
func NewRunner(ctx context.Context, cfg RunnerConfig) (*Runner, error) {
	path := cfg.Path
	if path == "" {
		path = "git"
	}
	abs, err := exec.LookPath(path)
	if err != nil {
		return nil, &Error{Code: GitMissing, Op: "find " + path, Err: err}
	}
	r := &Runner{
		path:      abs,
		timeout:   orDefault(cfg.Timeout, DefaultTimeout),
		maxOutput: orDefault(cfg.MaxOutput, DefaultMaxOutput),
		slots:     make(chan struct{}, orDefault(cfg.MaxProcs, DefaultMaxProcs())),
		nice:      orDefault(cfg.Nice, DefaultNice),
		idle:      cfg.Idle,
		cache:     newChangesCache(),
	}
	// The version probe is not a scan: it gets the default timeout even
	// when scans get a shorter one, so a loaded machine's slow first exec
	// is not taken for a git that never answers.
	r.timeout = max(r.timeout, DefaultTimeout)
	out, err := r.Run(ctx, Cmd{Args: []string{"version"}})
	r.timeout = orDefault(cfg.Timeout, DefaultTimeout)
	if err != nil {
		if CodeOf(err) == Failed {
			return nil, &Error{Code: GitMissing, Op: "git version", Err: err}
		}
		return nil, err
	}
	v, ok := parseVersion(out.Stdout)
	if !ok {
		return nil, &Error{Code: GitTooOld, Op: "git version", Err: fmt.Errorf("unreadable version %q", firstLine(out.Stdout))}
	}
	r.version = v
	if v[0] < MinVersion[0] || (v[0] == MinVersion[0] && v[1] < MinVersion[1]) {
		return nil, &Error{Code: GitTooOld, Op: "git version", Err: fmt.Errorf("git %d.%d.%d, need %d.%d or newer", v[0], v[1], v[2], MinVersion[0], MinVersion[1])}
	}
	return r, nil
}

// Path is the git program the runner runs.
func (r *Runner) Path() string { return r.path }

// Version is git's version: major, minor, patch.
func (r *Runner) Version() [3]int { return r.version }

// Cmd is one git invocation.
type Cmd struct {
	Dir  string   // the directory git runs in (-C)
	Args []string // after "git"
	Env  []string // added to the environment, e.g. GIT_INDEX_FILE=…
	// Stdin is what git reads on its standard input (nil: nothing).
	Stdin []byte
	// OK lists exit codes, besides 0, that are answers rather than
	// failures (merge-tree's 1: the merge conflicts).
	OK []int
	// Stdout, when set, takes git's standard output as it comes instead
	// of the runner's bounded buffer (Output.Stdout is then empty): a
	// blob streamed to its file, of any size. A write error stops git.
	Stdout io.Writer
	// maxOutput replaces the runner's MaxOutput when set.
	maxOutput int
}

// Output is what a git process answered.
type Output struct {
	Stdout []byte
	Cut    bool // Stdout was cut at the runner's MaxOutput
	Exit   int
}

// versionRE reads "git version 2.39.5" (and vendor suffixes after it).
var versionRE = regexp.MustCompile(`^git version (\d+)\.(\d+)(?:\.(\d+))?`)

func parseVersion(b []byte) ([3]int, bool) {
	m := versionRE.FindSubmatch(b)
	if m == nil {
		return [3]int{}, false
	}
	var v [3]int
	for i := range 3 {
		if len(m[i+1]) > 0 {
			v[i], _ = strconv.Atoi(string(m[i+1]))
		}
	}
	return v, true
}

// Run runs one git process and waits for it, holding one of the runner's
// slots while it runs. Every process gets the environment neutralEnv
// builds (gitenv.go): the repository's configuration names no command
// git runs, paths are literal, git status never rewrites the index; the
// context and the runner's timeout both bound it, and past them the
// process is killed with every process it started.
func (r *Runner) Run(ctx context.Context, c Cmd) (Output, error) {
	env, err := r.neutralEnv(ctx, c)
	if err != nil {
		return Output{}, err
	}
	return r.exec(ctx, c, env)
}

// exec runs c with exactly the environment env.
func (r *Runner) exec(ctx context.Context, c Cmd, env []string) (Output, error) {
	op := "git"
	if sub := subcommand(c.Args); sub != "" {
		op += " " + sub
	}
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return Output{}, &Error{Code: Timeout, Op: op, Err: ctx.Err()}
	}
	defer func() { <-r.slots }()
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	args := make([]string, 0, 2+len(c.Args))
	if c.Dir != "" {
		args = append(args, "-C", c.Dir)
	}
	args = append(args, c.Args...)
	cmd := exec.CommandContext(ctx, r.path, args...)
	cmd.Env = env
	// git runs in a process group of its own, killed whole: a command it
	// started (a hook, a filter, an fsmonitor that never answers) would
	// otherwise outlive it, holding its pipes and a core.
	ownGroup(cmd)
	cmd.WaitDelay = time.Second // a child that left the group and holds the pipes cannot hold Wait up longer
	out := &boundedBuffer{max: orDefault(c.maxOutput, r.maxOutput)}
	var stderr boundedBuffer
	stderr.max = 4 << 10
	cmd.Stdout, cmd.Stderr = out, &stderr
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	if c.Stdin != nil {
		cmd.Stdin = bytes.NewReader(c.Stdin)
	}
	r.started.Add(1)
	err := startLowered(cmd, r.nice, r.idle)
	if err == nil {
		err = waitGroup(cmd)
	}
	res := Output{Stdout: out.buf.Bytes(), Cut: out.cut}
	if ctx.Err() != nil {
		return res, &Error{Code: Timeout, Op: op, Err: ctx.Err()}
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &exit):
		res.Exit = exit.ExitCode()
		for _, ok := range c.OK {
			if res.Exit == ok {
				return res, nil
			}
		}
		return res, &Error{Code: Failed, Op: op, Err: fmt.Errorf("exit %d: %s", res.Exit, firstLine(stderr.buf.Bytes()))}
	default:
		return res, &Error{Code: Failed, Op: op, Err: err}
	}
}

// repoEnv are the variables that point git at a repository, an index or
// an object store other than the one -C finds (git rev-parse
// --local-env-vars), or add config: a Hall started from inside a git hook
// inherits them, and git would then read, or git add write, the hook's
// repository.
var repoEnv = map[string]bool{
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_CONFIG": true, "GIT_CONFIG_PARAMETERS": true,
	"GIT_CONFIG_COUNT": true, "GIT_OBJECT_DIRECTORY": true, "GIT_DIR": true, "GIT_WORK_TREE": true,
	"GIT_IMPLICIT_WORK_TREE": true, "GIT_GRAFT_FILE": true, "GIT_INDEX_FILE": true,
	"GIT_NO_REPLACE_OBJECTS": true, "GIT_REPLACE_REF_BASE": true, "GIT_PREFIX": true,
	"GIT_INTERNAL_SUPER_PREFIX": true, "GIT_SHALLOW_FILE": true, "GIT_COMMON_DIR": true,
	// Global pathspec settings: any of them beside GIT_LITERAL_PATHSPECS
	// makes git refuse every path.
	"GIT_GLOB_PATHSPECS": true, "GIT_NOGLOB_PATHSPECS": true, "GIT_ICASE_PATHSPECS": true, "GIT_LITERAL_PATHSPECS": true,
}

// environ is the process's environment without repoEnv.
func environ() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !repoEnv[k] && !strings.HasPrefix(k, "GIT_CONFIG_KEY_") && !strings.HasPrefix(k, "GIT_CONFIG_VALUE_") {
			out = append(out, kv)
		}
	}
	return out
}

// boundedBuffer keeps the first max bytes written and drops the rest,
// still accepting them so the process never blocks on a full pipe.
type boundedBuffer struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.buf.Write(p[:max(room, 0)])
		b.cut = true
		return len(p), nil
	}
	return b.buf.Write(p)
}

// ReadFrom reads r to its end into the buffer, as Write would take it.
// os/exec copies a child's output pipe with io.Copy, which without it
// allocates a 32 KiB buffer for every stream of every git process; past
// max the rest is read through io.Discard's pooled buffer.
func (b *boundedBuffer) ReadFrom(r io.Reader) (int64, error) {
	var n int64
	for {
		room := b.max - b.buf.Len()
		if room <= 0 {
			m, err := io.Copy(io.Discard, r)
			b.cut = b.cut || m > 0
			return n + m, err
		}
		b.buf.Grow(min(max(512, b.buf.Len()), room))
		p := b.buf.AvailableBuffer()
		p = p[:min(cap(p), room)]
		m, err := r.Read(p)
		b.buf.Write(p[:m])
		n += int64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return string(bytes.TrimSpace(b))
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
