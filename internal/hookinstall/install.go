// Package hookinstall writes the Hall's hooks into an agent's own hook
// configuration (Claude Code's .claude/settings.json, Codex's
// .codex/hooks.json, Cursor's .cursor/hooks.json) and takes them out again.
//
// It merges: the file's other settings and other hooks are kept, in their
// order; only the Hall's own entries (a command running `beat --hook
// <agent>` or `hall-hook <agent>`, or an HTTP hook to /api/hooks/<agent>)
// are added, replaced or removed. A second install changes nothing. The caller writes the result
// (Write keeps a backup of the file it replaces) or only prints it (a dry
// run). The JSON is edited in place with tidwall/sjson, so key order
// survives; the file is then indented with two spaces.
package hookinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/safefile"
	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
	"github.com/tidwall/sjson"
)

// hookTimeout is the seconds an agent gives one Hall hook; the hook itself
// gives up on the Hall after 2 s and carries on.
const hookTimeout = 5

// Options says what to install, and where.
type Options struct {
	Agent string // "claude", "codex" or "cursor"
	File  string // the agent's hook configuration file
	// Command is what a command hook runs: "hall" (hall beat --hook
	// <agent>, the default when empty) or the lean hall-hook (hall-hook
	// <agent>), by name on PATH or by path. Its base name says which.
	Command string
	// HTTP wires HTTP hooks where the agent has them (Claude Code, all
	// events but SessionStart, which runs command hooks only).
	HTTP bool
	// HallURL is the Hall the hooks talk to; cli.DefaultURL when empty.
	HallURL string
	// OnCollision is "ask" to ask before a mutating tool runs while in a
	// collision; "" or "warn" to warn only.
	OnCollision string
}

// Change is one line of the summary.
type Change struct {
	Event  string
	Action string // "add", "keep", "replace" or "remove"
	Hook   string // the command or URL
}

func (c Change) String() string {
	mark := map[string]string{"add": "+", "keep": "=", "replace": "~", "remove": "-"}[c.Action]
	return fmt.Sprintf("%s %s: %s", mark, c.Event, c.Hook)
}

// Result is what an install or uninstall would do to one file.
type Result struct {
	File    string
	Existed bool
	Before  []byte // the file as it is (nil when absent)
	After   []byte // the file as it would be
	Changed bool   // After differs from Before: a write is due
	Changes []Change
	Notes   []string // what the person should know (a feature flag, http not supported…)
}

// agentSpec is how one agent's configuration holds hooks.
type agentSpec struct {
	events []string // the events the Hall hooks, in order
	// grouped: hooks.<event> is a list of {matcher?, hooks: [handler…]}
	// (Claude Code, Codex); else a flat list of handlers (Cursor).
	grouped bool
	http    func(event string) bool // the agent runs HTTP hooks for event
	notes   []string
}

var specs = map[string]agentSpec{
	"claude": {
		events:  []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStart", "SubagentStop", "SessionEnd"},
		grouped: true,
		http:    func(ev string) bool { return ev != "SessionStart" }, // SessionStart runs command hooks only
	},
	"codex": {
		events:  []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStart", "SubagentStop"},
		grouped: true,
		http:    func(string) bool { return false },
		notes:   []string{"Codex runs hooks only with `[features] codex_hooks = true` in its config.toml."},
	},
	"cursor": {
		events: []string{"sessionStart", "sessionEnd", "beforeSubmitPrompt", "preToolUse", "postToolUse", "afterFileEdit", "stop"},
		http:   func(string) bool { return false },
	},
}

// Agents lists the agents this package configures.
func Agents() []string { return []string{"claude", "codex", "cursor"} }

// ConfigFile is the agent's hook configuration in a project (dir) or, with
// user, in home.
func ConfigFile(agent, dir string, user bool, home string) (string, error) {
	rel := map[string]string{
		"claude": filepath.Join(".claude", "settings.json"),
		"codex":  filepath.Join(".codex", "hooks.json"),
		"cursor": filepath.Join(".cursor", "hooks.json"),
	}[agent]
	if rel == "" {
		return "", fmt.Errorf("unknown agent %q: want one of %s", agent, strings.Join(Agents(), ", "))
	}
	base := dir
	if user {
		base = home
	}
	abs, err := filepath.Abs(base)
	if err != nil {
		return "", fmt.Errorf("config folder: %w", err)
	}
	return filepath.Join(abs, rel), nil
}

// maxSettings bounds the settings file read: an agent's settings are a few
// KiB.
const maxSettings = 4 << 20

// Install returns the file with the Hall's hooks in it.
func Install(o Options) (Result, error) { return edit(o, true) }

// Uninstall returns the file with the Hall's hooks taken out.
func Uninstall(o Options) (Result, error) { return edit(o, false) }

