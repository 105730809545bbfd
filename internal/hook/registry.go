package hook

import "time"

// Spec is everything the Hall knows of one agent's hooks, in the agent's
// own file (claude.go, codex.go, cursor.go, gemini.go): the adapter that
// reads its payloads and writes its answers, its row of the capability
// table, and how its configuration holds the Hall's hooks (what hall
// hooks install writes). registry is the one list of them.
type Spec struct {
	Adapter    Adapter
	Capability Capability
	Install    Install
}

// Install is how one agent's configuration file holds the Hall's hooks
// (package hookinstall writes it).
type Install struct {
	// Events are the events the Hall hooks, in order.
	Events []string
	// Grouped: hooks.<event> is a list of {matcher?, hooks: [handler…]}
	// (Claude Code, Codex, Gemini CLI); else a flat list of handlers
	// (Cursor).
	Grouped bool
	// HTTP reports whether the agent runs HTTP hooks for an event; nil:
	// none.
	HTTP func(event string) bool
	// Matcher is a group's matcher for an event; nil: none.
	Matcher func(event string) string
	// Unit is the unit of the agent's hook timeout (0: it takes none).
	Unit time.Duration
	// Name is the handler's name, where the agent names hooks.
	Name string
	// Empty is the file an uninstall may leave, and remove.
	Empty string
}

// HTTPEvent reports whether the agent runs an HTTP hook for event.
func (i Install) HTTPEvent(event string) bool { return i.HTTP != nil && i.HTTP(event) }

// MatcherOf is the group's matcher for event ("" for none).
func (i Install) MatcherOf(event string) string {
	if i.Matcher == nil {
		return ""
	}
	return i.Matcher(event)
}

// registry is the agents the Hall hooks, one entry an agent, sorted by
// name: each registers here and nowhere else.
var registry = []Spec{claudeSpec, codexSpec, cursorSpec, geminiSpec}

// specOf returns agent's entry.
func specOf(agent string) (Spec, bool) {
	for _, s := range registry {
		if s.Adapter.Agent() == agent {
			return s, true
		}
	}
	return Spec{}, false
}

// SpecOf returns the registered agent named agent ("claude", "codex",
// "cursor" or "gemini").
func SpecOf(agent string) (Spec, bool) { return specOf(agent) }
