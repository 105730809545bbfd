package hook

import (
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
	"mvdan.cc/sh/v3/syntax"
)

// shellTools are the tool names under which Claude Code, Codex CLI and
// Gemini CLI run a shell command line (tool_input.command).
var shellTools = map[string]bool{"Bash": true, "shell": true, "local_shell": true, "exec_command": true, "run_shell_command": true}

// cursorShellTool is the tool name a Cursor shell event's beat carries
// (beforeShellExecution, afterShellExecution name no tool of their own).
const cursorShellTool = "Shell"

// ShellTool reports whether a beat's tool is an agent's shell: after one
// ran, the worktree may hold anything (a commit, a checkout, files
// written or removed) though no file was named, so git is asked to look.
func ShellTool(tool string) bool { return shellTools[tool] || tool == cursorShellTool }

// shellCommand is the command line a shell tool's input carries: its
// "command" as a string, or, as Codex has sent it, an argv ("bash", "-lc",
// script): the script, else the words quoted for bash and joined (the
// guard then reads the argv as the agent runs it). "" for any other tool,
// or a word bash cannot quote.
func shellCommand(tool string, input json.RawMessage) string {
	if !shellTools[tool] {
		return ""
	}
	// tool_input is the decoded payload's own copy and nothing writes to
	// it: it is read in place as a string, and the command shares its
	// bytes, or, when the JSON string holds escapes, is the one unquoted
	// copy (jsonfield.go says why not gjson). An input naming "command"
	// twice, which no agent writes, reads the first.
	raw, ok := jsonField(unsafe.String(unsafe.SliceData(input), len(input)), "command")
	if !ok {
		return ""
	}
	if cmd, ok := jsonString(raw); ok {
		return cmd
	}
	var argv []string
	if strings.HasPrefix(raw, "[") {
		for _, w := range gjson.Parse(raw).Array() {
			if w.Type != gjson.String {
				return ""
			}
			argv = append(argv, w.Str)
		}
	}
	if len(argv) == 0 {
		return ""
	}
	if len(argv) == 3 && (argv[1] == "-c" || argv[1] == "-lc") {
		return argv[2]
	}
	words := make([]string, len(argv))
	for i, w := range argv {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			return ""
		}
		words[i] = q
	}
	return strings.Join(words, " ")
}
