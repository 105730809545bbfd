// Package hookinstall writes the Hall's hooks into an agent's own hook
// configuration (Claude Code's .claude/settings.local.json or
// settings.json, Codex's .codex/hooks.json, Cursor's .cursor/hooks.json,
// Gemini CLI's .gemini/settings.json) and takes them out again.
//
// It merges without losing anything: the file is edited as bytes, and only
// the Hall's own entries (exactly what an install writes: hallOptions)
// are spliced in or out; every other key, value, order and space stays
// as it was, and a hook that only looks like the Hall's is left alone. A
// key is data, compared by its decoded name, never a path expression. A
// file that is not strict JSON (a comment, a trailing comma) or that
// repeats a key is refused with the place of the fault and left alone. A
// second install changes nothing, and keeps the flags the installed hooks
// carry unless they are given again.
//
// Write replaces the file atomically (a temporary file beside it, then a
// rename), after a backup created exclusively under a fresh name, and
// only if the file is still what was read: a concurrent writer's change
// is never overwritten (ErrChanged). A file that is a symbolic link or
// read-only is written only when forced (ErrForce); a link is then
// replaced, never written through. Every write goes through an os.Root
// on Options.Root (the project, the home): a folder link leading out of
// it is refused (LinkOutError), forced past only for the person's own
// (Options.User).
//
// What each agent can carry (which events reach the model, the ask, the
// trust step) is internal/hook's capability table; this package follows
// it.
//
// The files it writes into a project (ProjectFiles, and the backups
// beside them) are the Hall's configuration, nobody's work: Installed is
// the one list the overlaps, the scanner and the shell guard leave out,
// and Exclude lists them in the repository's .git/info/exclude when the
// person asks (--git-exclude).
package hookinstall

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/cli"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/jsonspan"
	"github.com/hall-dev/hall/internal/shellword"
	"mvdan.cc/sh/v3/shell"
)

// hookTimeout is the seconds an agent gives one Hall hook; the hook itself
// gives up on the Hall after 2 s and carries on.
const hookTimeout = 5

// Options says what to install, and where.
type Options struct {
	Agent string // "claude", "codex", "cursor" or "gemini"
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
	// Given says which of the flags above the person gave; an install
	// keeps the installed hooks' value of every other one.
	Given Given
	// Force writes a file that is a symbolic link (replaced by a regular
	// file) or read-only (its mode kept); without it Write refuses them.
	// For the person's own file (User) it also follows a folder link
	// leading out of Root.
	Force bool
	// Root is the folder every write stays beneath (the project's root;
	// the home, for User): a folder between it and File that is a
	// symbolic link leading out of it is refused (LinkOutError), and
	// Write resolves every name beneath it through an os.Root. Empty:
	// the file's own folder, made as named when missing.
	Root string
	// User: File is in the person's home (--user), where the person made
	// any link: Force follows a folder link out of Root. A project's
	// link (a repository can commit one) is never followed out.
	User bool
}

// Given marks the flags given on the command line.
type Given struct {
	Command, HTTP, HallURL, OnCollision bool
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
	File string // the file as named, and written
	// Root is the folder every write stays beneath (Options.Root; with
	// User and Force past a folder link, the folder it leads to).
	Root string
	rel  string // File's name beneath Root
	// Link is where File points when it is a symbolic link ("" when it
	// is none): Before is what the link leads to, and a forced write
	// replaces the link with a regular file.
	Link    string
	Mode    os.FileMode // the permissions File has, and keeps
	Existed bool        // there is a file (through a link: at its end)
	Before  []byte      // the file as it is (nil when absent)
	After   []byte      // the file as it would be
	Changed bool        // a write is due
	// Refused says why Write will not write without Options.Force (the
	// file is a link, or read-only); "" when it will.
	Refused string
	// Remove: the uninstall left the file as the installer starts one
	// (the Hall wrote all of it): Write removes it.
	Remove  bool
	Changes []Change
	Notes   []string // what the person should know (the trust step, a policy that degrades…)
	// Kept are the flags read back from the installed hooks, for the
	// summary ("--on-collision ask").
	Kept []string
	// Options are the options installed, the kept flags included.
	Options Options
}

