package realagents

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/modelstub"
	"github.com/hall-dev/hall/internal/npmtest"
)

// driver is what differs between the agent CLIs: their tools, as the
// model calls them, and how a session runs.
type driver struct {
	// cli is the program's name (node_modules/.bin or PATH).
	cli string
	// agent is the Hall's name for it (hall hooks install <agent>).
	agent string
	// write is the model's calls of the CLI's tools that create or
	// overwrite the file at abs (in worktree wt) with content (Claude
	// Code reads a file before it lets the model overwrite it).
	write func(wt, abs, content string, exists bool) modelstub.Script
	// shell is the model's call of the CLI's shell tool.
	shell func(command string) modelstub.Turn
	// run runs one non-interactive session in dir, prompt given, against
	// the world's stub and with the hooks the world installed, and with
	// w.args after its own.
	run func(w *world, cli, dir string) session
	// plugin wires the hooks from the installed package's folder pkg, as
	// the agent's own plugin or extension (Claude Code's --plugin-dir,
	// Gemini CLI's extensions install); nil: the package's hall writes
	// them (hall hooks install).
	plugin func(w *world, cli, pkg string)
}

// cart is the file every scenario's sessions contend for.
func cart(wt string) string { return filepath.Join(wt, "src", "checkout", "cart.go") }

// prompt is the person's request in every session.
const prompt = "Work on the checkout."

// play installs the hooks in the worktree (`hall hooks install` there,
// as a person would), starts the stub with script and runs one session
// of the agent there.
func play(t *testing.T, d driver, w *world, script modelstub.Script) session {
	t.Helper()
	cli := prepare(t, d, w, script)
	return d.run(w, cli, w.repo.Worktree)
}

// prepare is play up to the session: the hooks installed, the stub
// started; it returns the CLI's path.
func prepare(t *testing.T, d driver, w *world, script modelstub.Script) string {
	t.Helper()
	cli := agentCLI(t, d.cli)
	if w.pkg != "" && d.plugin != nil {
		d.plugin(w, cli, w.pkg)
	} else {
		w.install(d.agent, w.repo.Worktree)
	}
	w.startStub(script)
	w.dump()
	return cli
}

// collision: another session is editing in the same worktree (its edit
// of cart.go real, reported through the Hall's hook endpoint); the agent
// writes another file there, then runs a harmless command, then ends.
func collision(t *testing.T, d driver) *world {
	w := newWorld(t, false)
	w.otherEdits(w.repo.Worktree, "package checkout\n\n// the other session's edit\n")
	wt := w.repo.Worktree
	play(t, d, w, append(d.write(wt, filepath.Join(wt, "src", "checkout", "tax.go"), "package checkout\n\n// tax\n", false),
		d.shell("git status --short"),
		modelstub.Say("Done."),
	))
	return w
}

// conflict: a session in the repository's main worktree changed cart.go
// (uncommitted); the agent, in the linked worktree, writes cart.go
// otherwise. The model's next turn waits until the Hall's scanner has
// predicted the merge (the roster's overlap is a conflict), then runs a
// harmless command, then ends.
func conflict(t *testing.T, d driver) *world {
	w := newWorld(t, false)
	w.otherEdits(w.repo.Main, "package checkout\n\n// main's total\nfunc Total() int { return 1 }\n")
	wt := w.repo.Worktree
	status := d.shell("git status --short")
	status.Wait = w.waitFor("the Hall to predict the merge conflict", func() bool {
		r, err := w.roster()
		return err == nil && len(r.Overlaps) == 1 && r.Overlaps[0].Verdict == "conflict"
	})
	play(t, d, w, append(d.write(wt, cart(wt), "package checkout\n\n// wt2's total\nfunc Total() int { return 2 }\n", true),
		status,
		modelstub.Say("Done."),
	))
	return w
}

// guard: another session has uncommitted work on cart.go in the
// worktree; the agent runs `git checkout .`, then ends.
func guard(t *testing.T, d driver) *world {
	w := newWorld(t, false)
	w.otherEdits(w.repo.Worktree, "package checkout\n\n// the other session's edit\n")
	play(t, d, w, modelstub.Script{
		d.shell("git checkout ."),
		modelstub.Say("Done."),
	})
	return w
}

