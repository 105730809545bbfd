package hallclient_test

import (
	"testing"

	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hallclient"
	"github.com/hall-dev/hall/internal/importgraph"
)

// The Hall's operations in this process are a Client, as HTTP is: held
// here, so the package itself needs no application type.
var (
	_ hallclient.Client = (*hall.Hall)(nil)
	_ hallclient.Client = (*hallclient.HTTP)(nil)
)

const module = "github.com/hall-dev/hall"

// TestTheClientTakesItsTypesFromTheContract: the client speaks the wire's
// types (internal/contract), never the application's or MCP's, directly
// or through another package.
func TestTheClientTakesItsTypesFromTheContract(t *testing.T) {
	rule := importgraph.Rule{
		Forbidden: []string{module + "/internal/hall", module + "/internal/mcp", module + "/views"},
		Module:    module,
		Allowed: []string{
			module + "/internal/contract", module + "/internal/filelock", module + "/internal/gitscan", module + "/internal/presence",
			module + "/internal/recovery", module + "/internal/safefile", module + "/internal/stream", module + "/internal/web/httpwire",
		},
	}
	findings, err := rule.Check(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("internal/hallclient %s", f)
	}
}
