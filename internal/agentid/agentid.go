// Package agentid names agents the same way on every path into the Hall,
// so a hook and an MCP session of one agent land on one presence (a
// presence is its agent_id on its brain).
package agentid

// sessionPrefix is how much of a session id an agent_id keeps: enough to
// tell sessions apart, short enough to read.
const sessionPrefix = 8

// Claude is the agent_id of a Claude Code session: "claude-" and the first
// 8 characters of its session_id (the id its hooks receive). A subagent
// appends "/" and its own id. "" without a session id.
func Claude(sessionID, subagent string) string { return Session("claude", sessionID, subagent) }

// Session is the agent_id of one agent's session, the same shape for every
// agent the Hall adapts to (claude, codex, cursor): the agent's prefix, "-",
// the first 8 characters of the session id, and "/<subagent id>" inside a
// subagent. "" without a session id.
func Session(prefix, sessionID, subagent string) string {
	if sessionID == "" {
		return ""
	}
	id := prefix + "-" + firstRunes(sessionID, sessionPrefix)
	if subagent != "" {
		id += "/" + subagent
	}
	return id
}

// firstRunes returns the first n characters of s.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// FromEnv is the agent_id a process started by an agent can tell from its
// environment, "" when it cannot. Claude Code starts its stdio MCP servers
// with CLAUDECODE=1 and CLAUDE_CODE_SESSION_ID, the session_id its hooks
// receive; a value exported by hand without CLAUDECODE=1 is not trusted.
func FromEnv(getenv func(string) string) string {
	if getenv("CLAUDECODE") == "1" {
		return Claude(getenv("CLAUDE_CODE_SESSION_ID"), "")
	}
	return ""
}
