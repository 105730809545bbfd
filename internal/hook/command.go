package hook

import (
	"encoding/json"
	"strings"

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
	// Decoded once, as whatever it is: a line can be the Hall's 32 KiB,
	// and each further pass of encoding/json over it (a RawMessage kept,
	// then decoded again) cost a shell hook answer more than the guard's
	// reading of it (docs/performance.md, the shell guard).
	var in struct {
		Command any `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	var argv []string
	switch c := in.Command.(type) {
	case string:
		return c
	case []any:
		for _, w := range c {
			s, ok := w.(string)
			if !ok {
				return ""
			}
			argv = append(argv, s)
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
