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
	// MainWorktreeHooks: a session in a linked git worktree runs the
	// hooks of the main worktree's ProjectFile, and only when the linked
	// worktree has a ProjectFile too (Codex, measured on 0.169.0): a
	// project install in a linked worktree writes both.
	MainWorktreeHooks bool
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

// capabilities is the table, one row an agent, in the order of Agents():
// each row is its agent's, in the agent's own file (registry.go).
func capabilities() []Capability {
	out := make([]Capability, len(registry))
	for i, s := range registry {
		out[i] = s.Capability
	}
	return out
}

// CapabilityOf returns the row of agent.
func CapabilityOf(agent string) (Capability, bool) {
	s, ok := specOf(agent)
	return s.Capability, ok
}

// capabilityTable renders the table as the Markdown docs/hooks.md holds
// (a test keeps the two alike).
func capabilityTable() string {
	var b strings.Builder
	b.WriteString("| agent | reaches the model on | in | the person reads | `ask` honoured on | project file | user file | format | trust step |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	for _, c := range capabilities() {
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