// owners: another session has uncommitted work on cart.go in the
// worktree as the agent starts; the agent runs two harmless commands,
// then ends.
func owners(t *testing.T, d driver) *world {
	w := newWorld(t, false)
	w.otherEdits(w.repo.Worktree, "package checkout\n\n// the other session's edit\n")
	play(t, d, w, modelstub.Script{
		d.shell("git status --short"),
		d.shell("git diff --stat"),
		modelstub.Say("Done."),
	})
	return w
}

// hallDown: the hooks point at a port nobody listens on; the agent
// writes a file, runs a command, and ends.
func hallDown(t *testing.T, d driver) (*world, session) {
	w := newWorld(t, true)
	wt := w.repo.Worktree
	s := play(t, d, w, append(d.write(wt, filepath.Join(wt, "src", "checkout", "tax.go"), "package checkout\n\n// tax\n", false),
		d.shell("git status --short"),
		modelstub.Say("Done."),
	))
	return w, s
}

// startsTheHall: no Hall runs; the hooks point at a free loopback port,
// hall-hook finds hall beside it and the session's first hook starts one
// there (docs/hooks.md, "The Hall starts itself"). Before the model's
// first turn, which waits for that Hall, another session reports its
// edit of cart.go in the worktree; the agent writes another file there,
// runs a harmless command, and ends.
func startsTheHall(t *testing.T, d driver) *world {
	return startsTheHallWith(t, d, func(*world) {})
}

// fromThePackage is startsTheHall with the Hall a person without Go
// installs: the npm packages built and installed into a fresh prefix
// (npmtest, as npm/package_test.go does); the hooks the package's Claude
// Code plugin or Gemini CLI extension holds, or for Codex those the
// package's hall writes; `hall-hook` run by name; and the agent's PATH
// holding that prefix, node and the system's folders, no Go. The Hall
// the first hook starts is the package's hall, beside its hall-hook.
func fromThePackage(t *testing.T, d driver) *world {
	in := installed(t)
	w := startsTheHallWith(t, d, fromPackage(t, in))
	expectPackageHall(t, w, in)
	return w
}

// fromPackage is the setup of a world whose Hall is the installed
// package's (fromThePackage).
func fromPackage(t *testing.T, in npmtest.Install) func(*world) {
	return func(w *world) {
		w.bin = in.Bin
		w.pkg = in.Package()
		w.hookCommand = "hall-hook"
		// The plugin's and the extension's hooks name no address: the
		// variable gives them the world's.
		w.env = append(w.env, "PATH="+in.NoGoPath(t, "node"), "HALL_HALL="+w.hall)
	}
}

// expectPackageHall checks that the Hall a hook started runs the
// package's hall.
func expectPackageHall(t *testing.T, w *world, in npmtest.Install) {
	t.Helper()
	if exe := startedProgram(t, w); !strings.HasPrefix(exe, in.Prefix+string(filepath.Separator)) {
		t.Errorf("the started Hall runs %s, not the package's (under %s)", exe, in.Prefix)
	}
}

// startsTheHallWith is startsTheHall, with setup changing the world
// before the hooks are installed.
func startsTheHallWith(t *testing.T, d driver, setup func(*world)) *world {
	w := unstarted(t, setup)
	wt := w.repo.Worktree
	script := d.write(wt, filepath.Join(wt, "src", "checkout", "tax.go"), "package checkout\n\n// tax\n", false)
	script[0].Wait = func() {
		w.waitFor("the Hall the first hook started", func() bool {
			_, err := w.roster()
			return err == nil
		})()
		if err := os.WriteFile(cart(wt), []byte("package checkout\n\n// the other session's edit\n"), 0o644); err != nil {
			t.Errorf("the other session's edit: %v", err)
			return
		}
		payload := hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", wt, otherSession)
		resp, err := http.Post(w.hall+"/api/hooks/claude", "application/json", strings.NewReader(payload))
		if err != nil {
			t.Errorf("the other session's hook: %v", err)
			return
		}
		resp.Body.Close()
	}
	s := play(t, d, w, append(script, d.shell("git status --short"), modelstub.Say("Done.")))
	// The started Hall told the person where its page is (Claude Code,
	// Codex, Gemini CLI: docs/hooks.md), never the model.
	_, notice, _ := strings.Cut(hook.PageNotice("\x00"), "\x00")
	if n, first := w.counts(notice); n != 0 {
		t.Errorf("the page's notice reached the model %d times (first in request %d); it is the person's", n, first)
	}
	t.Logf("the person's terminal shows the page's notice: %v", strings.Contains(s.stdout+s.stderr, notice))
	return w
}

