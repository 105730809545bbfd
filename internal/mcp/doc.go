// Package mcp serves the Hall as MCP tools, on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk, imported as sdk): handshake
// (declare what the agent is about to do), presences (who else is here),
// north (do I collide, and with whom), cockpit (the strip as text) and
// leave. `hall mcp` serves them over stdio to one agent, speaking to a
// running Hall or a registry folder through internal/hallclient; the Hall
// serves the same tools over streamable HTTP at /mcp (NewHTTPHandler).
//
// Every tool answers structured output, with an output schema, and a short
// text rendering; both stay within the cockpit's budget (800 tokens at
// characters/4) whatever the roster holds, saying "+N more" beyond it. A
// refusal (a field over its limit, a relative path, the Hall unreachable,
// a missing token) is a tool error (isError) whose text names the field
// or the cause; nothing is written then.
//
// Declared and observed stay apart: handshake only declares (it takes no
// tool name, so it can never claim an observed mutation); hooks measure.
// An agent that uses both lands on one presence when both name it alike:
// see Config.AgentID and docs/mcp.md.
//
// What does not live here: the beat's rules and the roster (internal/
// presence), the wire types and the cockpit text (internal/contract), how a
// Hall is reached (internal/hallclient), how paths are measured
// (internal/place).
package mcp
