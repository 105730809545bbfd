package mcp

import (
	"log/slog"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/hall"
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

func (h *localHall) client() hallclient.Client { return &hall.Hall{Service: h.svc} }

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

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }
