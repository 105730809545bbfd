package realagents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/lockedbuf"
	"github.com/hall-dev/hall/internal/modelstub"
	"github.com/hall-dev/hall/internal/npmtest"
)

// bins is where TestMain built hall and hall-hook.
var bins string

// TestMain builds the Hall's two programs once, as a user installs them
// (hall-hook without cgo), for every test of the package to run.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "hall-realagents-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	for _, b := range []struct{ name, pkg, cgo string }{
		{"hall", "github.com/hall-dev/hall/cmd/hall", "1"},
		{"hall-hook", "github.com/hall-dev/hall/cmd/hall-hook", "0"},
	} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, b.name), b.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+b.cgo)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", b.pkg, err, out)
			return 1
		}
	}
	bins = dir
	return m.Run()
}

// pkg is the Hall as npm installs it, once for the package's tests
// (installed).
var pkg struct {
	once sync.Once
	in   npmtest.Install
}

// installed builds and installs the npm packages under bins, once.
func installed(t *testing.T) npmtest.Install {
	t.Helper()
	pkg.once.Do(func() { pkg.in = npmtest.New(t, filepath.Join(bins, "npm")) })
	if pkg.in.Prefix == "" {
		t.Fatal("the npm packages did not install (see the first test that tried)")
	}
	return pkg.in
}

// hallPath is a built program of the Hall.
func hallPath(name string) string { return filepath.Join(bins, name) }

// agentCLI finds one agent CLI, skipping the test without it (failing
// it under CI=true).
func agentCLI(t *testing.T, name string) string {
	t.Helper()
	prefix := os.Getenv("HALL_AGENT_CLIS")
	if prefix == "" {
		if home, err := os.UserHomeDir(); err == nil {
			prefix = filepath.Join(home, ".cache", "hall", "agent-clis")
		}
	}
	if prefix != "" {
		p := filepath.Join(prefix, "node_modules", ".bin", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	msg := fmt.Sprintf("%s is not installed (in %s/node_modules/.bin or on PATH); to run the real-CLI tests: scripts/install-agent-clis", name, prefix)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: they must run)")
	}
	t.Skip(msg)
	return ""
}

// world is one scenario's setting: a real git repository with a linked
// worktree, a real Hall on 127.0.0.1:0 (or a closed port, for the Hall
// down), the agent's home and cache folders, and the model stub.
type world struct {
	t    *testing.T
	repo hooktest.Repo
	// hall is the URL the hooks reach.
	hall string
	// home is the agent's HOME (its config folders are under it).
	home, cache string
	stub        *modelstub.Server
	last        session
	// env is what every agent CLI (and so its hooks) runs with besides
	// the git environment, HOME and the cache folder.
	env []string
	// bin is where the Hall's programs are (nil: the ones TestMain
	// built), hookCommand what the hooks run ("": bin's hall-hook), root
	// the registry a started Hall uses.
	bin         func(name string) string
	hookCommand string
	root        string
	// pkg is the installed @hall-dev/hall's folder ("": the Hall is not
	// from the package), args what an agent CLI is run with besides its
	// driver's.
	pkg  string
	args []string
	// who names the session in a failure's log ("": the only one).
	who string
}

// program is the path of the Hall's program name in this world.
func (w *world) program(name string) string {
	if w.bin != nil {
		return w.bin(name)
	}
	return hallPath(name)
}

// newWorld makes the repository and the folders, and starts a Hall
// unless down, when the hooks are pointed at a port nobody listens on.
func newWorld(t *testing.T, down bool) *world {
	t.Helper()
	w := &world{t: t, repo: hooktest.GitRepo(t), home: gittest.TempDir(t), cache: gittest.TempDir(t)}
	if down {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		w.hall = "http://" + ln.Addr().String()
		if err := ln.Close(); err != nil {
			t.Fatal(err)
		}
		// Down it stays: a hook would start a Hall there (hall is beside
		// hall-hook), as TestClaudeStartsTheHall wants.
		w.env = []string{"HALL_AUTOSTART=0"}
		return w
	}
	w.hall = startHall(t)
	return w
}

