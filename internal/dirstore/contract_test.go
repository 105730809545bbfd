package dirstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/storetest"
)

// TestDirStoreContract runs the store contract shared with the NATS
// bucket (internal/natsstore) on the sidecar directory.
func TestDirStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) presence.Store {
		return rawDirStore{dirstoretest.Open(t)}
	})
}

// rawDirStore lets the contract place a broken file, as a foreign writer
// of the folder would.
type rawDirStore struct{ *dirstore.Store }

func (s rawDirStore) WriteRaw(_ context.Context, id string, data []byte) error {
	return os.WriteFile(filepath.Join(s.Dir(), id+".json"), data, 0o644)
}
