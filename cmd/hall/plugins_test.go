package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"mvdan.cc/sh/v3/shell"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/hookforward"
	"github.com/hall-dev/hall/internal/hookinstall"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/mcp/mcptest"
)

// The one-step packages, from the repository root: Claude Code's
// marketplace and plugin, and the Gemini CLI extension (Gemini installs an
// extension from a repository's root, so its manifest and hooks live
// there).
const (
	repoRoot           = "../.."
	claudeMarketplace  = repoRoot + "/.claude-plugin/marketplace.json"
	geminiExtensionDir = repoRoot
)

// hooksFile is a plugin's or extension's hooks/hooks.json: the settings
// file's "hooks" object under a key of the same name.
type hooksFile struct {
	Description string                   `json:"description"`
	Hooks       map[string][]hookMatcher `json:"hooks"`
}

type hookMatcher struct {
	Matcher string        `json:"matcher"`
	Hooks   []hookHandler `json:"hooks"`
}

type hookHandler struct {
	Type    string  `json:"type"`
	Name    string  `json:"name"` // Gemini CLI's
	Command string  `json:"command"`
	Timeout float64 `json:"timeout"`
}

// mcpServers is the mcpServers object of .mcp.json and of
// gemini-extension.json.
type mcpServers map[string]struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// TestClaudeCodePlugin: `/plugin marketplace add hall-dev/hall` then
// `/plugin install hall@hall-dev` finds the plugin, its hooks are valid
// Claude Code settings hooks, the same events and command `hall hooks
// install claude --command hall-hook` writes, and each command runs: every
// recorded payload of its event, through hall-hook in process, reaches a real
// Hall and exits 0 with nothing on stderr; a second session in the same
// worktree is warned in its answer. Its MCP server answers a handshake.
func TestClaudeCodePlugin(t *testing.T) {
	var market struct {
		Name  string `json:"name"`
		Owner struct {
			Name string `json:"name"`
		} `json:"owner"`
		Plugins []struct {
			Name        string `json:"name"`
			Source      string `json:"source"`
			Description string `json:"description"`
		} `json:"plugins"`
	}
	readStrict(t, claudeMarketplace, &market)
	if market.Name != "hall-dev" || market.Owner.Name == "" || len(market.Plugins) != 1 {
		t.Fatalf("marketplace: got name %q, owner %q, %d plugins; want hall-dev, an owner, one plugin", market.Name, market.Owner.Name, len(market.Plugins))
	}
	entry := market.Plugins[0]
	if entry.Name != "hall" || entry.Description == "" || !strings.HasPrefix(entry.Source, "./") {
		t.Fatalf("marketplace entry: %+v; want hall, a description, a ./ source", entry)
	}
	dir := filepath.Join(repoRoot, entry.Source)

	var manifest struct {
		Name        string   `json:"name"`
		Version     string   `json:"version"`
		Description string   `json:"description"`
		Homepage    string   `json:"homepage"`
		Repository  string   `json:"repository"`
		Keywords    []string `json:"keywords"`
	}
	readStrict(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), &manifest)
	if manifest.Name != entry.Name || manifest.Version == "" || manifest.Description == "" {
		t.Errorf("plugin.json: name %q, version %q, description %q; want %q, a version, a description", manifest.Name, manifest.Version, manifest.Description, entry.Name)
	}

	hooksPath := filepath.Join(dir, "hooks", "hooks.json")
	hooks := readHooks(t, hooksPath)
	validateHooks(t, "claude-code-settings.schema.json", hooksPath)

	// The plugin wires what the installer wires, with hall-hook as the
	// command.
	sameAsInstalled(t, "claude", hooks)

	// Every command runs, against a real Hall that HALL_HALL names (as a
	// person's environment would for a Hall elsewhere than the default).
	m := MustOpenHall(t, Config{})
	t.Setenv("HALL_HALL", m.URL())
	repo := hooktest.GitRepo(t)
	adapter, _ := hook.For("claude")
	type step struct {
		name, event, payload string
		ev                   hook.Event
	}
	var steps []step
	for _, name := range hooktest.Names(t, hooktest.ClaudeCode) {
		p := hooktest.Moved(t, hooktest.ClaudeCode, name, repo.Worktree, "")
		ev, err := adapter.Parse([]byte(p))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		steps = append(steps, step{name, ev.Name, p, ev})
	}
	// Leaves last, so the warning below has a live session to name.
	slices.SortStableFunc(steps, func(a, b step) int { return boolCmp(a.ev.Leave, b.ev.Leave) })
	covered := map[string]bool{}
	session, warned := "", false // the recorded session's agent id, once it started
	for _, s := range steps {
		if s.event == "SessionStart" {
			session = s.ev.Beat.AgentID
		}
		if s.ev.Leave && !warned {
			out := runHookCommands(t, hooks, "PreToolUse", hooktest.Moved(t, hooktest.ClaudeCode, "pre-tool-use-write.json", repo.Worktree, hooktest.SessionB))
			if session == "" || !bytes.Contains(out, []byte(`"additionalContext"`)) || !bytes.Contains(out, []byte(session)) {
				t.Errorf("a second session's PreToolUse in the same worktree: got %q, want a warning naming the first (%s)", out, session)
			}
			warned = true
		}
		if _, ok := hooks.Hooks[s.event]; !ok {
			continue // an event the plugin does not hook
		}
		covered[s.event] = true
		runHookCommands(t, hooks, s.event, s.payload)
		var roster contract.PresencesResponse
		getJSON(t, m.URL()+"/api/presences", &roster)
		live := slices.ContainsFunc(roster.Presences, func(p contract.Presence) bool { return p.AgentID == s.ev.Beat.AgentID })
		if live == s.ev.Leave {
			t.Errorf("%s (%s): %s live %v after the hook, want %v", s.name, s.event, s.ev.Beat.AgentID, live, !s.ev.Leave)
		}
	}
	for ev := range hooks.Hooks {
		if !covered[ev] {
			t.Errorf("%s: no recorded payload ran its command (add one to internal/hooktest)", ev)
		}
	}

	checkMCPServer(t, m, filepath.Join(dir, ".mcp.json"))
}

