// Package agentid names agents the same way on every path into the Hall,
// so a hook and an MCP session of one agent land on one presence (a
// presence is its agent_id on its brain).
package agentid

import (
	"crypto/sha256"
	"encoding/hex"
)

// hashHex is how many hex digits of the session id's SHA-256 an agent_id
// keeps: enough to tell sessions apart, short enough to read.
const hashHex = 8

// Claude is the agent_id of a Claude Code session: Session("claude", …)
// of its session_id (the id its hooks receive). "" without a session id.
func Claude(sessionID, subagent string) string { return Session("claude", sessionID, subagent) }

// Session is the agent_id of one agent's session, the same shape for every
// agent the Hall adapts to (claude, codex, cursor, gemini): the agent's
// prefix, "-", the first 8 hex digits of SHA-256 of the whole session id,
// and "/<subagent id>" inside a subagent. "" without a session id.
//
// The whole id is hashed because no part of it can be trusted to tell
// sessions apart: Codex's ids are UUIDv7, whose first 8 hex digits are a
// timestamp shared by every session started within about 65 seconds.
func Session(prefix, sessionID, subagent string) string {
	if sessionID == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(sessionID))
	id := prefix + "-" + hex.EncodeToString(sum[:])[:hashHex]
	if subagent != "" {
		id += "/" + subagent
	}
	return id
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
