package hall_test

import (
	"testing"

	"github.com/hall-dev/hall/internal/importgraph"
)

const module = "github.com/hall-dev/hall"

// TestNoHTTPInTheApplication: the application package says what kind of
// refusal an error is (contract.Kind), never an HTTP status, and knows no
// transport or store, directly or through another package: the whole
// import graph is walked. The Hall's packages it may reach are listed;
// the two through which it reaches HTTP today are named, with why.
func TestNoHTTPInTheApplication(t *testing.T) {
	rule := importgraph.Rule{
		Forbidden: []string{
			"net/http", "github.com/labstack/echo", "github.com/a-h/templ", "github.com/r3labs/sse", "github.com/nats-io",
			module + "/internal/web", module + "/internal/mcp", module + "/internal/hallclient", module + "/internal/hookforward", module + "/views",
			module + "/internal/dirstore", module + "/internal/natsstore",
		},
		Module: module,
		Allowed: []string{
			module + "/internal/agentid", module + "/internal/atomicfile", module + "/internal/cli", module + "/internal/contract", module + "/internal/filelock", module + "/internal/gitscan",
			module + "/internal/hook", module + "/internal/hookinstall", module + "/internal/jsonspan", module + "/internal/place",
			module + "/internal/presence", module + "/internal/recovery", module + "/internal/remotewatch", module + "/internal/safefile", module + "/internal/shellguard", module + "/internal/shellword",
		},
		Known: map[string]string{
			module + "/internal/stream": "the hub (the roster's live cache the application reads) and its HTTP and SSE stream are one package",
		},
	}
	findings, err := rule.Check(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("internal/hall %s", f)
	}
}
