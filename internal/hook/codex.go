package hook

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// codex reads Codex CLI, whose payloads and output follow Claude Code's
// (claudeLike): SessionStart, UserPromptSubmit, PreToolUse, PostToolUse,
// Stop, SubagentStart, SubagentStop (it sends no SessionEnd: its
// presences leave by ttl). It does not honour an "ask" (it takes the
// answer for a failed hook), so nothing gates. A SessionStart answer's
// systemMessage is a warning entry of the hook's run, which the TUI shows
// the person and the model never reads (codex-rs hooks,
// events/session_start.rs: parse_completed keeps it out of
// additional_contexts_for_model): the page's address goes there.
var codex = claudeLike{agent: "codex", kind: "codex", prefix: "codex", capa: codexCapability, touched: codexTouched, tellsPerson: true}

// codexSpec is Codex CLI in the registry.
var codexSpec = Spec{Adapter: codex, Capability: codexCapability, Install: codexInstall}

// codexCapability is Codex CLI's row of the capability table.
var codexCapability = Capability{
	Agent:         "codex",
	Product:       "Codex CLI",
	ContextEvents: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStart"},
	ContextField:  "`hookSpecificOutput.additionalContext`",
	// Codex records a PreToolUse additionalContext as a developer
	// message (codex-rs hook_runtime.rs, record_additional_contexts):
	// the model reads it in its next request, which carries the
	// tool's result. Only a deny, which the Hall never sends, stops
	// the tool. The TUI prints the hook's entries as the hook ends,
	// before the tool runs: "hook context: …" for additionalContext.
	AfterRun:    []string{"PreToolUse"},
	PersonField: "the TUI's hook cell (`hook context:`), before the tool runs",
	// Codex takes a permissionDecision "ask" for a failed hook: the
	// warning in the same answer is lost and the tool runs anyway.
	ProjectFile: ".codex/hooks.json",
	UserFile:    "~/.codex/hooks.json",
	// A linked worktree's session runs the main worktree's
	// .codex/hooks.json, only with its own beside it (docs/hooks.md).
	MainWorktreeHooks: true,
	Format:            "JSON; hooks.<event>: [{matcher?, hooks: [command]}]; timeout in seconds; hooks on by default",
	Trust:             "Codex runs hooks only in a trusted project, and skips new or changed hooks until you trust them in /hooks (docs/hooks.md#codex-cli).",
}

// codexInstall is how .codex/hooks.json holds the Hall's hooks.
var codexInstall = Install{
	Events:  []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStart", "SubagentStop"},
	Grouped: true,
	Unit:    time.Second,
	Empty:   "{}",
}

// codexTouched names the files of a Codex patch: the lines "*** Add
// File:", "*** Update File:", "*** Delete File:" and "*** Move to:" of
// the text starting "*** Begin Patch", found in any string of the tool's
// input (the field has changed across versions, and a shell call may
// carry the patch too), relative to cwd.
func codexTouched(tool string, input json.RawMessage, cwd string) []string {
	var v any
	if json.Unmarshal(input, &v) != nil {
		return nil
	}
	var names []string
	walkStrings(v, 0, func(s string) {
		names = append(names, PatchFiles(s)...)
	})
	return touchedFiles(cwd, names)
}

// maxWalkDepth bounds how deep a tool input is searched for a patch.
const maxWalkDepth = 8

// walkStrings calls f on every string in v, down to maxWalkDepth.
func walkStrings(v any, depth int, f func(string)) {
	if depth > maxWalkDepth {
		return
	}
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			walkStrings(e, depth+1, f)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // one order, so one patch names its files alike every time
		for _, k := range keys {
			walkStrings(x[k], depth+1, f)
		}
	}
}

// patchMarkers are the patch lines that name a file the patch changes.
var patchMarkers = []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"}

// PatchFiles returns the paths a Codex patch names, in order, as written
// (relative paths stay relative); none when s holds no "*** Begin Patch".
func PatchFiles(s string) []string {
	i := strings.Index(s, "*** Begin Patch")
	if i < 0 {
		return nil
	}
	var out []string
	for _, line := range strings.Split(s[i:], "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "*** End Patch" {
			break
		}
		for _, m := range patchMarkers {
			if p, ok := strings.CutPrefix(line, m); ok {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
		}
	}
	return out
}