// sameAsInstalled holds a package's hooks to what `hall hooks install
// agent --command hall-hook` writes: the same events, matchers and
// commands.
func sameAsInstalled(t *testing.T, agent string, hooks hooksFile) {
	t.Helper()
	res, err := hookinstall.Install(hookinstall.Options{Agent: agent, File: filepath.Join(t.TempDir(), "settings.json"), Command: hookinstall.Lean})
	if err != nil {
		t.Fatal(err)
	}
	var installed hooksFile
	if err := json.Unmarshal(res.After, &installed); err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(maps.Keys(hooks.Hooks)), slices.Sorted(maps.Keys(installed.Hooks)); !slices.Equal(got, want) {
		t.Errorf("the package hooks events %q; hall hooks install %s wires %q", got, agent, want)
	}
	for ev, ms := range installed.Hooks {
		got := hooks.Hooks[ev]
		if len(got) != 1 || len(got[0].Hooks) != 1 || got[0].Matcher != ms[0].Matcher || got[0].Hooks[0].Command != ms[0].Hooks[0].Command {
			t.Errorf("%s: the package runs %+v; hall hooks install %s wires %+v", ev, got, agent, ms)
		}
	}
}

// TestGeminiExtension: `gemini extensions install
// https://github.com/hall-dev/hall` finds gemini-extension.json at the
// root; its hooks are valid Gemini CLI settings hooks on events Gemini
// names, each running a hall command that exists; its MCP server answers a
// handshake. The hook command is the lean `hall-hook gemini`.
func TestGeminiExtension(t *testing.T) {
	var manifest struct {
		Name            string     `json:"name"`
		Version         string     `json:"version"`
		ContextFileName string     `json:"contextFileName"`
		MCPServers      mcpServers `json:"mcpServers"`
	}
	manifestPath := filepath.Join(geminiExtensionDir, "gemini-extension.json")
	readStrict(t, manifestPath, &manifest)
	if manifest.Name != "hall" || manifest.Version == "" {
		t.Errorf("gemini-extension.json: name %q, version %q; want hall and a version", manifest.Name, manifest.Version)
	}
	if manifest.ContextFileName != "" {
		t.Errorf("gemini-extension.json names a context file %q: the Hall speaks through hooks and tools, never a standing prompt", manifest.ContextFileName)
	}

	hooksPath := filepath.Join(geminiExtensionDir, "hooks", "hooks.json")
	hooks := readHooks(t, hooksPath)
	validateHooks(t, "gemini-settings.schema.json", hooksPath)
	known := schemaHookEvents(t, "gemini-settings.schema.json")
	if len(hooks.Hooks) == 0 {
		t.Fatal("the extension hooks no event")
	}
	for ev, ms := range hooks.Hooks {
		if !slices.Contains(known, ev) {
			t.Errorf("%s: not an event Gemini CLI's settings schema names (%q)", ev, known)
		}
		for _, mt := range ms {
			for _, h := range mt.Hooks {
				if h.Type != "command" || h.Timeout <= 0 {
					t.Errorf("%s: %+v; want a command hook with a timeout (milliseconds)", ev, h)
				}
				if prog, _ := hookArgv(t, h.Command); prog != hookinstall.Lean {
					t.Errorf("%s: %q runs %s, want the lean %s", ev, h.Command, prog, hookinstall.Lean)
				}
			}
		}
	}

	// The extension wires what the installer wires, with hall-hook as
	// the command.
	sameAsInstalled(t, "gemini", hooks)

	m := MustOpenHall(t, Config{})
	t.Setenv("HALL_HALL", m.URL())

	// Each hook command answers Gemini's recorded payloads of its event,
	// and a second session's AfterTool in the same worktree is warned in
	// its model's context.
	repo := hooktest.GitRepo(t)
	adapter, _ := hook.For("gemini")
	covered := map[string]bool{}
	for _, name := range hooktest.Names(t, hooktest.GeminiCLI) {
		p := hooktest.Moved(t, hooktest.GeminiCLI, name, repo.Worktree, "")
		ev, err := adapter.Parse([]byte(p))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, ok := hooks.Hooks[ev.Name]; ok && !ev.Leave {
			covered[ev.Name] = true
			runHookCommands(t, hooks, ev.Name, p)
		}
	}
	for _, ev := range []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool"} {
		if !covered[ev] {
			t.Errorf("%s: no recorded Gemini payload ran its command (add one to internal/hooktest)", ev)
		}
	}
	out := runHookCommands(t, hooks, "AfterTool", hooktest.Moved(t, hooktest.GeminiCLI, "after-tool-write-file.json", repo.Worktree, hooktest.SessionB))
	if !bytes.Contains(out, []byte(`"additionalContext"`)) {
		t.Errorf("a second Gemini session's AfterTool in the same worktree: got %q, want the warning in its model's context", out)
	}

	b, err := json.Marshal(map[string]any{"mcpServers": manifest.MCPServers})
	if err != nil {
		t.Fatal(err)
	}
	mcpJSON := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(mcpJSON, b, 0o644); err != nil {
		t.Fatal(err)
	}
	checkMCPServer(t, m, mcpJSON)
}

