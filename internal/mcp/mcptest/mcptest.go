// Package mcptest connects the official MCP SDK's client to the Hall's MCP
// server in tests, over any transport: in memory, `hall mcp`'s stdio, or
// /mcp over HTTP.
package mcptest

import (
	"context"
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
