// Package hallclient is the agent's side of the Hall: what `hall beat`,
// `hall leave` and `hall mcp` speak through. A Client beats, leaves and
// reads a roster, its north and its cockpit, either from a running Hall
// over HTTP (HTTP) or from a presence service in this process (Local):
// one over the registry folder written directly, or the Hall's own when
// it serves MCP itself.
//
// Both answer with the wire types of internal/contract and refuse with the
// same *Error the Hall's handlers would answer, so a caller cannot tell
// where the Hall is from what it gets back. What it does not do: derive
// an agent's paths (internal/place) or speak MCP (internal/mcp).
package hallclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
)

// Client is a Hall, wherever it runs.
type Client interface {
	// Beat reports one beat and answers the presence id, whether it was
	// stored, and the agent's north lines. A beat the Hall refuses is an
	// *Error naming the field.
	Beat(ctx context.Context, req contract.BeatRequest) (contract.BeatResponse, error)
	// Leave ends a presence at once; an unknown one is an *Error with
	// Status 404.
	Leave(ctx context.Context, presenceID string) error
	// Presences is GET /api/presences[?brain=]: the roster and its
	// collisions, owner-wide when brain is empty. An unreadable registry
	// is a response with Error set, not an error.
	Presences(ctx context.Context, brain string) (contract.PresencesResponse, error)
	// North is GET /api/north?presence_id=: one line per collision
	// partner.
	North(ctx context.Context, presenceID string) (contract.NorthResponse, error)
	// Cockpit is GET /api/cockpit[?brain=]: the strip as text.
	Cockpit(ctx context.Context, brain string) (string, error)
}

// Error is the Hall refusing a request: the HTTP status it answered (or
// would have answered, for Local), and its {"error","detail"} body.
type Error struct {
	Status int
	Code   string // snake_case: invalid_beat, field_too_large, unknown_brain…
	Detail string
}

func (e *Error) Error() string {
	return fmt.Sprintf("the Hall answered %d %s: %s", e.Status, e.Code, e.Detail)
}

// BadInput reports whether the request itself was wrong (a 4xx other than
// 404): a field over its limit, a relative path, a missing token. No retry
// mends it.
func (e *Error) BadInput() bool {
	return e.Status >= 400 && e.Status < 500 && e.Status != http.StatusNotFound
}

// IsBadInput reports whether err is an *Error whose request was wrong.
func IsBadInput(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.BadInput()
}

// IsNotFound reports whether err is the Hall knowing no such presence or
// brain.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// Watcher is a Client that can follow the roster's changes: Watch calls
// changed after each change (several may coalesce into one call) until ctx
// ends. The live MCP resources use it to notify their subscribers.
type Watcher interface {
	Watch(ctx context.Context, changed func())
}
