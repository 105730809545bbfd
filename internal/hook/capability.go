package hook

import (
	"fmt"
	"slices"
	"strings"
)

// Capability is what one agent's hooks can carry, measured against its
// published hooks reference: where the Hall's words reach the model, where
// they reach the person, whether an "ask" is honoured, and how the hooks
// are configured and trusted. It is the one table the adapters, the
// installer (internal/hookinstall) and docs/hooks.md follow; a rule about
// an agent lives here, not in a string compared elsewhere.
type Capability struct {
	// Agent is the adapter's name ("claude", "codex", "cursor", "gemini").
	Agent string
	// Product is the agent as people call it.
	Product string
	// ContextEvents are the events whose answer reaches the model, in the
	// order the agent fires them; ContextField is the answer's field there.
	ContextEvents []string
	ContextField  string
	// AfterRun are the ContextEvents fired before a tool whose context the
	// model reads only after the tool ran (Codex's PreToolUse: a developer
	// message in the next request, beside the tool's result). What is said
	// there counts as told (it is the one time the model hears it), but it
	// warns after the fact.
	AfterRun []string
	// PersonField is where the person reads the Hall where the model
	// cannot be reached ("" when there is no such place).
	PersonField string
	// AskEvents are the gate events on which the agent honours an "ask"
	// (it asks the person before the tool runs); none when it does not,
	// and the ask policy then warns only.
	AskEvents []string
	// ProjectFile and UserFile are the hook configuration, relative to the
	// project's root and to the home folder. SharedProjectFile, when the
	// agent has one, is the project file meant to be committed: the
	// installer writes ProjectFile (personal) unless asked for the shared.
	ProjectFile, SharedProjectFile, UserFile string
	// Format says how that file holds hooks.
	Format string
	// Trust is the step the person takes before the agent runs new or
	// changed hooks ("" when there is none).
	Trust string
}

// Asks reports whether the agent honours an "ask" on event.
func (c Capability) Asks(event string) bool { return slices.Contains(c.AskEvents, event) }

// Reaches reports whether the answer to event reaches the model.
func (c Capability) Reaches(event string) bool { return slices.Contains(c.ContextEvents, event) }

// HeardAfterRun reports whether the model reads the answer to event, a
// pre-tool event, only once the tool ran.
func (c Capability) HeardAfterRun(event string) bool { return slices.Contains(c.AfterRun, event) }

// capabilities is the table, one row an agent, in the order of Agents().
var capabilities = []Capability{
	{
		Agent:             "claude",
		Product:           "Claude Code",
		ContextEvents:     []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStart"},
		ContextField:      "`hookSpecificOutput.additionalContext`",
		PersonField:       "`permissionDecisionReason` (with an ask)",
		AskEvents:         []string{"PreToolUse"},
		ProjectFile:       ".claude/settings.local.json",
		SharedProjectFile: ".claude/settings.json",
		UserFile:          "~/.claude/settings.json",
		Format:            "JSON; hooks.<event>: [{matcher?, hooks: [command | http]}]; timeout in seconds",
	},
	{
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
		Format:      "JSON; hooks.<event>: [{matcher?, hooks: [command]}]; timeout in seconds; hooks on by default",
		Trust:       "Codex runs hooks only in a trusted project, and skips new or changed hooks until you trust them in /hooks (docs/hooks.md#codex-cli).",
	},
	{
		Agent:         "cursor",
		Product:       "Cursor",
		ContextEvents: []string{"sessionStart", "preToolUse", "postToolUse", "beforeShellExecution", "beforeMCPExecution"},
		ContextField:  "`agent_message` (permission events), `additional_context` (sessionStart, postToolUse)",
		PersonField:   "`user_message`",
		AskEvents:     []string{"preToolUse", "beforeShellExecution", "beforeMCPExecution"},
		ProjectFile:   ".cursor/hooks.json",
		UserFile:      "~/.cursor/hooks.json",
		Format:        `JSON; {"version": 1, hooks.<event>: [{command}]}; no published schema`,
	},
	{
		Agent:         "gemini",
		Product:       "Gemini CLI",
		ContextEvents: []string{"SessionStart", "BeforeAgent", "AfterTool"},
		ContextField:  "`hookSpecificOutput.additionalContext`",
		// BeforeTool takes no additionalContext; its decision "ask" is in
		// Gemini's code but not in its reference, so the Hall does not rely
		// on it. Its systemMessage reaches the person only: what the Hall
		// says there is told to the model at the next event it hears.
		PersonField: "`systemMessage` (BeforeTool; told to the model at the next event it hears)",
		ProjectFile: ".gemini/settings.json",
		UserFile:    "~/.gemini/settings.json",
		Format:      "JSON; hooks.<event>: [{matcher (regex), hooks: [command]}]; timeout in milliseconds",
		Trust:       "Gemini CLI treats new or changed project hooks as untrusted until you accept them when it starts (docs/hooks.md#gemini-cli).",
	},
}

// CapabilityOf returns the row of agent.
func CapabilityOf(agent string) (Capability, bool) {
	i := slices.IndexFunc(capabilities, func(c Capability) bool { return c.Agent == agent })
	if i < 0 {
		return Capability{}, false
	}
	return capabilities[i], true
}

// mustCapability is the row of an adapter defined in this package.
func mustCapability(agent string) Capability {
	c, ok := CapabilityOf(agent)
	if !ok {
		panic(fmt.Sprintf("hook: no capability row for %q", agent))
	}
	return c
}

// CapabilityTable renders the table as the Markdown docs/hooks.md holds
// (a test keeps the two alike).
func CapabilityTable() string {
	var b strings.Builder
	b.WriteString("| agent | reaches the model on | in | the person reads | `ask` honoured on | project file | user file | format | trust step |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	for _, c := range capabilities {
		project := "`" + c.ProjectFile + "`"
		if c.SharedProjectFile != "" {
			project += " (`--shared`: `" + c.SharedProjectFile + "`)"
		}
		events := make([]string, len(c.ContextEvents))
		for i, ev := range c.ContextEvents {
			events[i] = ev
			if c.HeardAfterRun(ev) {
				events[i] += " (read after the tool ran)"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | `%s` | %s | %s |\n",
			c.Product, strings.Join(events, ", "), c.ContextField,
			or(c.PersonField, "—"), or(strings.Join(c.AskEvents, ", "), "never (the ask policy warns only)"),
			project, c.UserFile, "`"+strings.ReplaceAll(c.Format, "|", `\|`)+"`", or(c.Trust, "none"))
	}
	return b.String()
}
