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

// shellCommand is the command line a shell tool's input carries: its
// "command" as a string, or, as Codex has sent it, an argv ("bash", "-lc",
// script): the script, else the words quoted for bash and joined (the
// guard then reads the argv as the agent runs it). "" for any other tool,
// or a word bash cannot quote.
func shellCommand(tool string, input json.RawMessage) string {
	if !shellTools[tool] {
		return ""
	}
	// tool_input comes out of a payload encoding/json decoded, so it is
	// valid JSON: gjson finds the command in one pass and unquotes it,
	// where encoding/json would validate and scan it twice more (a line
	// can be the Hall's 32 KiB, and those passes cost a shell hook answer
	// more than the guard's reading of it: docs/performance.md, the shell
	// guard). An input naming "command" twice, which no agent writes,
	// reads the first.
	//
	// gjson.GetBytes would copy the value's raw text and its unquoted
	// string again (three copies of a 32 KiB line where its escapes are
	// unquoted, the cost a long Bash answer had over a Grep of the same
	// size); input is the decoded payload's own copy and nothing writes to
	// it, so it is read in place: the command shares its bytes, or, when
	// the JSON string holds escapes, is the one unquoted copy.
	cmd := gjson.Get(unsafe.String(unsafe.SliceData(input), len(input)), "command")
	var argv []string
	switch {
	case cmd.Type == gjson.String:
		return cmd.Str
	case cmd.IsArray():
		for _, w := range cmd.Array() {
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