// runHookCommands runs every command the hooks file wires for event, in
// process, with payload on stdin, requiring exit 0 and nothing on stderr;
// it returns what they printed.
func runHookCommands(t *testing.T, hooks hooksFile, event, payload string) []byte {
	t.Helper()
	var out []byte
	for _, mt := range hooks.Hooks[event] {
		for _, h := range mt.Hooks {
			if h.Type != "command" || h.Timeout <= 0 {
				t.Errorf("%s: %+v; want a command hook with a timeout", event, h)
				continue
			}
			code, stdout, stderr := runHookCommand(t, h.Command, payload)
			if code != 0 || stderr != "" {
				t.Errorf("%s: %q: exit %d, stderr %q; want 0 and nothing", event, h.Command, code, stderr)
			}
			out = append(out, stdout...)
		}
	}
	return out
}

// checkMCPServer starts the "hall" MCP server a .mcp.json-shaped file
// names, in process over stdio as the agent would, and requires its
// handshake tool to make a presence in the Hall (HALL_HALL names it).
func checkMCPServer(t *testing.T, m *Main, path string) {
	t.Helper()
	var cfg struct {
		MCPServers mcpServers `json:"mcpServers"`
	}
	readStrict(t, path, &cfg)
	srv, ok := cfg.MCPServers["hall"]
	if !ok || len(cfg.MCPServers) != 1 {
		t.Fatalf("%s: servers %q; want one, hall", path, slices.Sorted(maps.Keys(cfg.MCPServers)))
	}
	if srv.Command != "hall" || len(srv.Args) == 0 || srv.Args[0] != "mcp" {
		t.Fatalf("%s: runs %q %q; want hall mcp", path, srv.Command, srv.Args)
	}
	cs := stdioMCP(t, mcptest.Client{}, srv.Args[1:]...)
	if res, text := callTool(t, cs, "handshake", map[string]any{"brain": "/srv/shop"}); res.IsError {
		t.Fatalf("%s: handshake: %s", path, text)
	}
	var roster contract.PresencesResponse
	getJSON(t, m.URL()+"/api/presences", &roster)
	if !slices.ContainsFunc(roster.Presences, func(p contract.Presence) bool { return p.Brain == "/srv/shop" }) {
		t.Errorf("%s: after the handshake the Hall lists %d presences, none on /srv/shop", path, len(roster.Presences))
	}
}

// hookArgv reads a hook command as the shell would: the program and its
// arguments.
func hookArgv(t *testing.T, command string) (string, []string) {
	t.Helper()
	argv, err := shell.Fields(command, func(string) string { return "" })
	if err != nil || len(argv) < 2 {
		t.Fatalf("%q: want a program and its arguments (%v)", command, err)
	}
	return argv[0], argv[1:]
}

// runHookCommand runs a hook command in process, hall-hook's as the
// hall-hook binary does (its exit status is always 0), hall's as hall.
func runHookCommand(t *testing.T, command, payload string) (code int, stdout, stderr string) {
	t.Helper()
	prog, args := hookArgv(t, command)
	switch prog {
	case hookinstall.Lean:
		var out, errOut bytes.Buffer
		hookforward.Main(t.Context(), args, strings.NewReader(payload), &out, &errOut)
		return 0, out.String(), errOut.String()
	case "hall":
		return runCLI(t, payload, args...)
	}
	t.Fatalf("%q: want a hall or hall-hook command", command)
	return 0, "", ""
}

// readStrict decodes a JSON file into v, refusing fields v does not name,
// so a misspelt key fails rather than being ignored.
func readStrict(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func readHooks(t *testing.T, path string) hooksFile {
	t.Helper()
	var h hooksFile
	readStrict(t, path, &h)
	return h
}

// validateHooks checks a hooks file's "hooks" object against an agent's
// settings schema (testdata/schemas), as the settings file {"hooks": …}.
func validateHooks(t *testing.T, schemaFile, path string) {
	t.Helper()
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join("testdata", "schemas", schemaFile))
	if err != nil {
		t.Fatalf("compile %s: %v", schemaFile, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	settings, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"hooks":` + string(file.Hooks) + `}`)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := sch.Validate(settings); err != nil {
		t.Errorf("%s: its hooks do not validate against %s: %v", path, schemaFile, err)
	}
}

// schemaHookEvents lists the hook events a settings schema names.
func schemaHookEvents(t *testing.T, schemaFile string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "schemas", schemaFile))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Hooks struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"hooks"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	return slices.Sorted(maps.Keys(s.Properties.Hooks.Properties))
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	default:
		return -1
	}
}
