// Package hooktest holds recorded hook payloads of the agents the Hall
// adapts to (Claude Code, Codex, Cursor), for tests in any package.
//
// The payloads live in testdata/, one folder per agent; see its README for
// where their shape comes from. Nothing here is used outside tests.
package hooktest

import (
	"embed"
	"path"
	"testing"
)

//go:embed testdata
var payloads embed.FS

// Agents whose payloads are recorded here, by folder name.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	Cursor     = "cursor"
)

// Payload returns one recorded payload, agent being one of the folder names
// above and name its file (for example "pre-tool-use-write.json").
func Payload(tb testing.TB, agent, name string) string {
	tb.Helper()
	b, err := payloads.ReadFile(path.Join("testdata", agent, name))
	if err != nil {
		tb.Fatalf("hook payload %s/%s: %v", agent, name, err)
	}
	return string(b)
}

// Names lists the recorded payload files of one agent, for table tests and
// fuzz seeds that want every one.
func Names(tb testing.TB, agent string) []string {
	tb.Helper()
	entries, err := payloads.ReadDir(path.Join("testdata", agent))
	if err != nil {
		tb.Fatalf("hook payloads of %s: %v", agent, err)
	}
	var names []string
	for _, e := range entries {
		if path.Ext(e.Name()) == ".json" {
			names = append(names, e.Name())
		}
	}
	return names
}
