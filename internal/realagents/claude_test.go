package realagents

import (
	"path/filepath"
	"testing"

	"github.com/hall-dev/hall/internal/modelstub"
)

// claude drives Claude Code: `claude -p` with its tools allowed (no
// prompt: the session is headless), against the stub as its Anthropic
// API, its config folder in the test's home.
var claude = driver{
	cli:   "claude",
	agent: "claude",
	write: func(_, abs, content string, exists bool) modelstub.Script {
		w := modelstub.Call("Write", map[string]any{"file_path": abs, "content": content})
		if !exists {
			return modelstub.Script{w}
		}
		return modelstub.Script{modelstub.Call("Read", map[string]any{"file_path": abs}), w}
	},
	shell: func(command string) modelstub.Turn {
		return modelstub.Call("Bash", map[string]any{"command": command, "description": "run " + command})
	},
	run: func(w *world, cli, dir string) session {
		return w.runCLI(dir, []string{
			"CLAUDE_CONFIG_DIR=" + filepath.Join(w.home, ".claude"),
			"ANTHROPIC_BASE_URL=" + w.stub.URL,
			"ANTHROPIC_API_KEY=sk-ant-stub",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
			"DISABLE_AUTOUPDATER=1",
		}, cli, append([]string{"-p", prompt, "--allowedTools", "Bash,Write,Edit", "--model", "claude-sonnet-4-5"}, w.args...)...)
	},
	plugin: func(w *world, _, pkg string) {
		w.args = append(w.args, "--plugin-dir", filepath.Join(pkg, "claude-code-plugin"))
	},
}

func TestClaudeCollision(t *testing.T) {
	t.Parallel()
	w := collision(t, claude)
	expect(t, w, collisionText, 1, 1)
}

func TestClaudeConflict(t *testing.T) {
	t.Parallel()
	w := conflict(t, claude)
	expectConflict(t, w)
}

func TestClaudeShellGuard(t *testing.T) {
	t.Parallel()
	w := guard(t, claude)
	expect(t, w, "shell guard: `git checkout .` would discard the uncommitted work of \""+otherID+"\"", 1, 1)
}

func TestClaudeOwnersAtStart(t *testing.T) {
	t.Parallel()
	w := owners(t, claude)
	expect(t, w, ownersText, 1, 0)
}

// TestClaudeStartsTheHall: with no Hall running, the session's first
// hook starts one, and the collision another session then makes reaches
// the model through it.
func TestClaudeStartsTheHall(t *testing.T) {
	t.Parallel()
	w := startsTheHall(t, claude)
	expect(t, w, collisionText, 1, 1)
}

func TestClaudeHallDown(t *testing.T) {
	t.Parallel()
	w, s := hallDown(t, claude)
	expectDown(t, w, s, 0)
}

// expect checks that the model was given text n times over the session,
// first in conversation request first (-1: never).
func expect(t *testing.T, w *world, text string, n, first int) {
	t.Helper()
	gotN, gotFirst := w.counts(text)
	if gotN != n || gotFirst != first {
		t.Errorf("the model was given %q %d times, first in request %d; want %d times, first in request %d", text, gotN, gotFirst, n, first)
	}
}

// TestClaudeFromThePackage: installed from the npm packs with no Go on the
// agent's PATH and no Hall running, the hooks the package's hall writes
// start the package's Hall, and another session's collision reaches the
// model through it.
func TestClaudeFromThePackage(t *testing.T) {
	t.Parallel()
	w := fromThePackage(t, claude)
	expect(t, w, collisionText, 1, 1)
}
