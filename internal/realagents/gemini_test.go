package realagents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/modelstub"
)

// gemini drives Gemini CLI: `gemini -p` in YOLO mode (every tool call
// approved), the workspace trusted by GEMINI_CLI_TRUST_WORKSPACE (so the
// project's hooks run, docs/hooks.md#gemini-cli), against the stub as
// its Gemini API (GOOGLE_GEMINI_BASE_URL, an API key). The model is
// named, so no router asks the stub which one to use.
var gemini = driver{
	cli:   "gemini",
	agent: "gemini",
	write: func(_, abs, content string, _ bool) modelstub.Script {
		return modelstub.Script{modelstub.Call("write_file", map[string]any{"file_path": abs, "content": content})}
	},
	shell: func(command string) modelstub.Turn {
		return modelstub.Call("run_shell_command", map[string]any{"command": command, "description": "run " + command})
	},
	run: func(w *world, cli, dir string) session {
		settings := filepath.Join(w.home, ".gemini", "settings.json")
		if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
			w.t.Error(err)
			return session{}
		}
		if err := os.WriteFile(settings, []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}},"general":{"disableAutoUpdate":true},"privacy":{"usageStatisticsEnabled":false}}`), 0o644); err != nil {
			w.t.Error(err)
			return session{}
		}
		return w.runCLI(dir, []string{
			"GEMINI_API_KEY=stub-key",
			"GOOGLE_GEMINI_BASE_URL=" + w.stub.URL,
			"GEMINI_CLI_TRUST_WORKSPACE=true",
		}, cli, append([]string{"-p", prompt, "--yolo", "-m", "gemini-2.5-flash"}, w.args...)...)
	},
	plugin: func(w *world, cli, pkg string) {
		// --consent and the trust variable: no question is asked (the
		// folder's trust is asked for otherwise, and waited for).
		cmd := exec.Command(cli, "extensions", "install", filepath.Join(pkg, "gemini-extension"), "--consent")
		cmd.Env = append(append(gittest.Env(), w.env...), "HOME="+w.home, "GEMINI_CLI_TRUST_WORKSPACE=true")
		cmd.Stdin = strings.NewReader("")
		if out, err := cmd.CombinedOutput(); err != nil {
			w.t.Fatalf("gemini extensions install: %v\n%s", err, out)
		}
	},
}

// TestGeminiStartsTheHall: with no Hall running, the session's first hook
// starts one, and the collision another session then makes reaches the
// model through it.
func TestGeminiStartsTheHall(t *testing.T) {
	t.Parallel()
	w := startsTheHall(t, gemini)
	expect(t, w, collisionText, 1, 1)
}

func TestGeminiCollision(t *testing.T) {
	t.Parallel()
	w := collision(t, gemini)
	expect(t, w, collisionText, 1, 1)
}

func TestGeminiConflict(t *testing.T) {
	t.Parallel()
	w := conflict(t, gemini)
	expectConflict(t, w)
}

func TestGeminiShellGuard(t *testing.T) {
	t.Parallel()
	w := guard(t, gemini)
	expect(t, w, "shell guard: `git checkout .` would discard the uncommitted work of \""+otherID+"\"", 1, 1)
}

func TestGeminiOwnersAtStart(t *testing.T) {
	t.Parallel()
	w := owners(t, gemini)
	expect(t, w, ownersText, 1, 0)
}

func TestGeminiHallDown(t *testing.T) {
	t.Parallel()
	w, s := hallDown(t, gemini)
	// Once, as "Hook system message: …": the hook's warning is its
	// answer (from stderr, Gemini CLI would show it twice).
	expectDown(t, w, s, 1)
}

// TestGeminiFromThePackage: installed from the npm packs with no Go on the
// agent's PATH and no Hall running, the hooks the package's hall writes
// start the package's Hall, and another session's collision reaches the
// model through it.
func TestGeminiFromThePackage(t *testing.T) {
	t.Parallel()
	w := fromThePackage(t, gemini)
	expect(t, w, collisionText, 1, 1)
}