// startHall runs `hall serve` on 127.0.0.1:0 over a temp registry, and
// stops it (SIGINT, then waits) when the test ends.
func startHall(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	cmd := exec.Command(hallPath("hall"), "serve", "--addr", "127.0.0.1:0", "--registry-root", filepath.Join(root, "registry"), "--log-level", "warn")
	cmd.Env = append(gittest.Env(), "HOME="+root, "XDG_CACHE_HOME="+filepath.Join(root, "cache"))
	var errOut lockedbuf.Buffer
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start hall: %v", err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("hall stderr:\n%s", errOut.String())
		}
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "Hall: open "); ok {
				urls <- strings.TrimSpace(u)
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	select {
	case u := <-urls:
		return u
	case err := <-done:
		t.Fatalf("hall ended before it listened: %v\n%s", err, errOut.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("hall printed no URL in 60s\n%s", errOut.String())
	}
	return ""
}

// otherSession is the Claude Code session that plays the other agent in
// every scenario; otherID is its agent id.
const otherSession = hooktest.SessionB

var otherID = hooktest.AgentID(hooktest.ClaudeCode, otherSession)

// otherEdits makes the other session's edit of src/checkout/cart.go in
// worktree real (the file changes on disk, uncommitted) and reports it to
// the Hall as that session's Claude Code PostToolUse hook does, through
// the HTTP hook endpoint.
func (w *world) otherEdits(worktree, content string) {
	w.t.Helper()
	gittest.WriteFile(w.t, filepath.Join(worktree, "src", "checkout", "cart.go"), content)
	w.hookPost("claude", hooktest.Moved(w.t, hooktest.ClaudeCode, "post-tool-use-edit.json", worktree, otherSession))
}

// hookPost sends a hook payload to the Hall's HTTP hook endpoint.
func (w *world) hookPost(agent, payload string) {
	w.t.Helper()
	resp, err := http.Post(w.hall+"/api/hooks/"+agent, "application/json", strings.NewReader(payload))
	if err != nil {
		w.t.Fatalf("post hook: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		w.t.Fatalf("post hook: %s: %s", resp.Status, b)
	}
}

// roster is the part of GET /api/presences the tests read.
type roster struct {
	Presences []struct {
		AgentID string `json:"agent_id"`
	} `json:"presences"`
	Collisions []json.RawMessage `json:"collisions"`
	Overlaps   []struct {
		Verdict string `json:"verdict"`
		Merge   string `json:"merge"`
		A       struct {
			AgentID string `json:"agent_id"`
		} `json:"a"`
		B struct {
			AgentID string `json:"agent_id"`
		} `json:"b"`
	} `json:"overlaps"`
}

// roster reads the Hall's roster of the repository.
func (w *world) roster() (roster, error) {
	var r roster
	resp, err := http.Get(w.hall + "/api/presences?brain=" + url.QueryEscape(w.repo.Main))
	if err != nil {
		return r, fmt.Errorf("get roster: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return r, fmt.Errorf("get roster: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return r, fmt.Errorf("decode roster: %w", err)
	}
	return r, nil
}

// waitFor is a turn's Wait: it polls cond until it holds, and fails the
// test (from the stub's goroutine, so Errorf, not Fatal) after a bound
// generous for a loaded 2-core machine, never a measure of speed.
func (w *world) waitFor(what string, cond func() bool) func() {
	return func() {
		deadline := time.Now().Add(60 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				w.t.Errorf("timed out waiting for %s", what)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// install runs `hall hooks install <agent>` into the worktree, as
// docs/hooks.md says, with the lean hall-hook as the command and the
// agent's home as HOME.
func (w *world) install(agent, worktree string) {
	w.t.Helper()
	command := w.hookCommand
	if command == "" {
		command = w.program("hall-hook")
	}
	cmd := exec.Command(w.program("hall"), "hooks", "install", agent, "--project", worktree, "--hall", w.hall, "--command", command)
	cmd.Env = append(append(gittest.Env(), w.env...), "HOME="+w.home)
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("hall hooks install %s: %v\n%s", agent, err, out)
	}
}

// session is one run of an agent CLI.
type session struct {
	stdout, stderr string
}

// runCLI runs an agent CLI in dir with env over the git environment, the
// agent's HOME and hall-hook's cache folder, and fails the test if it
// does not exit 0 within a bound generous for a loaded machine (Errorf,
// not Fatalf: a session of twoFromThePackage runs it off the test's
// goroutine).
func (w *world) runCLI(dir string, env []string, name string, args ...string) session {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(w.t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(append(gittest.Env(), "HOME="+w.home, "XDG_CACHE_HOME="+w.cache, "NO_COLOR=1", "TERM=dumb"), w.env...), env...)
	cmd.Stdin = strings.NewReader("")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	s := session{stdout: out.String(), stderr: errOut.String()}
	w.last = s
	if err != nil {
		w.t.Errorf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), strings.Join(args, " "), err, s.stdout, s.stderr)
	}
	return s
}

// beside is the world of a second session beside w's, at once: the same
// repository, Hall, environment, installed Hall and cache folder (the
// user's: autostart keeps its lock there), its own home (its agent
// config: a Codex config.toml names one stub) and its own stub.
func (w *world) beside() *world {
	b := *w
	b.home = gittest.TempDir(w.t)
	b.env = slices.Clone(w.env)
	b.stub, b.last, b.args = nil, session{}, nil
	b.who = "the second session's "
	return &b
}

// startStub runs the model stub for the test.
func (w *world) startStub(script modelstub.Script) {
	w.t.Helper()
	s, err := modelstub.Start(script)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		if err := s.Close(); err != nil {
			w.t.Error(err)
		}
	})
	w.stub = s
}

// The texts the Hall puts in a model's context (docs/hooks.md), the
// parts every scenario counts.
const (
	collisionText = "reports that another agent is changing the same place as this session"
	overlapText   = "reports that another agent, in another worktree, changed the same files as this session"
	conflictText  = "git predicts the merge conflicts in src/checkout/cart.go"
	ownersText    = "The Hall: other live sessions have uncommitted changes in this worktree"
	reachText     = "reach the Hall"
)

// counts is how many times the model was given text over the session,
// and the index of the conversation request it first came in (-1: none).
func (w *world) counts(text string) (n, first int) {
	return w.stub.Count(text), w.stub.First(text)
}

// dump logs every conversation request's text when the test failed.
func (w *world) dump() {
	w.t.Cleanup(func() {
		if !w.t.Failed() || w.stub == nil {
			return
		}
		for i, r := range w.stub.Main() {
			w.t.Logf("%srequest %d (%s, turn %d):\n%s", w.who, i, r.Path, r.Turn, tail(r.Text, 4000))
		}
	})
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