// spec is how agent's configuration holds the Hall's hooks: its entry in
// the hook package's registry, the one list of agents (hook.SpecOf).
func spec(agent string) (hook.Install, bool) {
	s, ok := hook.SpecOf(agent)
	return s.Install, ok
}

// timeoutOf is hookTimeout in the agent's unit (0: it takes none).
func timeoutOf(i hook.Install) int {
	if i.Unit <= 0 {
		return 0
	}
	return int(hookTimeout * time.Second / i.Unit)
}

// Agents lists the agents this package configures: every registered one.
func Agents() []string { return hook.Agents() }

func unknownAgent(agent string) error {
	return fmt.Errorf("unknown agent %q: want one of %s", agent, strings.Join(Agents(), ", "))
}

// ConfigFile is the agent's hook configuration in the project at root or,
// with user, in home. For Claude Code a project's file is the personal
// .claude/settings.local.json unless shared asks for the committed
// .claude/settings.json.
func ConfigFile(agent, root string, user bool, home string, shared bool) (string, error) {
	capa, ok := hook.CapabilityOf(agent)
	if _, known := spec(agent); !ok || !known {
		return "", unknownAgent(agent)
	}
	base, rel := root, capa.ProjectFile
	switch {
	case user:
		base, rel = home, strings.TrimPrefix(capa.UserFile, "~/")
	case shared && capa.SharedProjectFile != "":
		rel = capa.SharedProjectFile
	}
	abs, err := filepath.Abs(base)
	if err != nil {
		return "", fmt.Errorf("config folder: %w", err)
	}
	return filepath.Join(abs, filepath.FromSlash(rel)), nil
}

