package main

import (
	"bufio"
	"bytes"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// docAddrs are the Hall addresses the documentation's examples name; the
// test puts its own Hall's in their place.
var docAddrs = []string{"127.0.0.1:7433", "127.0.0.1:7434"}

// TestDocCurlExamples runs every curl command of the README's and docs'
// shell blocks, as written, with the real curl against a real Hall on
// 127.0.0.1:0 (one fresh Hall a file, the commands in the file's order),
// so an example that the Hall refuses (a 4xx or 5xx) fails the build.
func TestDocCurlExamples(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("curl is missing: %v", err)
		}
		t.Skipf("curl is missing (%v): the docs' curl examples are not run", err)
	}
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../../README.md"}, files...)
	// Files known to hold curl examples: finding none in them means the
	// reader below is broken, not that the docs have no examples.
	mustHave := map[string]bool{"README.md": true, "api.md": true, "nats.md": true}

	for _, file := range files {
		doc, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		cmds := curlCommands(t, file, doc)
		if len(cmds) == 0 {
			if mustHave[filepath.Base(file)] {
				t.Errorf("%s: no curl command found in its shell blocks", file)
			}
			continue
		}
		delete(mustHave, filepath.Base(file))
		t.Run(filepath.Base(file), func(t *testing.T) {
			m := MustOpenHall(t, Config{})
			u, err := url.Parse(m.URL())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cmds {
				args := make([]string, len(c.args))
				for i, a := range c.args {
					for _, d := range docAddrs {
						a = strings.ReplaceAll(a, d, u.Host)
					}
					args[i] = a
				}
				// -f: a 4xx or 5xx answer is curl's exit 22, with the body.
				cmd := exec.CommandContext(t.Context(), curl, append([]string{"-sS", "--fail-with-body", "--max-time", "10"}, args...)...)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Errorf("%s:%d: curl %s: %v\n%s", file, c.line, strings.Join(c.args, " "), err, out)
				}
			}
		})
	}
	for f := range mustHave {
		t.Errorf("%s was not read", f)
	}
}

// docCommand is one command of a documentation shell block, its words
// expanded as the shell would (quotes removed, continuations joined).
type docCommand struct {
	line int // in the markdown file
	args []string
}

// curlCommands reads the curl commands of a markdown file's fenced sh,
// bash and shell blocks. The blocks are parsed as shell, so a command
// split over lines, quoted JSON and trailing comments read as a shell
// reads them; a block that does not parse fails the test.
func curlCommands(t *testing.T, file string, doc []byte) []docCommand {
	t.Helper()
	var cmds []docCommand
	for _, b := range shellBlocks(doc) {
		f, err := syntax.NewParser().Parse(strings.NewReader(b.text), file)
		if err != nil {
			t.Errorf("%s:%d: the shell block does not parse: %v", file, b.line, err)
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			call, ok := n.(*syntax.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			args, err := expand.Fields(&expand.Config{}, call.Args...)
			if err != nil {
				t.Errorf("%s:%d: %v", file, b.line+int(call.Pos().Line()), err)
				return true
			}
			if len(args) > 0 && args[0] == "curl" {
				cmds = append(cmds, docCommand{line: b.line + int(call.Pos().Line()), args: args[1:]})
			}
			return true
		})
	}
	return cmds
}

// shellBlock is a fenced code block's text and the line of its opening
// fence.
type shellBlock struct {
	line int
	text string
}

// shellBlocks returns the fenced blocks of a markdown file whose info
// string names a shell.
func shellBlocks(doc []byte) []shellBlock {
	var (
		blocks []shellBlock
		cur    *shellBlock
		text   strings.Builder
	)
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fence, info, isFence := strings.Cut(strings.TrimLeft(line, " "), "```")
		isFence = isFence && fence == ""
		switch {
		case cur == nil && isFence:
			switch strings.Fields(info + " x")[0] {
			case "sh", "bash", "shell":
				cur = &shellBlock{line: n}
				text.Reset()
			default:
				cur = &shellBlock{line: -1} // another language: skipped
			}
		case cur != nil && isFence:
			if cur.line >= 0 {
				cur.text = text.String()
				blocks = append(blocks, *cur)
			}
			cur = nil
		case cur != nil:
			text.WriteString(line + "\n")
		}
	}
	return blocks
}