// unstarted is a world with no Hall running: the hooks point at a free
// loopback port where the first of them starts one (over a registry root
// of the test's, stopped when it ends), setup changing the world before
// the hooks are installed.
func unstarted(t *testing.T, setup func(*world)) *world {
	w := newWorld(t, true)
	root := t.TempDir()
	w.env = []string{"M1ND_REGISTRY_DIR=" + root, "HALL_IDLE_STOP=1m"}
	w.root = root
	setup(w)
	t.Cleanup(func() { stopStarted(t, w, root) })
	return w
}

// startedPid is the pid of the Hall a hook started over the registry
// root, as its lock names it; 0 (the test failed) when none.
func startedPid(t *testing.T, root string) int {
	note, err := os.ReadFile(filepath.Join(root, "hall.lock"))
	if err != nil {
		t.Errorf("no Hall was started: %v", err)
		return 0
	}
	var pid int
	if _, err := fmt.Sscanf(string(note), "pid %d,", &pid); err != nil || pid <= 0 {
		t.Errorf("hall.lock says %q", note)
		return 0
	}
	return pid
}

// startedProgram is the program the started Hall runs (its
// /proc/<pid>/exe).
func startedProgram(t *testing.T, w *world) string {
	pid := startedPid(t, w.root)
	if pid == 0 {
		return ""
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		t.Errorf("the started Hall's program: %v", err)
	}
	return exe
}

// stopStarted ends the Hall a hook started over the registry root, by the
// pid its lock names (SIGTERM: it flushes and stops as on idle).
func stopStarted(t *testing.T, w *world, root string) {
	pid := startedPid(t, root)
	if pid == 0 {
		return
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return // gone already
	}
	_ = p.Signal(syscall.SIGTERM)
	w.waitFor("the started Hall to stop", func() bool { return p.Signal(syscall.Signal(0)) != nil })()
}

// expectConflict checks what the model of a conflict scenario was told
// of the overlap: the conflict once, in the request after the command
// the model waited to run until git had predicted it; and the overlap as
// it opened, before git's prediction, at most once, in an earlier
// request. Whether the overlap was told before git predicted the merge
// depends on which came first, the Hall's derivation of the overlap from
// the hooks' observed files or git's scan; so the test counts the lines
// apart and holds the heading to their sum: said once as it opens, once
// more as it becomes a conflict, never more.
func expectConflict(t *testing.T, w *world) {
	t.Helper()
	conflicts, firstConflict := w.counts("conflict: " + otherID + " in ")
	opened, firstOpened := w.counts("overlap: " + otherID + " in ")
	headings, _ := w.counts(overlapText)
	last := len(w.stub.Main()) - 1
	if conflicts != 1 || firstConflict != last {
		t.Errorf("the model was told the conflict %d times, first in request %d; want once, in request %d (the last, after the command)", conflicts, firstConflict, last)
	}
	if n, _ := w.counts(conflictText); n != 1 {
		t.Errorf("the model was given %q %d times; want once", conflictText, n)
	}
	if opened > 1 || (opened == 1 && firstOpened >= firstConflict) {
		t.Errorf("the model was told the overlap opening %d times, first in request %d; want at most once, before the conflict", opened, firstOpened)
	}
	if headings != opened+conflicts {
		t.Errorf("the overlap's heading came %d times; want %d (once for each line)", headings, opened+conflicts)
	}
}

// expectDown checks a session whose hooks could not reach the Hall: it
// completed (runCLI saw it exit 0), the model was never given the hook's
// warning, the hook warned once in the session (one marker in
// hall-hook's cache folder: docs/hooks.md, "Said once per session"),
// and the CLI's own output shows that warning shown times.
func expectDown(t *testing.T, w *world, s session, shown int) {
	t.Helper()
	expect(t, w, reachText, 0, -1)
	markers, err := os.ReadDir(filepath.Join(w.cache, "hall", "hook-warned"))
	if err != nil || len(markers) != 1 {
		t.Errorf("hall-hook's warning markers: %d (%v); want 1: warned once in the session", len(markers), err)
	}
	if n := strings.Count(s.stdout+s.stderr, reachText); n != shown {
		t.Errorf("the session's output shows %q %d times; want %d", reachText, n, shown)
	}
}
