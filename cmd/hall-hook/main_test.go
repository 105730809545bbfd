package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStaysLean: hall-hook starts once per tool call, so it must not link
// what makes hall slow to start (docs/performance.md#hooks): net/http and
// the TLS, x509 and http2 packages behind it, the JSON codec, the Hall's
// domain, or any module outside the standard library.
func TestStaysLean(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	allowed := map[string]bool{
		"github.com/hall-dev/hall/cmd/hall-hook":        true,
		"github.com/hall-dev/hall/internal/hookforward": true,
		"github.com/hall-dev/hall/internal/cli":         true,
	}
	for _, d := range deps {
		switch {
		case d == "net/http", d == "crypto/tls", d == "crypto/x509", d == "encoding/json", strings.HasSuffix(d, "/http2"):
			t.Errorf("hall-hook links %s", d)
		case strings.Contains(strings.SplitN(d, "/", 2)[0], ".") && !allowed[d] && !strings.HasPrefix(d, "vendor/"):
			t.Errorf("hall-hook links %s, outside the standard library", d)
		}
	}
}
