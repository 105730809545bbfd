package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

// TestHelp: every way of asking for help exits 0 and prints that command's
// usage, and its flags, on stdout; nothing on stderr. hall alone is hall
// serve, so its help lists the commands and serve's flags.
func TestHelp(t *testing.T) {
	tests := []struct {
		args []string
		want []string // in the usage, in this order
	}{
		{[]string{"--help"}, []string{"usage: hall [command]", "version", "flags:", "-addr"}},
		{[]string{"-h"}, []string{"usage: hall [command]", "flags:", "-addr"}},
		{[]string{"help"}, []string{"usage: hall [command]", "flags:", "-addr"}},
		{[]string{"serve", "-h"}, []string{"usage: hall [command]", "flags:", "-addr"}},
		{[]string{"beat", "-h"}, []string{"usage: hall beat", "flags:", "-agent-id", "-hook"}},
		{[]string{"beat", "--help"}, []string{"usage: hall beat", "-agent-id"}},
		{[]string{"help", "beat"}, []string{"usage: hall beat", "-agent-id"}},
		{[]string{"leave", "-h"}, []string{"usage: hall leave", "-presence-id"}},
		{[]string{"watch", "-h"}, []string{"usage: hall watch", "-exit-on-collision"}},
		{[]string{"help", "watch"}, []string{"usage: hall watch", "-exit-on-collision"}},
		{[]string{"relay", "-help"}, []string{"usage: hall relay", "-store"}},
		{[]string{"version", "-h"}, []string{"usage: hall version"}},
		// Flags before the help flag do not change the answer.
		{[]string{"watch", "--json", "-h"}, []string{"usage: hall watch"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tt.args...)
			if code != 0 || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing on stderr", code, stderr)
			}
			rest := stdout
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("usage lacks %q (after the parts before it):\n%s", w, stdout)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestUsageErrors: a flag hall does not know, or a command it does not
// know, exits 2 with the usage on stderr and nothing on stdout.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "usage: hall [command]"},
		{[]string{"watch", "--nope"}, "usage: hall watch"},
		{[]string{"beat", "--nope"}, "usage: hall beat"},
		{[]string{"version", "extra"}, "version takes no arguments"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tt.args...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, and %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

// TestVersion: hall version (and hall --version, -version) prints hall's
// version and the Go version.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version"} {
		code, stdout, stderr := runCLI(t, "", arg)
		if code != 0 || stderr != "" {
			t.Fatalf("hall %s: exit %d, stderr %q", arg, code, stderr)
		}
		info, _ := debug.ReadBuildInfo()
		want := "hall " + versionOf("", info) + "\n" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
		if stdout != want {
			t.Errorf("hall %s: got %q, want %q", arg, stdout, want)
		}
	}
}

// TestVersionOf: the link-time version wins, then the module's, then the
// commit, then "(devel)".
func TestVersionOf(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name   string
		linked string
		info   *debug.BuildInfo
		want   string
	}{
		{"linked", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v1.2.3"},
		{"module", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v0.9.0"},
		{"commit", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123456789abcdef0123", "false")}, "(devel) 0123456789ab"},
		{"dirty commit", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123456789abcdef0123", "true")}, "(devel) 0123456789ab-dirty"},
		{"nothing known", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
		{"no build info", "", nil, "(devel)"},
	}
	for _, tt := range tests {
		if got := versionOf(tt.linked, tt.info); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestUsageListsTheTable: `hall -h` lists exactly the command table, in
// its order, and so does the list in docs/configuration.md; every command
// in the table answers its own -h with exit 0.
func TestUsageListsTheTable(t *testing.T) {
	var want []string
	for _, c := range commands() {
		want = append(want, c.name+" "+c.summary)
	}

	_, stdout, _ := runCLI(t, "", "-h")
	_, list, ok := strings.Cut(stdout, "commands:\n")
	if !ok {
		t.Fatalf("hall -h has no commands: list:\n%s", stdout)
	}
	list, _, _ = strings.Cut(list, "\n\n")
	if got := commandLines(list); !slices.Equal(got, want) {
		t.Errorf("hall -h lists\n%q\nwant the table\n%q", got, want)
	}

	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok = strings.Cut(string(doc), "hall [command] [flags]\n\n")
	if !ok {
		t.Fatal("docs/configuration.md lacks the command list after `hall [command] [flags]`")
	}
	list, _, _ = strings.Cut(list, "```")
	if got := commandLines(list); !slices.Equal(got, want) {
		t.Errorf("docs/configuration.md lists\n%q\nwant the table\n%q", got, want)
	}

	for _, c := range commands() {
		if code, stdout, stderr := runCLI(t, "", c.name, "-h"); code != 0 || stderr != "" || !strings.HasPrefix(stdout, "usage: hall") {
			t.Errorf("hall %s -h: exit %d, stderr %q, stdout %.40q; want 0, nothing, the usage", c.name, code, stderr, stdout)
		}
	}
}

// commandLines reads a usage's command list, one "name summary" a line,
// the padding between them folded to one space.
func commandLines(list string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		name, summary, _ := strings.Cut(strings.TrimSpace(l), " ")
		lines = append(lines, name+" "+strings.TrimSpace(summary))
	}
	return lines
}
