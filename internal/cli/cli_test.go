package cli

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParseWithEnv: a flag on the command line wins over its variable; a
// variable fills a flag not given; a flag and its -file form are one
// setting; list flags split their variable.
func TestParseWithEnv(t *testing.T) {
	for _, c := range []struct {
		name      string
		args      []string
		env       map[string]string
		hall      string
		token     string
		tokenFile string
		list      []string
		hosts     []string
	}{
		{"defaults", nil, nil, "def", "", "", nil, nil},
		{"the variable fills", nil, map[string]string{"HALL_HALL": "env"}, "env", "", "", nil, nil},
		{"the flag wins", []string{"--hall", "flag"}, map[string]string{"HALL_HALL": "env"}, "flag", "", "", nil, nil},
		{"a -file flag given: the token's variable stays out", []string{"--token-file", "f"}, map[string]string{"HALL_TOKEN": "env"}, "def", "", "f", nil, nil},
		{"the token given: the file's variable stays out", []string{"--token", "t"}, map[string]string{"HALL_TOKEN_FILE": "envf"}, "def", "t", "", nil, nil},
		{"both from the environment", nil, map[string]string{"HALL_TOKEN": "t", "HALL_TOKEN_FILE": "f"}, "def", "t", "f", nil, nil},
		{"a list splits on the path separator", nil, map[string]string{"HALL_WORKING_SET": "a" + string(os.PathListSeparator) + string(os.PathListSeparator) + "b"}, "def", "", "", []string{"a", "b"}, nil},
		{"hosts split on commas", nil, map[string]string{"HALL_ALLOWED_HOST": "x:1,y"}, "def", "", "", nil, []string{"x:1", "y"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range []string{"HALL_HALL", "HALL_TOKEN", "HALL_TOKEN_FILE", "HALL_WORKING_SET", "HALL_ALLOWED_HOST"} {
				t.Setenv(k, "")
				os.Unsetenv(k)
			}
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			hall := fs.String("hall", "def", "")
			var tok Secret
			tok.Register(fs, "token", "")
			var list StringList
			fs.Var(&list, "working-set", "")
			var hosts HostList
			fs.Var(&hosts, "allowed-host", "")
			if err := ParseWithEnv(fs, c.args); err != nil {
				t.Fatal(err)
			}
			if *hall != c.hall || tok.inline != c.token || tok.file != c.tokenFile || !slices.Equal(list, c.list) || !slices.Equal(hosts.StringList, c.hosts) {
				t.Errorf("hall %q token %q file %q list %q hosts %q", *hall, tok.inline, tok.file, list, hosts.StringList)
			}
		})
	}
}

func TestSecretValue(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name, inline, file, want, fail string
	}{
		{"inline", "abc", "", "abc", ""},
		{"a file, trimmed", "", write("ok", "  abc\n"), "abc", ""},
		{"both", "abc", write("both", "abc"), "", "both set"},
		{"empty file", "", write("empty", " \n"), "", "is empty"},
		{"two lines", "", write("two", "a\nb\n"), "", "more than one line"},
		{"missing", "", filepath.Join(dir, "none"), "", "--token-file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Secret{name: "token", inline: c.inline, file: c.file}
			got, err := s.Value()
			if c.fail != "" {
				if err == nil || !strings.Contains(err.Error(), c.fail) {
					t.Fatalf("err %v, want one naming %q", err, c.fail)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %q %v, want %q", got, err, c.want)
			}
		})
	}
}
