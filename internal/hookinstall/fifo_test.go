package hookinstall

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/fifotest"
	"github.com/hall-dev/hall/internal/safefile"
)

// TestInstallRefusesAFIFO: a settings path that is a FIFO is refused at
// once (a plain read waited for a writer for ever), and nothing is
// written. The bound is a hang detector, not a measure of speed.
func TestInstallRefusesAFIFO(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.json")
	fifotest.Make(t, file)
	done := make(chan error, 1)
	go func() {
		_, err := Install(Options{Agent: "claude", File: file})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("Install over a FIFO: got %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Install over a FIFO still reading after 10s")
	}
}
