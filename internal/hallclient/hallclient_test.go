package hallclient_test

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
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
			module + "/internal/atomicfile", module + "/internal/autostart", module + "/internal/contract", module + "/internal/filelock", module + "/internal/gitscan", module + "/internal/presence",
			module + "/internal/recovery", module + "/internal/safefile", module + "/internal/shellword", module + "/internal/stream", module + "/internal/web/httpwire",
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

// TestAnUnreachableHallIsARefusal: a Hall that cannot be reached is a
// refusal of kind unavailable naming it (so an MCP tool error says it,
// never "internal"), its cause still a net.Error for errors.As, its text
// the sentence a person read before.
func TestAnUnreachableHallIsARefusal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	err = (&hallclient.HTTP{Base: dead}).Leave(t.Context(), "prs_0123456789ab")
	var refused *contract.Error
	var ne net.Error
	if !errors.As(err, &refused) || refused.Kind != contract.KindUnavailable || refused.Code != "hall_unreachable" || !errors.As(err, &ne) {
		t.Fatalf("got %#v, want a hall_unreachable refusal wrapping the net.Error", err)
	}
	if _, internal := contract.Refusal(err); internal {
		t.Error("an unreachable Hall is said as internal")
	}
	if want := "the Hall at " + dead + " is unreachable: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("text %q, want it to start %q", err.Error(), want)
	}
}
