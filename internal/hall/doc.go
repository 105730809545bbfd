// Package hall holds the Hall's operations, each once: beat, leave, the
// roster reads (presences, north, cockpit, events) and the hook (an
// agent's payload in, its own hook output out). Every transport calls
// them and only translates: the HTTP handlers (internal/web) decode,
// call and encode; the MCP tools (internal/mcp) do the same over MCP;
// `hall beat` and `hall mcp` reach a Hall in this process through *Hall
// itself, or one over HTTP (internal/hallclient) through the same
// interface.
//
// An operation refuses with a *contract.Error that carries its kind
// (contract.Kind, never an HTTP status: no net/http here) and wire code,
// and fails with a plain wrapped error when something broke
// that no client can mend; every transport says both through
// contract.Refusal (HTTP through internal/web/httpwire.WriteError, MCP
// through its tool error), an unforeseen cause logged and never sent. What does not live here: the
// rules of records, ids and collisions (internal/presence), the wire types
// (internal/contract), where a session works (internal/place), reading
// and answering each agent's hook format (internal/hook), and anything of
// HTTP, MCP or the page.
//
// A per-client rate limit is applied here too (ratelimit.go: Check's),
// the transport naming the client on the context (WithClient).
//
// A new operation goes here as a method of Hall (or a function over a
// Beater, when it must also run where the Hall is only reached over
// HTTP), with its refusals built from contract.Refuse; then each surface
// gets a few lines that call it (docs/development.md walks through one).
package hall
