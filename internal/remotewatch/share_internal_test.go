package remotewatch

import (
	"fmt"
	"strings"
	"testing"
)

// An answer another Hall wrote reaches git only when each branch is a
// plain name (no refspec, option or pattern in it) and each tip an
// object id, within the bound.
func TestSharedAnswerValid(t *testing.T) {
	id := strings.Repeat("a", 40)
	heads := func(n int) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprintf("b%d", i)] = id
		}
		return m
	}
	for _, tc := range []struct {
		name string
		l    lease
		want bool
	}{
		{"plain", lease{Default: "main", Heads: map[string]string{"main": id, "feat/x-1": strings.Repeat("0", 64)}}, true},
		{"a refspec", lease{Heads: map[string]string{"a:refs/heads/b": id}}, false},
		{"an option", lease{Heads: map[string]string{"--upload-pack=x": id}}, false},
		{"a pattern", lease{Heads: map[string]string{"a*": id}}, false},
		{"dot dot", lease{Heads: map[string]string{"a/../b": id}}, false},
		{"a hidden part", lease{Heads: map[string]string{"a/.b": id}}, false},
		{"a space", lease{Heads: map[string]string{"a b": id}}, false},
		{"a lock", lease{Heads: map[string]string{"a.lock": id}}, false},
		{"not an id", lease{Heads: map[string]string{"a": "HEAD"}}, false},
		{"an upper-case id", lease{Heads: map[string]string{"a": strings.Repeat("A", 40)}}, false},
		{"a bad default", lease{Default: "-x"}, false},
		{"negative omitted", lease{Omitted: -1}, false},
		{"at the bound", lease{Heads: heads(MaxSharedHeads)}, true},
		{"over the bound", lease{Heads: heads(MaxSharedHeads + 1)}, false},
	} {
		if got := tc.l.valid(); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
