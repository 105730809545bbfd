package shellguard

import (
	"path"
	"strings"
	"testing"
)

func TestWildmatch(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"*.go", "src/checkout/cart.go", true}, // git's * crosses /
		{"src/*", "src/checkout/cart.go", true},
		{"src/check?ut/cart.go", "src/checkout/cart.go", true},
		{"src/[a-c]heckout/*", "src/checkout/cart.go", true},
		{"src/[!c]heckout/*", "src/checkout/cart.go", false},
		{"src/[^c]heckout/*", "src/checkout/cart.go", false},
		{"src/[]c]heckout/*", "src/checkout/cart.go", true},
		{"src/\\*", "src/*", true},
		{"src/\\*", "src/a", false},
		{"src/[", "src/[", true}, // unclosed: a plain byte
		{"[[[[", "[[[[", true},
		{"*a*a*a*b", strings.Repeat("a", 40), false},
		{"", "", true},
		{"*", "", true},
		{"a", "", false},
	}
	for _, tt := range tests {
		var steps int
		if got := wildmatch(tt.pat, tt.s, &steps); got != tt.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pat, tt.s, got, tt.want)
		}
		// Within one segment, path.Match is the reference.
		if !strings.Contains(tt.s, "/") && !strings.ContainsAny(tt.pat, "^") {
			if ref, err := path.Match(tt.pat, tt.s); err == nil && ref != tt.want {
				t.Errorf("path.Match(%q, %q) = %v, wildmatch says %v", tt.pat, tt.s, ref, tt.want)
			}
		}
	}
}

// The match is O(len(p)·len(s)) whatever the pattern: stars and unclosed
// brackets never nest the work.
func TestWildmatchBounded(t *testing.T) {
	for _, p := range []string{strings.Repeat("*a", 500) + "b", strings.Repeat("[", 1000), strings.Repeat("[a", 500), strings.Repeat("*[ab]", 200) + "c"} {
		s := strings.Repeat("a", 1000)
		var steps int
		wildmatch(p, s, &steps)
		if bound := 2 * (len(p) + 1) * (len(s) + 1); steps > bound {
			t.Errorf("pattern %.20q…: %d steps, bound %d", p, steps, bound)
		}
	}
}
