package realagents

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/modelstub"
)

// codex drives Codex CLI: `codex exec`, sandbox and approvals off (the
// test's temp folders are the whole world it touches), hooks run without
// stored trust (--dangerously-bypass-hook-trust, docs/hooks.md#codex-cli)
// in a project config.toml trusts, against the stub as a custom
// model_provider speaking the Responses API. The model is gpt-5.5, one
// of the models Codex 0.169.0 carries metadata for: it is offered
// apply_patch (a freeform tool) and exec_command.
var codex = driver{
	cli:   "codex",
	agent: "codex",
	write: func(wt, abs, content string, exists bool) modelstub.Script {
		rel, err := filepath.Rel(wt, abs)
		if err != nil {
			panic(err)
		}
		var p strings.Builder
		p.WriteString("*** Begin Patch\n")
		if exists {
			old, err := os.ReadFile(abs)
			if err != nil {
				panic(err)
			}
			fmt.Fprintf(&p, "*** Update File: %s\n@@\n", filepath.ToSlash(rel))
			for _, l := range strings.SplitAfter(strings.TrimSuffix(string(old), "\n"), "\n") {
				p.WriteString("-" + strings.TrimSuffix(l, "\n") + "\n")
			}
		} else {
			fmt.Fprintf(&p, "*** Add File: %s\n", filepath.ToSlash(rel))
		}
		for _, l := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
			p.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
		}
		p.WriteString("*** End Patch\n")
		return modelstub.Script{{Tool: "apply_patch", Raw: p.String()}}
	},
	// In a linked worktree Codex 0.169.0 runs the hooks of the main
	// worktree's .codex/hooks.json, and only when the linked worktree
	// has a .codex/hooks.json too (measured: the linked worktree's file
	// alone runs nothing; the main one's alone runs nothing; both run the
	// main one's, once an event, the payloads' cwd the linked worktree).
	// `hall hooks install codex` in the linked worktree writes both: the
	// install there alone is what the sessions run.
	shell: func(command string) modelstub.Turn {
		return modelstub.Call("exec_command", map[string]any{"cmd": command})
	},
	run: func(w *world, cli, dir string) session {
		codexHome := filepath.Join(w.home, ".codex")
		config := fmt.Sprintf(`model = "gpt-5.5"
model_provider = "stub"
check_for_update_on_startup = false

[model_providers.stub]
name = "stub"
base_url = %q
wire_api = "responses"
env_key = "STUB_API_KEY"

[projects.%q]
trust_level = "trusted"
`, w.stub.URL+"/v1", w.repo.Main)
		if err := os.MkdirAll(codexHome, 0o755); err != nil {
			w.t.Error(err)
			return session{}
		}
		if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
			w.t.Error(err)
			return session{}
		}
		return w.runCLI(dir, []string{"CODEX_HOME=" + codexHome, "STUB_API_KEY=sk-stub"},
			cli, append([]string{"exec", "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", prompt}, w.args...)...)
	},
}

// TestCodexStartsTheHall: with no Hall running, the session's first hook
// starts one, and the collision another session then makes reaches the
// model through it.
func TestCodexStartsTheHall(t *testing.T) {
	t.Parallel()
	w := startsTheHall(t, codex)
	expect(t, w, collisionText, 1, 1)
}

func TestCodexCollision(t *testing.T) {
	t.Parallel()
	w := collision(t, codex)
	expect(t, w, collisionText, 1, 1)
}

func TestCodexConflict(t *testing.T) {
	t.Parallel()
	w := conflict(t, codex)
	expectConflict(t, w)
}

func TestCodexShellGuard(t *testing.T) {
	t.Parallel()
	w := guard(t, codex)
	// Codex reads PreToolUse's context after the tool ran: the guard's
	// lines come under the heading that says so.
	expect(t, w, "The Hall, before the command ran (the person was told):\nshell guard: `git checkout .`", 1, 1)
	expect(t, w, "shell guard: `git checkout .` would discard the uncommitted work of \""+otherID+"\"", 1, 1)
}

func TestCodexOwnersAtStart(t *testing.T) {
	t.Parallel()
	w := owners(t, codex)
	expect(t, w, ownersText, 1, 0)
}

func TestCodexHallDown(t *testing.T) {
	t.Parallel()
	w, s := hallDown(t, codex)
	expectDown(t, w, s, 0)
}

// TestCodexFromThePackage: installed from the npm packs with no Go on the
// agent's PATH and no Hall running, the hooks the package's hall writes
// start the package's Hall, and another session's collision reaches the
// model through it.
func TestCodexFromThePackage(t *testing.T) {
	t.Parallel()
	w := fromThePackage(t, codex)
	expect(t, w, collisionText, 1, 1)
}
