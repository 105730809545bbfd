// Package mcptest connects the official MCP SDK's client to the Hall's MCP
// server in tests, over any transport (in memory, `hall mcp`'s stdio, or
// /mcp over HTTP), and reads what its tools answer.
//lint:file-ignore SA1019 MCP roots are deprecated as of protocol 2026-07-28 (SEP-2577) but stay functional for at least a year; the Hall reads a client's roots to default caller_root, and passing paths as tool parameters (caller_root, brain) already works alongside.

package mcptest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client shapes the test's SDK client.
type Client struct {
	Name     string        // the client's name in the handshake; "test-client" when empty
	Roots    []string      // file roots the client offers
	Protocol string        // the protocol version asked for; the SDK's latest when empty
	Updated  chan<- string // told the URI of each resource updated notification
}

// Connect makes the handshake over tr and returns the session; the caller
// closes it (and what serves it).
func Connect(t testing.TB, tr sdk.Transport, c Client) *sdk.ClientSession {
	t.Helper()
	if c.Name == "" {
		c.Name = "test-client"
	}
	var opts *sdk.ClientOptions
	if c.Updated != nil {
		opts = &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			c.Updated <- req.Params.URI
		}}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: c.Name, Version: "1"}, opts)
	for _, r := range c.Roots {
		client.AddRoots(&sdk.Root{URI: "file://" + r})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: c.Protocol})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs
}

// Call calls a tool and returns its result, failing the test on a protocol
// error; a tool error is the result's to say (IsError).
func Call(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// Text is a result's text: the Hall answers every call, tool errors
// included, with exactly one text block.
func Text(t testing.TB, res *sdk.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content: got %d blocks, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("content: got %T, want text", res.Content[0])
	}
	return tc.Text
}

// Structured decodes a successful result's structured content into out,
// failing the test on a tool error.
func Structured(t testing.TB, res *sdk.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", Text(t, res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("encode structured content: %v", err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}