func edit(o Options, install bool) (Result, error) {
	spec, ok := specs[o.Agent]
	if !ok {
		return Result{}, fmt.Errorf("unknown agent %q: want one of %s", o.Agent, strings.Join(Agents(), ", "))
	}
	if o.OnCollision != "" && o.OnCollision != "warn" && o.OnCollision != "ask" {
		return Result{}, fmt.Errorf("on-collision %q: want warn or ask", o.OnCollision)
	}
	res := Result{File: o.File}
	// The settings file may be a link (a dotfiles repository), never a
	// FIFO or a device: read through safefile, so a wrong path answers
	// at once instead of waiting on it.
	before, err := safefile.ReadFile(o.File, maxSettings, safefile.Follow)
	switch {
	case err == nil:
		res.Existed, res.Before = true, before
	case errors.Is(err, os.ErrNotExist):
	default:
		return Result{}, fmt.Errorf("read %s: %w", o.File, err)
	}
	doc := string(before)
	if strings.TrimSpace(doc) == "" {
		doc = "{}"
		if o.Agent == "cursor" {
			doc = `{"version":1}`
		}
	}
	if !gjson.Valid(doc) || !gjson.Parse(doc).IsObject() {
		return Result{}, fmt.Errorf("%s is not a JSON object: fix or move it, nothing was changed", o.File)
	}
	if h := gjson.Get(doc, "hooks"); h.Exists() && !h.IsObject() {
		return Result{}, fmt.Errorf("%s: \"hooks\" is not an object: nothing was changed", o.File)
	}
	if install {
		res.Notes = append(res.Notes, spec.notes...)
		if o.HTTP && o.Agent != "claude" {
			res.Notes = append(res.Notes, fmt.Sprintf("%s runs command hooks only: --http installs command hooks.", o.Agent))
		}
	}

	for _, ev := range spec.events {
		var want string // the handler to install, as JSON; "" to remove only
		if install {
			want = handler(o, spec, ev)
		}
		doc, err = editEvent(doc, o.Agent, spec.grouped, ev, want, &res.Changes)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", o.File, err)
		}
	}
	// Events the Hall no longer hooks keep no entry of the Hall's.
	for ev := range gjson.Get(doc, "hooks").Map() {
		if !contains(spec.events, ev) {
			doc, err = editEvent(doc, o.Agent, spec.grouped, ev, "", &res.Changes)
			if err != nil {
				return Result{}, fmt.Errorf("%s: %w", o.File, err)
			}
		}
	}
	// An uninstall that emptied "hooks" takes the key out too.
	if h := gjson.Get(doc, "hooks"); !install && len(res.Changes) > 0 && h.IsObject() && len(h.Map()) == 0 {
		doc, _ = sjson.Delete(doc, "hooks")
	}

	after := pretty.PrettyOptions([]byte(doc), &pretty.Options{Width: 80, Prefix: "", Indent: "  ", SortKeys: false})
	res.After = after
	res.Changed = !res.Existed || !sameJSON(res.Before, after)
	if !install && !res.Existed {
		res.Changed = false
	}
	return res, nil
}

// editEvent makes hooks.<ev> hold exactly one Hall handler equal to want
// (none when want is ""), keeping every other entry where it is.
func editEvent(doc, agent string, grouped bool, ev, want string, changes *[]Change) (string, error) {
	path := "hooks." + escape(ev)
	list := gjson.Get(doc, path)
	if list.Exists() && !list.IsArray() {
		return "", fmt.Errorf("hooks.%s is not a list", ev)
	}
	type at struct{ group, hook int }
	var ours []at
	var oursJSON []string
	groupSizes := map[int]int{}
	for gi, g := range list.Array() {
		if !grouped {
			if isHall(g, agent) {
				ours = append(ours, at{gi, -1})
				oursJSON = append(oursJSON, g.Raw)
			}
			continue
		}
		hs := g.Get("hooks").Array()
		groupSizes[gi] = len(hs)
		for hi, h := range hs {
			if isHall(h, agent) {
				ours = append(ours, at{gi, hi})
				oursJSON = append(oursJSON, h.Raw)
			}
		}
	}
	// Already exactly right: one Hall handler, alone in its group (with
	// no matcher), equal to want.
	if want != "" && len(ours) == 1 && sameJSON([]byte(oursJSON[0]), []byte(want)) &&
		(!grouped || (groupSizes[ours[0].group] == 1 && !list.Array()[ours[0].group].Get("matcher").Exists())) {
		*changes = append(*changes, Change{ev, "keep", describe(want)})
		return doc, nil
	}
	// Take the Hall's handlers out, last first so indexes hold; a group
	// left empty goes too.
	var err error
	for i := len(ours) - 1; i >= 0; i-- {
		o := ours[i]
		if !grouped {
			doc, err = sjson.Delete(doc, fmt.Sprintf("%s.%d", path, o.group))
		} else if groupSizes[o.group] == 1 {
			doc, err = sjson.Delete(doc, fmt.Sprintf("%s.%d", path, o.group))
		} else {
			doc, err = sjson.Delete(doc, fmt.Sprintf("%s.%d.hooks.%d", path, o.group, o.hook))
			groupSizes[o.group]--
		}
		if err != nil {
			return "", err
		}
		if want == "" {
			*changes = append(*changes, Change{ev, "remove", describe(oursJSON[i])})
		}
	}
	if want == "" {
		if l := gjson.Get(doc, path); l.Exists() && len(l.Array()) == 0 && len(ours) > 0 {
			doc, err = sjson.Delete(doc, path)
		}
		return doc, err
	}
	entry := want
	if grouped {
		entry = `{"hooks":[` + want + `]}`
	}
	doc, err = sjson.SetRaw(doc, path+".-1", entry)
	if err != nil {
		return "", err
	}
	action := "add"
	if len(ours) > 0 {
		action = "replace"
	}
	*changes = append(*changes, Change{ev, action, describe(want)})
	return doc, nil
}

