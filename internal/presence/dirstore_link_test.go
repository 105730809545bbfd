package presence_test

import (
	"github.com/hall-dev/hall/internal/dirstore"
	"github.com/hall-dev/hall/internal/presence"
)

// The Service's tests run on the real sidecar folder. The domain does not
// import its backends, and its internal tests cannot import dirstore
// without a cycle; this external test file can, and links it in before any
// test runs.
func init() {
	presence.OpenFileStore = func(root string) presence.FileStore { return dirstore.New(root) }
}
