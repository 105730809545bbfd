package shellword_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/shellword"
)

// TestQuote: a word with nothing special to a shell stays bare, the
// rest is single-quoted; and each, given to a real POSIX sh (dash), bash
// running a script and an interactive bash (which expands ! in double
// quotes), reads back as the very bytes it quotes.
func TestQuote(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"src/checkout/cart.go", "src/checkout/cart.go"},
		{"a-b_c.d:e@f+g,h%1", "a-b_c.d:e@f+g,h%1"},
		{"héllo/wörld.go", "héllo/wörld.go"},
		{"", "''"},
		{"a b.go", "'a b.go'"},
		{"it's.go", `'it'\''s.go'`},
		{"a!b", "'a!b'"},
		{"it's!", `'it'\''s!'`},
		{"^x", "'^x'"},
		{"x=1", "'x=1'"},
		{"$HOME", "'$HOME'"},
		{"`id`", "'`id`'"},
		{"*.go", "'*.go'"},
		{"~", "'~'"},
		{"if", "'if'"},
		{`a\b`, `'a\b'`},
		{"new\nline", "'new\nline'"},
		{"tab\there", "'tab\there'"},
		{"bad\xffutf8", "'bad\xffutf8'"},
		{"#x", "'#x'"},
		{"a;b|c&d>e<f(g)h{i}[j]?", "'a;b|c&d>e<f(g)h{i}[j]?'"},
	} {
		if got := shellword.Quote(tc.in); got != tc.want {
			t.Errorf("QuoteWord(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var words, script strings.Builder
	ins := []string{"plain.go", "héllo.go", "a b", "it's", "a!b", "it's!", "^x", "x=1", "$HOME", "`id`", "*", "~", "if", `a\b`, "new\nline", "bad\xffutf8", "#x", "%1", "a;b|c&d"}
	for _, in := range ins {
		words.WriteString(" " + shellword.Quote(in))
	}
	script.WriteString("printf '%s\\0'" + words.String() + "\n")
	want := strings.Join(ins, "\x00") + "\x00"
	for _, sh := range [][]string{{"dash", "-c", script.String()}, {"bash", "-c", script.String()}, {"bash", "--norc", "--noprofile", "-i"}} {
		if _, err := exec.LookPath(sh[0]); err != nil {
			t.Fatalf("%s: %v", sh[0], err)
		}
		cmd := exec.Command(sh[0], sh[1:]...)
		if sh[len(sh)-1] == "-i" {
			cmd.Stdin = strings.NewReader(script.String() + "exit\n") // read as typed: history expansion on
		}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", sh, err, errb.String())
		}
		if out.String() != want {
			t.Errorf("%v read back\n%q\nwant\n%q\n%s", sh, out.String(), want, errb.String())
		}
	}
}
