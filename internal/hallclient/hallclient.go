// Package hallclient is the agent's side of the Hall: what `hall beat`,
// `hall leave` and `hall mcp` speak through. A Client beats, leaves and
// reads a roster, its north and its cockpit: a running Hall over HTTP
// (HTTP), or the Hall's operations in this process (*hall.Hall, over the
// registry folder written directly, or the Hall's own when it serves MCP
// itself), which satisfies Client as it is.
//
// Both answer with the wire types of internal/contract and refuse with
// the same *contract.Error, so a caller cannot tell where the Hall is from
// what it gets back. What it does not do: derive an agent's paths
// (internal/place) or speak MCP (internal/mcp).
package hallclient

import (
	"context"

	"github.com/hall-dev/hall/internal/contract"
)

// Client is a Hall, wherever it runs.
type Client interface {
	// Beat reports one beat and answers the presence id, whether it was
	// stored, and the agent's north lines. A beat the Hall refuses is a
	// *contract.Error naming the field.
	Beat(ctx context.Context, req contract.BeatRequest) (contract.BeatResponse, error)
	// Leave ends a presence at once; an unknown one is a *contract.Error
	// of Kind contract.KindNotFound.
	Leave(ctx context.Context, presenceID string) error
	// Presences is GET /api/presences[?brain=]: the roster and its
	// collisions, owner-wide when brain is empty. An unreadable registry
	// is a response with Error set, not an error.
	Presences(ctx context.Context, brain string) (contract.PresencesResponse, error)
	// North is GET /api/north: one line per collision partner of the
	// presence who names.
	North(ctx context.Context, who contract.Who) (contract.NorthResponse, error)
	// Cockpit is GET /api/cockpit[?brain=]: the strip as text.
	Cockpit(ctx context.Context, brain string) (string, error)
	// Check is POST /api/presences/check: whom the work would collide
	// or overlap with, writing nothing.
	Check(ctx context.Context, req contract.CheckRequest) (contract.CheckResponse, error)
	// Snapshots is GET /api/snapshots: the snapshots the Hall kept before
	// destructive commands, and the losses found lately.
	Snapshots(ctx context.Context, worktree, agent string, limit int) (contract.SnapshotList, error)
	// SnapshotFiles is GET /api/snapshots/{id}: one snapshot and how its
	// files compare with the worktree now.
	SnapshotFiles(ctx context.Context, id string, paths []string) (contract.SnapshotDiff, error)
}

// The Hall in this process is a Client.

// Watcher is a Client that can follow the roster's changes: Watch calls
// changed after each change (several may coalesce into one call) until ctx
// ends. The live MCP resources use it to notify their subscribers.
type Watcher interface {
	Watch(ctx context.Context, changed func())
}
