package hall_test

import (
	"go/build"
	"slices"
	"testing"
)

// TestNoHTTPInTheApplication: the application package says what kind of
// refusal an error is (contract.Kind), never an HTTP status; the one
// table between the two is contract.StatusOf, read by the transports.
func TestNoHTTPInTheApplication(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{"net/http", "github.com/labstack/echo/v4", "github.com/hall-dev/hall/internal/web"} {
		if slices.Contains(p.Imports, transport) {
			t.Errorf("internal/hall imports %s", transport)
		}
	}
}