// ConfigFiles are every file of agent's hooks the Hall may have written,
// for a project at root (both of Claude Code's) and the user in home.
func ConfigFiles(agent, root, home string) []string {
	var out []string
	for _, c := range []struct{ user, shared bool }{{false, false}, {false, true}, {true, false}} {
		if c.user && home == "" || !c.user && root == "" {
			continue
		}
		if f, err := ConfigFile(agent, root, c.user, home, c.shared); err == nil && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// Install returns the file with the Hall's hooks in it.
func Install(o Options) (Result, error) { return edit(o, true) }

// Uninstall returns the file with the Hall's hooks taken out.
func Uninstall(o Options) (Result, error) { return edit(o, false) }

// HasHall reports whether file holds any of the Hall's hooks for agent.
func HasHall(agent, file string) (bool, error) {
	if _, ok := spec(agent); !ok {
		return false, unknownAgent(agent)
	}
	_, b, existed, _, err := read(file)
	if err != nil || !existed {
		return false, err
	}
	if err := checkDoc(b); err != nil {
		return false, nil // not the Hall's to judge here: install names it
	}
	spec, _ := spec(agent)
	for _, ev := range hallEvents(b, spec) {
		if _, ok := findHall(b, agent, spec.Grouped, ev); ok {
			return true, nil
		}
	}
	return false, nil
}

// hallEvents are the events of doc whose lists may hold the Hall's
// entries: the ones it hooks for the agent, then every other under
// "hooks" (an event the Hall no longer hooks keeps none of its entries).
// Uninstall takes the Hall's entries out of all of them, and HasHall
// looks in all of them.
func hallEvents(doc []byte, spec hook.Install) []string {
	events := slices.Clone(spec.Events)
	if _, hs, ok := hooksMembers(doc); ok {
		for _, m := range hs {
			if !slices.Contains(events, m.key) {
				events = append(events, m.key)
			}
		}
	}
	return events
}

func edit(o Options, install bool) (Result, error) {
	spec, ok := spec(o.Agent)
	if !ok {
		return Result{}, unknownAgent(o.Agent)
	}
	if o.OnCollision != "" && o.OnCollision != "warn" && o.OnCollision != "ask" {
		return Result{}, fmt.Errorf("on-collision %q: want warn or ask", o.OnCollision)
	}
	if o.Command != "" {
		if err := CheckCommand(o.Command); err != nil {
			return Result{}, err
		}
	}
	capa, _ := hook.CapabilityOf(o.Agent)
	// The folders first: nothing is read through a link out of the root.
	root, rel, note, err := rootFor(o)
	if err != nil {
		return Result{}, err
	}
	link, before, existed, perm, err := read(o.File)
	if err != nil {
		return Result{}, err
	}
	res := Result{File: o.File, Root: root, rel: rel, Link: link, Mode: perm, Existed: existed, Before: before}
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	doc := before
	if len(strings.TrimSpace(string(doc))) == 0 {
		doc = fresh(o.Agent, spec)
	}
	if err := checkDoc(doc); err != nil {
		return Result{}, fmt.Errorf("%s: %w: fix it by hand; nothing was changed", o.File, err)
	}
	if err := checkShape(doc, spec); err != nil {
		return Result{}, fmt.Errorf("%s: %w: nothing was changed", o.File, err)
	}

	if install {
		o, res.Kept = keep(o, doc)
		if o.HTTP && o.Agent != "claude" {
			res.Notes = append(res.Notes, fmt.Sprintf("%s runs command hooks only: --http installs command hooks.", capa.Product))
		}
		if o.OnCollision == "ask" && len(capa.AskEvents) == 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s does not honour an ask: under --on-collision ask it is warned, never asked.", capa.Product))
		}
		if capa.Trust != "" {
			res.Notes = append(res.Notes, capa.Trust)
		}
	}
	res.Options = o

	for _, ev := range hallEvents(doc, spec) {
		var want any // the Hall's entry for ev; nil to remove only
		if install && slices.Contains(spec.Events, ev) {
			want = entry(o, spec, ev)
		}
		doc = editEvent(doc, o.Agent, spec.Grouped, ev, want, &res.Changes)
	}
	// An uninstall that emptied "hooks" takes the key out too.
	if _, hs, ok := hooksMembers(doc); ok && !install && len(res.Changes) > 0 && len(hs) == 0 {
		open, close, ms := members(doc, jsonspan.SkipSpace(doc, 0))
		_, i, _ := find(ms, "hooks")
		doc = removeItem(doc, open, close, memberSpans(ms), i)
	}

	if !json.Valid(doc) {
		// The splices keep a valid document; this guards the person's file
		// should one ever not.
		return Result{}, fmt.Errorf("%s: the edit would not be valid JSON (a bug in hall hooks): nothing was changed", o.File)
	}
	res.After = doc
	switch {
	case !install && !existed:
		res.Changed = false
	case !install && len(res.Changes) > 0 && string(doc) == string(fresh(o.Agent, spec)) && link == "":
		// The uninstall gave back the installer's empty file, byte for
		// byte: the Hall wrote all of it, and it goes. A file anybody
		// else wrote in (a key, a space) stays, emptied, after a backup.
		res.Changed, res.Remove = true, true
	default:
		res.Changed = !existed || !sameJSON(before, doc)
	}
	if res.Changed && !o.Force {
		res.Refused = refusal(res)
	}
	return res, nil
}

// fresh is the file the installer starts from where there is none: the
// agent's empty configuration.
func fresh(agent string, spec hook.Install) []byte {
	if agent == "cursor" {
		return []byte("{\n  \"version\": 1\n}\n")
	}
	return []byte(spec.Empty + "\n")
}

// refusal says why a write of res needs --force: a symbolic link (an
// edit through it would write wherever it leads, maybe another
// program's file: a repository can commit such a link) or a read-only
// file (somebody made it so); "" when it needs none.
func refusal(res Result) string {
	switch {
	case res.Link != "":
		return fmt.Sprintf("it is a symbolic link to %s, and the Hall edits no file through a link (it may be another program's); --force replaces the link with a regular file holding what it leads to and the Hall's change (the link kept as the backup), or make the change in %s yourself (--dry-run shows it)", res.Link, res.Link)
	case res.Existed && res.Mode&0o200 == 0:
		return fmt.Sprintf("it is read-only (mode %#o); --force writes it, keeping the mode", res.Mode)
	}
	return ""
}

// checkShape refuses a file whose "hooks" or whose list of an event the
// Hall edits is not what the agent reads: editing it would guess.
func checkShape(doc []byte, spec hook.Install) error {
	_, ms := topMembers(doc)
	m, _, ok := find(ms, "hooks")
	if !ok {
		return nil
	}
	if doc[m.valStart] != '{' {
		return errors.New(`"hooks" is not an object`)
	}
	_, _, hs := members(doc, m.valStart)
	for _, h := range hs {
		if doc[h.valStart] != '[' {
			if slices.Contains(spec.Events, h.key) {
				return fmt.Errorf("hooks.%s is not a list", h.key)
			}
		}
	}
	return nil
}

func topMembers(doc []byte) (int, []member) {
	open, _, ms := members(doc, jsonspan.SkipSpace(doc, 0))
	return open, ms
}

// hooksMembers are the members of the "hooks" object, if there is one.
func hooksMembers(doc []byte) (member, []member, bool) {
	_, ms := topMembers(doc)
	m, _, ok := find(ms, "hooks")
	if !ok || doc[m.valStart] != '{' {
		return member{}, nil, false
	}
	_, _, hs := members(doc, m.valStart)
	return m, hs, true
}

// hallAt is one Hall handler in an event's list: its group (the element
// of the list) and, in a grouped list, its place in the group's hooks.
type hallAt struct {
	list          span   // the event's list
	group         int    // the element of the list
	groupSpans    []span // the list's elements
	inner         span   // the group's hooks list ({-1,-1} when flat)
	handler       int    // the handler in it
	handlerSpans  []span
	raw           []byte // the handler
	groupRaw      []byte
	groupHandlers int
}

// findHall returns the first Hall handler of agent under hooks.<ev>.
func findHall(doc []byte, agent string, grouped bool, ev string) (hallAt, bool) {
	_, hs, ok := hooksMembers(doc)
	if !ok {
		return hallAt{}, false
	}
	m, _, ok := find(hs, ev)
	if !ok || doc[m.valStart] != '[' {
		return hallAt{}, false
	}
	_, _, groups := elements(doc, m.valStart)
	for gi, g := range groups {
		if !grouped {
			if isHall(doc[g.start:g.end], agent) {
				return hallAt{list: span{m.valStart, m.valEnd}, group: gi, groupSpans: groups, raw: doc[g.start:g.end], groupRaw: doc[g.start:g.end]}, true
			}
			continue
		}
		if doc[g.start] != '{' {
			continue
		}
		_, _, gm := members(doc, g.start)
		hm, _, ok := find(gm, "hooks")
		if !ok || doc[hm.valStart] != '[' {
			continue
		}
		_, _, handlers := elements(doc, hm.valStart)
		for hi, h := range handlers {
			if isHall(doc[h.start:h.end], agent) {
				return hallAt{
					list: span{m.valStart, m.valEnd}, group: gi, groupSpans: groups,
					inner: span{hm.valStart, hm.valEnd}, handler: hi, handlerSpans: handlers,
					raw: doc[h.start:h.end], groupRaw: doc[g.start:g.end], groupHandlers: len(handlers),
				}, true
			}
		}
	}
	return hallAt{}, false
}

// countHall counts the Hall's handlers under hooks.<ev>.
func countHall(doc []byte, agent string, grouped bool, ev string) int {
	n := 0
	for {
		at, ok := findHall(doc, agent, grouped, ev)
		if !ok {
			return n
		}
		n++
		doc = removeHall(doc, at, grouped)
	}
}

// removeHall takes one Hall handler out; a group left empty goes too.
func removeHall(doc []byte, at hallAt, grouped bool) []byte {
	if !grouped || at.groupHandlers == 1 {
		_, closeL, _ := elements(doc, at.list.start)
		return removeItem(doc, at.list.start, closeL, at.groupSpans, at.group)
	}
	_, closeI, _ := elements(doc, at.inner.start)
	return removeItem(doc, at.inner.start, closeI, at.handlerSpans, at.handler)
}

// editEvent makes hooks.<ev> hold exactly one Hall entry equal to want
// (none when want is nil), keeping every other entry where it is.
func editEvent(doc []byte, agent string, grouped bool, ev string, want any, changes *[]Change) []byte {
	n := countHall(doc, agent, grouped, ev)
	if want != nil && n == 1 {
		at, _ := findHall(doc, agent, grouped, ev)
		have := at.groupRaw
		if sameJSON(have, renderValue(want, "", "")) {
			*changes = append(*changes, Change{ev, "keep", describe(at.raw)})
			return doc
		}
	}
	for {
		at, ok := findHall(doc, agent, grouped, ev)
		if !ok {
			break
		}
		doc = removeHall(doc, at, grouped)
		if want == nil {
			*changes = append(*changes, Change{ev, "remove", describe(at.raw)})
		}
	}
	if want == nil {
		// A list the Hall emptied goes, key and all.
		if n > 0 {
			if hm, hs, ok := hooksMembers(doc); ok {
				if m, i, ok := find(hs, ev); ok && doc[m.valStart] == '[' {
					if _, _, es := elements(doc, m.valStart); len(es) == 0 {
						open, close, _ := members(doc, hm.valStart)
						doc = removeItem(doc, open, close, memberSpans(hs), i)
					}
				}
			}
		}
		return doc
	}
	doc = addEntry(doc, ev, want)
	action := "add"
	if n > 0 {
		action = "replace"
	}
	at, _ := findHall(doc, agent, grouped, ev)
	*changes = append(*changes, Change{ev, action, describe(at.raw)})
	return doc
}

// addEntry appends want to hooks.<ev>, making "hooks" and the list when
// they are missing.
func addEntry(doc []byte, ev string, want any) []byte {
	open, ms := topMembers(doc)
	hm, _, ok := find(ms, "hooks")
	if !ok {
		_, close, _ := members(doc, open)
		doc = appendItem(doc, open, close, memberSpans(ms), renderMember("hooks", map[string]any{}))
		_, ms = topMembers(doc)
		hm, _, _ = find(ms, "hooks")
	}
	hopen, hclose, hs := members(doc, hm.valStart)
	lm, _, ok := find(hs, ev)
	if !ok {
		return appendItem(doc, hopen, hclose, memberSpans(hs), renderMember(ev, []any{want}))
	}
	lopen, lclose, es := elements(doc, lm.valStart)
	return appendItem(doc, lopen, lclose, es, func(indent, unit string) []byte { return renderValue(want, indent, unit) })
}

// handlerFields are the fields that say whose a handler is.
type handlerFields struct {
	Command string `json:"command"`
	URL     string `json:"url"`
}

func fields(raw []byte) handlerFields {
	var h handlerFields
	_ = json.Unmarshal(raw, &h) // a handler of another shape is nobody's
	return h
}

// isHall reports whether a handler is one the Hall wrote for agent.
func isHall(raw []byte, agent string) bool {
	_, ok := hallOptions(raw, agent)
	return ok
}

// hallOptions reads back the options a handler of the Hall's was written
// with. A handler is the Hall's only when it is, value for value, what
// the Hall writes for the options its command or URL names: a command
// running hall or hall-hook (by name or path) with exactly the arguments
// the Hall gives, or an HTTP hook to <hall>/api/hooks/<agent> with the
// Hall's timeout, header and variable. A hook that only looks like one (a
// URL ending /api/hooks/<agent> with headers of its own, a command that
// merely contains beat --hook <agent>) is somebody else's: never
// replaced, removed or read. The agents' schemas allow no marker key on a
// handler (Claude Code's and Gemini CLI's refuse any extra property), so
// the exact match is the mark.
//
// Every earlier version wrote the same values (the command was not
// shell-quoted before 9566df4, which is the same text for any command
// without a space or a quote, the only ones that ran), so old installs
// are recognised as they are.
func hallOptions(raw []byte, agent string) (Options, bool) {
	s, ok := spec(agent)
	if !ok {
		return Options{}, false
	}
	var have any
	if json.Unmarshal(raw, &have) != nil {
		return Options{}, false
	}
	h := fields(raw)
	var o Options
	switch {
	case h.URL != "" && h.Command == "":
		if o, ok = urlOptions(h.URL, agent); !ok {
			return Options{}, false
		}
	case h.Command != "" && h.URL == "":
		if o, ok = commandOptions(h.Command, agent); !ok {
			return Options{}, false
		}
	default:
		return Options{}, false
	}
	var want any
	_ = json.Unmarshal(renderValue(render(o, s, o.HTTP), "", ""), &want)
	if !reflect.DeepEqual(have, want) {
		return Options{}, false
	}
	return o, true
}

// urlOptions reads the options of an HTTP hook's URL the Hall writes:
// <hall>/api/hooks/<agent>, with ?on_collision=ask or no query.
func urlOptions(raw, agent string) (Options, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Fragment != "" || u.User != nil {
		return Options{}, false
	}
	o := Options{Agent: agent, HTTP: true}
	switch u.RawQuery {
	case "":
	case "on_collision=ask":
		o.OnCollision = "ask"
	default:
		return Options{}, false
	}
	base, ok := strings.CutSuffix(u.Path, "/api/hooks/"+agent)
	if !ok {
		return Options{}, false
	}
	u.RawQuery, u.Path, u.RawPath = "", base, ""
	o.HallURL = u.String()
	return o, true
}

// commandOptions reads the options of a command hook's command line the
// Hall writes: hall beat --hook <agent> or hall-hook <agent>, then
// --hall URL and --on-collision ask when given, and nothing else.
func commandOptions(cmd, agent string) (Options, bool) {
	args := commandArgs(cmd)
	if len(args) < 2 || CheckCommand(args[0]) != nil {
		return Options{}, false
	}
	o := Options{Agent: agent, Command: args[0]}
	rest := args[1:]
	if IsLean(args[0]) {
		if rest[0] != agent {
			return Options{}, false
		}
		rest = rest[1:]
	} else {
		if len(rest) < 3 || rest[0] != "beat" || rest[1] != "--hook" || rest[2] != agent {
			return Options{}, false
		}
		rest = rest[3:]
	}
	if len(rest) >= 2 && rest[0] == "--hall" {
		o.HallURL, rest = rest[1], rest[2:]
	}
	if len(rest) >= 2 && rest[0] == "--on-collision" && rest[1] == "ask" {
		o.OnCollision, rest = "ask", rest[2:]
	}
	return o, len(rest) == 0
}

// commandArgs splits a command hook's command line as a shell would
// (quotes, escapes); nil when it is not plain words.
func commandArgs(cmd string) []string {
	if strings.TrimSpace(cmd) == "" {
		return nil
	}
	args, err := shell.Fields(cmd, func(string) string { return "" })
	if err != nil {
		return nil
	}
	return args
}

// installed reads back the options of the Hall's handlers in doc: the
// first one's and, where the agent has HTTP hooks beside a command hook
// (Claude Code's SessionStart runs commands only), the HTTP hooks'.
func installed(doc []byte, agent string) (Options, bool) {
	spec, _ := spec(agent)
	var first Options
	found := false
	for _, ev := range spec.Events {
		at, ok := findHall(doc, agent, spec.Grouped, ev)
		if !ok {
			continue
		}
		o, _ := hallOptions(at.raw, agent)
		if !found {
			first, found = o, true
		}
		if o.HTTP {
			first.HTTP, first.HallURL, first.OnCollision = true, o.HallURL, o.OnCollision
			return first, true
		}
		if spec.HTTPEvent(ev) {
			return first, true // a command hook where an HTTP one could be
		}
	}
	return first, found
}

// keep fills every flag the person did not give from the installed hooks,
// and names what it kept.
func keep(o Options, doc []byte) (Options, []string) {
	old, ok := installed(doc, o.Agent)
	if !ok {
		return o, nil
	}
	var kept []string
	if !o.Given.HallURL && old.HallURL != "" && strings.TrimRight(old.HallURL, "/") != strings.TrimRight(o.HallURL, "/") {
		o.HallURL = old.HallURL
		kept = append(kept, "--hall "+old.HallURL)
	}
	if !o.Given.OnCollision && old.OnCollision == "ask" && o.OnCollision != "ask" {
		o.OnCollision = "ask"
		kept = append(kept, "--on-collision ask")
	}
	if !o.Given.HTTP && old.HTTP && !o.HTTP {
		o.HTTP = true
		kept = append(kept, "--http")
	}
	if !o.Given.Command && old.Command != "" && old.Command != o.Command {
		o.Command = old.Command
		kept = append(kept, "--command "+old.Command)
	}
	return o, kept
}

// entry is the Hall's entry for ev: a group holding one handler (grouped
// agents) or the handler itself.
func entry(o Options, spec hook.Install, ev string) any {
	h := handler(o, spec, ev)
	if !spec.Grouped {
		return h
	}
	return group{Matcher: spec.MatcherOf(ev), Hooks: []any{h}}
}

// group is a grouped agent's matcher group, fields in the order a person
// reads them.
type group struct {
	Matcher string `json:"matcher,omitempty"`
	Hooks   []any  `json:"hooks"`
}

// handler is the Hall's handler for ev.
func handler(o Options, spec hook.Install, ev string) any {
	return render(o, spec, o.HTTP && spec.HTTPEvent(ev))
}

// render is the Hall's handler: an HTTP hook when http, else a command
// hook. It is the one shape the Hall writes, and the one it recognises
// as its own (hallOptions).
func render(o Options, spec hook.Install, http bool) any {
	hall := strings.TrimRight(o.HallURL, "/")
	if http {
		if hall == "" {
			hall = cli.DefaultURL
		}
		u := hall + "/api/hooks/" + url.PathEscape(o.Agent)
		if o.OnCollision == "ask" {
			u += "?on_collision=ask"
		}
		return httpHandler{
			Type: "http", URL: u, Timeout: timeoutOf(spec),
			Headers:        map[string]string{"Authorization": "Bearer $HALL_TOKEN"},
			AllowedEnvVars: []string{"HALL_TOKEN"},
		}
	}
	cmd := o.Command
	if cmd == "" {
		cmd = "hall"
	}
	cmd = shellword.Quote(cmd)
	if IsLean(o.Command) {
		cmd += " " + o.Agent
	} else {
		cmd += " beat --hook " + o.Agent
	}
	if hall != "" && hall != strings.TrimRight(cli.DefaultURL, "/") {
		cmd += " --hall " + shellword.Quote(hall)
	}
	if o.OnCollision == "ask" {
		cmd += " --on-collision ask"
	}
	if !spec.Grouped {
		return commandHandler{Command: cmd}
	}
	return commandHandler{Type: "command", Name: spec.Name, Command: cmd, Timeout: timeoutOf(spec)}
}

// Lean is the lean command hook's name (cmd/hall-hook).
const Lean = "hall-hook"

// IsLean reports whether command runs the lean command hook, by its base
// name.
func IsLean(command string) bool {
	return command != "" && filepath.Base(command) == Lean
}

// CheckCommand refuses a command hook's program other than hall or
// hall-hook, by name or by path: the base name is how the Hall knows the
// hooks it wrote from anybody else's.
func CheckCommand(command string) error {
	switch filepath.Base(command) {
	case "hall", Lean:
		return nil
	}
	return fmt.Errorf("--command %q: want hall or %s, by name or by path (the Hall knows its hooks by these names)", command, Lean)
}

// The handlers, fields in the order a person reads them.
type (
	commandHandler struct {
		Type    string `json:"type,omitempty"`
		Name    string `json:"name,omitempty"`
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
func describe(raw []byte) string {
	h := fields(raw)
	if h.Command != "" {
		return h.Command
	}
	return "http " + h.URL
}

// sameJSON reports whether two documents hold the same JSON values (key
// order counts: it is what a person sees).
func sameJSON(a, b []byte) bool {
	if !json.Valid(a) || !json.Valid(b) {
		return string(a) == string(b)
	}
	return orderedOf(a) == orderedOf(b)
}

// orderedOf is a's canonical compact form, keys in their order.
func orderedOf(a []byte) string {
	var buf strings.Builder
	compact(a, jsonspan.SkipSpace(a, 0), &buf)
	return buf.String()
}

func compact(b []byte, i int, out *strings.Builder) {
	switch b[i] {
	case '{':
		_, _, ms := members(b, i)
		out.WriteByte('{')
		for j, m := range ms {
			if j > 0 {
				out.WriteByte(',')
			}
			k, _ := json.Marshal(m.key)
			out.Write(k)
			out.WriteByte(':')
			compact(b, m.valStart, out)
		}
		out.WriteByte('}')
	case '[':
		_, _, es := elements(b, i)
		out.WriteByte('[')
		for j, e := range es {
			if j > 0 {
				out.WriteByte(',')
			}
			compact(b, e.start, out)
		}
		out.WriteByte(']')
	default:
		var v any
		_ = json.Unmarshal(b[i:jsonspan.ValueEnd(b, i)], &v)
		enc, _ := json.Marshal(v)
		out.Write(enc)
	}
}
