// Package hooktest holds recorded hook payloads of the agents the Hall
// adapts to (Claude Code, Codex, Cursor, Gemini CLI), for tests in any
// package.
//
// The payloads live in testdata/, one folder per agent; see its README for
// where their shape comes from. Nothing here is used outside tests.
package hooktest

import (
	"embed"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/agentid"
	"github.com/hall-dev/hall/internal/gittest"
)

//go:embed testdata
var payloads embed.FS

// Agents whose payloads are recorded here, by folder name.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	Cursor     = "cursor"
	GeminiCLI  = "gemini-cli"
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

// RecordedWorktree is the folder the recorded payloads work in (their
// cwd, workspace root and file paths start with it), but Gemini CLI's:
// see RecordedWorktreeOf.
const RecordedWorktree = "/home/ana/shop-wt2"

// recordedWorktrees are the agents whose payloads were recorded elsewhere.
var recordedWorktrees = map[string]string{
	GeminiCLI: "/home/ana/shop-wt3",
}

// RecordedWorktreeOf is the folder agent's recorded payloads work in.
func RecordedWorktreeOf(agent string) string {
	if wt, ok := recordedWorktrees[agent]; ok {
		return wt
	}
	return RecordedWorktree
}

// recordedSessions is the session (Cursor: conversation) id of each
// agent's recorded payloads.
var recordedSessions = map[string]string{
	ClaudeCode: "7d0c5e2a-4b1f-4a52-9c33-1f0e8a6b2c41",
	Codex:      "0199a1f2-6c3e-7d21-9b4a-5e8f7c2d1a03",
	Cursor:     "c5b1e0d2-3f4a-4c8e-9a71-2d6b8e0f4a19",
	GeminiCLI:  "5f2c9e1a-8b7d-4c3e-a1f0-2d6b9e4c7a18",
}

// SessionB is a second session id for tests that play two sessions of one
// agent with Moved.
const SessionB = "b1b2b3b4-0000-4000-8000-000000000000"

// agentPrefixes is the agent_id prefix each agent's adapter uses.
var agentPrefixes = map[string]string{
	ClaudeCode: "claude",
	Codex:      "codex",
	Cursor:     "cursor",
	GeminiCLI:  "gemini",
}

// AgentID is the agent_id the adapter of agent gives a session (Cursor: a
// conversation); session "" means the recorded payloads' own session.
func AgentID(agent, session string) string {
	if session == "" {
		session = recordedSessions[agent]
	}
	return agentid.Session(agentPrefixes[agent], session, "")
}

// Moved returns a recorded payload moved to another worktree and, when
// session is not empty, to another session: every RecordedWorktreeOf(agent) in it
// becomes worktree and the recorded session id becomes session. Tests use
// it to play two sessions in a real git worktree made in a temp dir.
// worktree must need no escaping in JSON (a temp dir does not).
func Moved(tb testing.TB, agent, name, worktree, session string) string {
	tb.Helper()
	p := strings.ReplaceAll(Payload(tb, agent, name), RecordedWorktreeOf(agent), worktree)
	if session != "" {
		p = strings.ReplaceAll(p, recordedSessions[agent], session)
	}
	return p
}

// Repo is a real git repository made for a test: its main worktree (the
// brain every worktree of it shares) and a linked worktree beside it, both
// with symlinks resolved.
type Repo struct {
	Main, Worktree string
}

// GitRepo makes a git repository with one commit (src/checkout/cart.go) in
// a temp dir, and a linked worktree of it, with the git found on PATH.
func GitRepo(tb testing.TB) Repo {
	tb.Helper()
	root := gittest.TempDir(tb)
	r := Repo{Main: filepath.Join(root, "shop"), Worktree: filepath.Join(root, "shop-wt2")}
	gittest.WriteFile(tb, filepath.Join(r.Main, "src", "checkout", "cart.go"), "package checkout\n")
	gittest.Init(tb, r.Main)
	gittest.CommitAll(tb, r.Main, "cart")
	gittest.Worktree(tb, r.Main, r.Worktree, "wt2", "main")
	return r
}
