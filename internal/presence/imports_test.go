package presence_test

import (
	"testing"

	"github.com/hall-dev/hall/internal/importgraph"
)

// TestTheDomainKnowsNoTechnology: package presence holds records, ids,
// stores, staleness and collisions as plain Go (STYLE.md 1): it reaches no
// HTTP, no store's technology, no git, no NATS, no Echo, templ or SSE,
// directly or through another package; of the Hall's packages, only its
// own subpackages.
func TestTheDomainKnowsNoTechnology(t *testing.T) {
	const module = "github.com/hall-dev/hall"
	rule := importgraph.Rule{
		Forbidden: []string{
			"net/http", "os/exec", "database/sql",
			"github.com/labstack/echo", "github.com/a-h/templ", "github.com/r3labs/sse", "github.com/nats-io",
		},
		Module:  module,
		Allowed: []string{module + "/internal/presence"},
	}
	findings, err := rule.Check(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Errorf("internal/presence %s", f)
	}
}
