package hookinstall

import (
	"encoding/json"
	"github.com/hall-dev/hall/internal/hook"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// claudeSettings is a user's settings file with foreign settings and hooks.
const claudeSettings = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(go test:*)"], "deny": ["Read(./.env)"]},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "gofmt -w \"$CLAUDE_FILE\""}]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send claude"}]}]
  },
  "env": {"FOO": "bar"}
}
`

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func install(t *testing.T, o Options) Result {
	t.Helper()
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(res, time.Unix(1764489600, 0)); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestInstallKeepsForeignSettingsAndIsIdempotent: the Hall's hooks join a
// settings file with its own hooks and settings, all kept in order; a
// second install changes nothing (no write, no backup); uninstall gives
// back the user's hooks.
func TestInstallKeepsForeignSettingsAndIsIdempotent(t *testing.T) {
	file := filepath.Join(t.TempDir(), ".claude", "settings.json")
	write(t, file, claudeSettings)
	o := Options{Agent: "claude", File: file}

	res := install(t, o)
	if !res.Changed || len(res.Changes) != len(mustSpec(t, "claude").Events) {
		t.Fatalf("first install: changed %v, %d changes: %v", res.Changed, len(res.Changes), res.Changes)
	}
	backups, _ := filepath.Glob(file + ".hall-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups: %v, want one", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != claudeSettings {
		t.Errorf("backup holds %q, want the original", b)
	}
	got, _ := os.ReadFile(file)
	doc := string(got)
	for path, want := range map[string]string{
		"model":                                "opus",
		"permissions.deny.0":                   "Read(./.env)",
		"env.FOO":                              "bar",
		"hooks.PostToolUse.0.matcher":          "Edit|Write",
		"hooks.PostToolUse.0.hooks.0.command":  `gofmt -w "$CLAUDE_FILE"`,
		"hooks.PostToolUse.1.hooks.0.command":  "hall beat --hook claude",
		"hooks.Notification.0.hooks.0.command": "notify-send claude",
		"hooks.SessionStart.0.hooks.0.command": "hall beat --hook claude",
		"hooks.PreToolUse.0.hooks.0.type":      "command",
	} {
		if v := gjson.Get(doc, path).String(); v != want {
			t.Errorf("%s = %q, want %q\n%s", path, v, want, doc)
		}
	}
	// Key order survives: the user's keys first, as they were.
	keys := []string{}
	gjson.Parse(doc).ForEach(func(k, _ gjson.Result) bool { keys = append(keys, k.String()); return true })
	if strings.Join(keys, ",") != "model,permissions,hooks,env" {
		t.Errorf("top-level keys %v, want the original order", keys)
	}
	if gjson.Get(doc, "hooks.PreToolUse.0.matcher").Exists() {
		t.Errorf("the Hall's PreToolUse hook has a matcher: it must see every tool")
	}

	// Again: nothing to do.
	res = install(t, o)
	if res.Changed {
		t.Errorf("second install changed the file: %v", res.Changes)
	}
	for _, c := range res.Changes {
		if c.Action != "keep" {
			t.Errorf("second install: %v", c)
		}
	}
	if again, _ := os.ReadFile(file); string(again) != doc {
		t.Errorf("second install rewrote the file")
	}
	if backups, _ := filepath.Glob(file + ".hall-backup-*"); len(backups) != 1 {
		t.Errorf("second install made a backup: %v", backups)
	}

	// Switching to ask replaces the Hall's entries, never adds twice.
	o.OnCollision = "ask"
	install(t, o)
	got, _ = os.ReadFile(file)
	if n := strings.Count(string(got), "beat --hook claude"); n != len(mustSpec(t, "claude").Events) {
		t.Errorf("after switching to ask: %d Hall hooks, want one per event", n)
	}
	if !strings.Contains(string(got), "--on-collision ask") {
		t.Errorf("ask not installed:\n%s", got)
	}

	// Uninstall: the user's hooks and settings are all that is left.
	res, err := Uninstall(Options{Agent: "claude", File: file})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(res, time.Unix(1764489700, 0)); err != nil {
		t.Fatal(err)
	}
	// Byte for byte: the person's spacing and order are theirs.
	got, _ = os.ReadFile(file)
	if string(got) != claudeSettings {
		t.Errorf("after uninstall:\n%s\nwant the original, byte for byte\n%s", got, claudeSettings)
	}
	// Uninstalling again changes nothing.
	if res, _ := Uninstall(Options{Agent: "claude", File: file}); res.Changed {
		t.Errorf("second uninstall: %v", res.Changes)
	}
}

func TestInstallHTTPClaude(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.json")
	res := install(t, Options{Agent: "claude", File: file, HTTP: true, HallURL: "http://127.0.0.1:9999/", OnCollision: "ask"})
	if res.Existed || !res.Changed {
		t.Fatalf("new file: %+v", res)
	}
	doc, _ := os.ReadFile(file)
	d := string(doc)
	if got := gjson.Get(d, "hooks.PreToolUse.0.hooks.0"); got.Get("type").String() != "http" ||
		got.Get("url").String() != "http://127.0.0.1:9999/api/hooks/claude?on_collision=ask" ||
		got.Get("headers.Authorization").String() != "Bearer $HALL_TOKEN" || got.Get("allowedEnvVars.0").String() != "HALL_TOKEN" {
		t.Errorf("PreToolUse http hook: %s", got.Raw)
	}
	// SessionStart runs command hooks only.
	if got := gjson.Get(d, "hooks.SessionStart.0.hooks.0"); got.Get("type").String() != "command" ||
		got.Get("command").String() != "hall beat --hook claude --hall http://127.0.0.1:9999 --on-collision ask" {
		t.Errorf("SessionStart hook: %s", got.Raw)
	}
	// Going back to command hooks (--http given as false) replaces the
	// http ones.
	install(t, Options{Agent: "claude", File: file, Given: Given{HTTP: true}})
	doc, _ = os.ReadFile(file)
	if strings.Contains(string(doc), "/api/hooks/") {
		t.Errorf("http hooks left after a command install:\n%s", doc)
	}
}

// TestInstallLeanHook: with the lean hook as the command, each agent's
// entries run `hall-hook <agent>` (by name or by path); they are the
// Hall's own, so switching between hall-hook and hall beat --hook replaces
// them in place, a second install changes nothing, and uninstall takes
// them out. Another program whose name merely starts the same is left.
func TestInstallLeanHook(t *testing.T) {
	for _, c := range []struct{ agent, command, want, path string }{
		{"claude", "hall-hook", "hall-hook claude --on-collision ask", "hooks.PreToolUse.0.hooks.0.command"},
		{"codex", "/opt/hall/bin/hall-hook", "/opt/hall/bin/hall-hook codex --on-collision ask", "hooks.PreToolUse.0.hooks.0.command"},
		{"cursor", "hall-hook", "hall-hook cursor --on-collision ask", "hooks.preToolUse.0.command"},
		{"gemini", "hall-hook", "hall-hook gemini --on-collision ask", "hooks.BeforeTool.0.hooks.0.command"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			file, _ := ConfigFile(c.agent, t.TempDir(), false, "", false)
			write(t, file, `{"hooks":{}}`)
			install(t, Options{Agent: c.agent, File: file, Command: c.command, OnCollision: "ask"})
			doc, _ := os.ReadFile(file)
			if got := gjson.Get(string(doc), c.path).String(); got != c.want {
				t.Fatalf("%s: %q, want %q\n%s", c.path, got, c.want, doc)
			}
			if res, _ := Install(Options{Agent: c.agent, File: file, Command: c.command, OnCollision: "ask"}); res.Changed {
				t.Errorf("second install: %v", res.Changes)
			}
			res := install(t, Options{Agent: c.agent, File: file, OnCollision: "ask", Given: Given{Command: true}})
			doc, _ = os.ReadFile(file)
			if strings.Contains(string(doc), "hall-hook") || !strings.Contains(string(doc), "hall beat --hook "+c.agent) {
				t.Errorf("back to hall beat --hook:\n%s", doc)
			}
			for _, ch := range res.Changes {
				if ch.Action != "replace" {
					t.Errorf("back to hall beat --hook: %v, want each entry replaced", ch)
				}
			}
			install(t, Options{Agent: c.agent, File: file, Command: c.command, Given: Given{Command: true, OnCollision: true}})
			if res, err := Uninstall(Options{Agent: c.agent, File: file}); err != nil || !res.Changed || strings.Contains(string(res.After), "hall") {
				t.Errorf("uninstall: %v\n%s", err, res.After)
			}
		})
	}
	if !IsLean("/usr/local/bin/hall-hook") || IsLean("hall") || IsLean("hall-hooked") || IsLean("my-hall-hook") {
		t.Error("IsLean reads the base name")
	}
	foreign := []byte(`{"type":"command","command":"hall-hook-audit claude"}`)
	if isHall(foreign, "claude") {
		t.Error("hall-hook-audit is taken for the Hall's hook")
	}
}

func TestInstallCodexAndCursor(t *testing.T) {
	dir := t.TempDir()
	codexFile, _ := ConfigFile("codex", dir, false, "", false)
	res := install(t, Options{Agent: "codex", File: codexFile, HTTP: true, OnCollision: "ask"})
	doc, _ := os.ReadFile(codexFile)
	notes := strings.Join(res.Notes, " ")
	// Hooks are on by default in Codex (codex_hooks is a deprecated alias):
	// the step that matters is trusting them in /hooks; and Codex is never
	// asked.
	if gjson.Get(string(doc), "hooks.PreToolUse.0.hooks.0.command").String() != "hall beat --hook codex --on-collision ask" ||
		len(res.Notes) != 3 || !strings.Contains(notes, "/hooks") || !strings.Contains(notes, "warned, never asked") || strings.Contains(notes, "codex_hooks") {
		t.Errorf("codex: notes %q\n%s", res.Notes, doc)
	}

	cursorFile, _ := ConfigFile("cursor", dir, false, "", false)
	write(t, cursorFile, `{"version":1,"hooks":{"afterFileEdit":[{"command":"./format.sh"}]}}`)
	install(t, Options{Agent: "cursor", File: cursorFile})
	doc, _ = os.ReadFile(cursorFile)
	d := string(doc)
	if gjson.Get(d, "version").Int() != 1 || gjson.Get(d, "hooks.afterFileEdit.0.command").String() != "./format.sh" ||
		gjson.Get(d, "hooks.afterFileEdit.1.command").String() != "hall beat --hook cursor" ||
		gjson.Get(d, "hooks.preToolUse.0.command").String() != "hall beat --hook cursor" {
		t.Errorf("cursor:\n%s", d)
	}
	if res, _ := Install(Options{Agent: "cursor", File: cursorFile}); res.Changed {
		t.Errorf("cursor second install: %v", res.Changes)
	}
	if strings.Contains(d, "allow") {
		t.Errorf("cursor config mentions allow:\n%s", d)
	}
}

func TestInstallRefusesWhatItCannotMerge(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"not-json.json":   "{model: opus",
		"array.json":      "[]",
		"hooks-list.json": `{"hooks": []}`,
		"event-obj.json":  `{"hooks": {"PreToolUse": {"hooks": []}}}`,
	} {
		file := filepath.Join(dir, name)
		write(t, file, content)
		if _, err := Install(Options{Agent: "claude", File: file}); err == nil {
			t.Errorf("%s: installed into %q", name, content)
		}
		if b, _ := os.ReadFile(file); string(b) != content {
			t.Errorf("%s: changed", name)
		}
	}
	if _, err := Install(Options{Agent: "aider", File: filepath.Join(dir, "x.json")}); err == nil {
		t.Error("unknown agent accepted")
	}
	if _, err := Install(Options{Agent: "claude", File: filepath.Join(dir, "x.json"), OnCollision: "deny"}); err == nil {
		t.Error("on-collision deny accepted")
	}
}

func TestConfigFile(t *testing.T) {
	for _, tc := range []struct {
		agent        string
		user, shared bool
		want         string
	}{
		{"claude", false, false, "/p/.claude/settings.local.json"}, // personal by default
		{"claude", false, true, "/p/.claude/settings.json"},
		{"claude", true, false, "/home/ana/.claude/settings.json"},
		{"codex", false, false, "/p/.codex/hooks.json"},
		{"codex", false, true, "/p/.codex/hooks.json"}, // one project file
		{"cursor", true, false, "/home/ana/.cursor/hooks.json"},
		{"gemini", false, false, "/p/.gemini/settings.json"},
		{"gemini", true, false, "/home/ana/.gemini/settings.json"},
	} {
		if got, err := ConfigFile(tc.agent, "/p", tc.user, "/home/ana", tc.shared); err != nil || got != tc.want {
			t.Errorf("ConfigFile(%s, user %v, shared %v) = %q, %v; want %q", tc.agent, tc.user, tc.shared, got, err, tc.want)
		}
	}
	if _, err := ConfigFile("aider", "/p", false, "", false); err == nil {
		t.Error("unknown agent accepted")
	}
}

func TestWritePreservesMode(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.json")
	write(t, file, `{}`)
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	install(t, Options{Agent: "claude", File: file})
	fi, _ := os.Stat(file)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	var v map[string]any
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Errorf("written file is not JSON: %v", err)
	}
}

// mustSpec is agent's install spec from the registry.
func mustSpec(t *testing.T, agent string) hook.Install {
	t.Helper()
	s, ok := spec(agent)
	if !ok {
		t.Fatalf("no spec for %q", agent)
	}
	return s
}
