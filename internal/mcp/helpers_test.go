package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/hallclient"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// localHall is a real presence service over a temp registry, reached as
// `hall mcp --registry-root` reaches it.
type localHall struct {
	root  string
	store *dirstore.Store
	svc   *presence.Service
	clock *presencetest.Clock // settable, so ages in the golden files hold still
}

func newLocalHall(t *testing.T) *localHall {
	t.Helper()
	store := dirstoretest.Open(t)
	root := filepath.Dir(store.Dir())
	c := presencetest.NewClock(presencetest.T0)
	svc := presence.NewService(store, presence.Config{Now: c.Now, Logger: slog.New(slog.DiscardHandler)})
	return &localHall{root: root, store: store, svc: svc, clock: c}
}

func (h *localHall) client() hallclient.Client { return &hallclient.Local{Service: h.svc} }

// files lists the record files, for "nothing written" checks.
func (h *localHall) files(t *testing.T) []string {
	t.Helper()
	return dirstoretest.Names(t, h.store.Dir())
}

// connect serves cfg to a new SDK client, in process.
func connect(t *testing.T, cfg Config, o mcptest.Client) *sdk.ClientSession {
	t.Helper()
	_, cs := connectServer(t, cfg, o)
	return cs
}

// connectServer is connect, answering the server too, to look inside.
func connectServer(t *testing.T, cfg Config, o mcptest.Client) (*server, *sdk.ClientSession) {
	t.Helper()
	if cfg.Log == nil {
		cfg.Log = quiet()
	}
	st, ct := sdk.NewInMemoryTransports()
	s := newServer(cfg)
	ss, err := s.srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, ct, o)
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return s, cs
}

// call calls a tool and returns its result, failing on a protocol error.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
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

// text is a result's text content.
func text(t *testing.T, res *sdk.CallToolResult) string {
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

// structured decodes a result's structured content into out.
func structured(t *testing.T, res *sdk.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(t, res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }
