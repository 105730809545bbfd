package hookinstall

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// agentSchemas are the published schemas (testdata/schemas, see its
// README), by agent. Cursor publishes none: cursorShape stands in.
var agentSchemas = map[string]string{
	"claude": "claude-code-settings.schema.json",
	"codex":  "codex-hooks.schema.json",
	"gemini": "gemini-settings.schema.json",
}

func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "schemas", name))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "file:///schemas/" + name
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return s
}

// cursorShape checks a Cursor hooks file against its reference's shape:
// version 1, and each event a list of handlers with a command.
func cursorShape(t *testing.T, b []byte) {
	t.Helper()
	var f struct {
		Version int                                    `json:"version"`
		Hooks   map[string][]struct{ Command *string } `json:"hooks"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("cursor hooks file: %v\n%s", err, b)
	}
	if f.Version != 1 || len(f.Hooks) == 0 {
		t.Errorf("cursor hooks file: version %d, %d events\n%s", f.Version, len(f.Hooks), b)
	}
	for ev, hs := range f.Hooks {
		for _, h := range hs {
			if h.Command == nil || *h.Command == "" {
				t.Errorf("cursor %s: a handler without a command\n%s", ev, b)
			}
		}
	}
}

// TestInstalledFilesMatchTheAgentsSchemas: every file the installer
// writes, for each agent, scope (project, Claude Code's shared project
// file, user), hook kind (command, lean command, HTTP where offered) and
// policy, validates against the agent's published schema, as a new file
// and merged into one with the person's own settings; and so does what an
// uninstall leaves.
func TestInstalledFilesMatchTheAgentsSchemas(t *testing.T) {
	schemas := map[string]*jsonschema.Schema{}
	for agent, name := range agentSchemas {
		schemas[agent] = compileSchema(t, name)
	}
	existing := map[string]string{
		"claude": claudeSettings,
		"codex":  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done", "timeout": 3}]}]}}`,
		"cursor": `{"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}`,
		"gemini": `{"general": {"vimMode": true}, "hooks": {"AfterTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "gofmt -l ."}]}]}}`,
	}
	check := func(t *testing.T, agent string, b []byte) {
		t.Helper()
		if agent == "cursor" {
			cursorShape(t, b)
			return
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("not JSON: %v\n%s", err, b)
		}
		if err := schemas[agent].Validate(v); err != nil {
			t.Errorf("%s schema: %v\n%s", agent, err, b)
		}
	}
	home, project := t.TempDir(), t.TempDir()
	for _, agent := range Agents() {
		for _, scope := range []struct {
			name         string
			user, shared bool
		}{{"project", false, false}, {"shared", false, true}, {"user", true, false}} {
			for _, kind := range []struct {
				name    string
				command string
				http    bool
			}{{"command", "", false}, {"lean", "/usr/local/bin/hall-hook", false}, {"http", "", true}} {
				for _, policy := range []string{"warn", "ask"} {
					for _, start := range []string{"new", "merged"} {
						t.Run(agent+"/"+scope.name+"/"+kind.name+"/"+policy+"/"+start, func(t *testing.T) {
							file, err := ConfigFile(agent, filepath.Join(project, t.Name()), scope.user, filepath.Join(home, t.Name()), scope.shared)
							if err != nil {
								t.Fatal(err)
							}
							if start == "merged" {
								write(t, file, existing[agent])
							}
							o := Options{Agent: agent, File: file, Command: kind.command, HTTP: kind.http, OnCollision: policy, HallURL: "http://127.0.0.1:7433"}
							install(t, o)
							b, _ := os.ReadFile(file)
							check(t, agent, b)
							res, err := Uninstall(o)
							if err != nil {
								t.Fatal(err)
							}
							if !res.Remove {
								check(t, agent, res.After)
							}
						})
					}
				}
			}
		}
	}
}

// TestSchemasBite: each schema refuses what its agent would not read, so
// the test above can fail.
func TestSchemasBite(t *testing.T) {
	schemas := map[string]*jsonschema.Schema{}
	for agent, name := range agentSchemas {
		schemas[agent] = compileSchema(t, name)
	}
	for _, tc := range []struct{ agent, doc string }{
		{"claude", `{"hooks": {"NoSuchEvent": []}}`},
		{"claude", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}`},
		{"codex", `{"hooks": {"PreToolUse": [{"hooks": [{"command": "x"}]}]}}`},
		{"codex", `{"hooks": {}}`},
		{"gemini", `{"hooks": {"BeforeTool": [{"matcher": 1, "hooks": []}]}}`},
		{"gemini", `{"noSuchSetting": true}`},
	} {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(tc.doc)))
		if err != nil {
			t.Fatal(err)
		}
		if schemas[tc.agent].Validate(v) == nil {
			t.Errorf("%s schema accepts %s", tc.agent, tc.doc)
		}
	}
}
