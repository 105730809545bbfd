// Package hook adapts the hooks of the coding agents the Hall watches
// (Claude Code, Codex CLI, Cursor, Gemini CLI) to the Hall: each adapter reads one
// agent's hook payload into an Event (the beat it makes, or the leave) and
// renders what the Hall has to say in that agent's own hook output, so the
// collision warning lands in the model's context, not on a stderr nobody
// reads.
//
// The Hall is a witness. An adapter never answers "allow" (which would grant
// a permission the agent would otherwise ask for) and never "deny"; under
// the ask policy it answers "ask" on a gate event (Claude Code's
// PreToolUse, Cursor's before* and preToolUse) of a mutating tool while the
// presence is in a live collision, so the person decides before the edit
// lands. Where an agent does not honour "ask" (Codex, Gemini CLI) the ask
// policy warns only: what each agent can carry is one table,
// capability.go, which the adapters, the installer and docs/hooks.md
// follow.
//
// Both surfaces use the same adapters: `hall beat --hook <agent>` (a
// command hook: payload on stdin, answer on stdout) and
// `POST /api/hooks/{agent}` (an HTTP hook). Neither derives the brain here:
// an Event carries the caller root (the payload's cwd), and the caller
// completes the place (package place) on its own filesystem.
//
// It knows the wire types (internal/contract) and nothing of HTTP, the
// store or the roster.
package hook