// isHall reports whether a handler is one of the Hall's for agent.
func isHall(h gjson.Result, agent string) bool {
	cmd := h.Get("command").String()
	if strings.Contains(cmd, "beat --hook "+agent) {
		return true
	}
	if f := strings.Fields(cmd); len(f) >= 2 && IsLean(strings.Trim(f[0], `'"`)) && f[1] == agent {
		return true
	}
	u := h.Get("url").String()
	return u != "" && strings.Contains(u, "/api/hooks/"+agent)
}

// handler is the Hall's handler for ev, as JSON.
func handler(o Options, spec agentSpec, ev string) string {
	hall := strings.TrimRight(o.HallURL, "/")
	if o.HTTP && spec.http(ev) {
		if hall == "" {
			hall = cli.DefaultURL
		}
		u := hall + "/api/hooks/" + url.PathEscape(o.Agent)
		if o.OnCollision == "ask" {
			u += "?on_collision=ask"
		}
		return mustJSON(httpHandler{
			Type: "http", URL: u, Timeout: hookTimeout,
			Headers:        map[string]string{"Authorization": "Bearer $HALL_TOKEN"},
			AllowedEnvVars: []string{"HALL_TOKEN"},
		})
	}
	cmd := o.Command
	if cmd == "" {
		cmd = "hall"
	}
	if IsLean(cmd) {
		cmd += " " + o.Agent
	} else {
		cmd += " beat --hook " + o.Agent
	}
	if hall != "" && hall != cli.DefaultURL {
		cmd += " --hall " + shellQuote(hall)
	}
	if o.OnCollision == "ask" {
		cmd += " --on-collision ask"
	}
	if !spec.grouped {
		return mustJSON(commandHandler{Command: cmd})
	}
	return mustJSON(commandHandler{Type: "command", Command: cmd, Timeout: hookTimeout})
}

// Lean is the lean command hook's name (cmd/hall-hook).
const Lean = "hall-hook"

// IsLean reports whether command runs the lean command hook, by its base
// name.
func IsLean(command string) bool {
	return filepath.Base(command) == Lean
}

// The handlers, fields in the order a person reads them.
type (
	commandHandler struct {
		Type    string `json:"type,omitempty"`
		Command string `json:"command"`
		Timeout int    `json:"timeout,omitempty"`
	}
	httpHandler struct {
		Type           string            `json:"type"`
		URL            string            `json:"url"`
		Timeout        int               `json:"timeout"`
		Headers        map[string]string `json:"headers"`
		AllowedEnvVars []string          `json:"allowedEnvVars"`
	}
)

// describe names a handler for the summary: its command or URL.
func describe(raw string) string {
	h := gjson.Parse(raw)
	if c := h.Get("command"); c.Exists() {
		return c.String()
	}
	return "http " + h.Get("url").String()
}

// Write writes res.After over res.File, after copying the file it
// replaces to a backup beside it; it returns the backup's path ("" when
// there was no file). Nothing is written when nothing changed.
func Write(res Result, now time.Time) (backup string, err error) {
	if !res.Changed {
		return "", nil
	}
	if err := os.MkdirAll(filepath.Dir(res.File), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(res.File), err)
	}
	mode := os.FileMode(0o644)
	if res.Existed {
		if fi, err := os.Stat(res.File); err == nil {
			mode = fi.Mode().Perm()
		}
		backup = res.File + ".hall-backup-" + now.UTC().Format("20060102T150405Z")
		if err := os.WriteFile(backup, res.Before, mode); err != nil {
			return "", fmt.Errorf("back up %s: %w", res.File, err)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(res.File), "."+filepath.Base(res.File)+".tmp-*")
	if err != nil {
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(res.After); err != nil {
		tmp.Close()
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	if err := tmp.Close(); err != nil {
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	if err := os.Rename(tmp.Name(), res.File); err != nil {
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	return backup, nil
}

// sameJSON reports whether two documents hold the same JSON values (key
// order counts: it is what a person sees).
func sameJSON(a, b []byte) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// escape makes an event name one sjson/gjson path component.
func escape(s string) string {
	r := strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`, "|", `\|`, "#", `\#`, "@", `\@`)
	return r.Replace(s)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
