package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hall-dev/hall/internal/agentid"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// MaxPayload bounds a hook payload. Agents send a few kilobytes; a Write
// carries the file's content, so the bound is generous.
const MaxPayload = 4 << 20

// AnswerDeadline bounds the Hall's work on one hook request (the place
// lookup, the beat, the answer): a hook's answer is worth nothing after
// the agent's own timeout, and a request past it holds a goroutine for
// nothing.
const AnswerDeadline = 2 * time.Second

// MaxTouched is the most files one event reports (the most recent ones of
// a patch naming more): the presence keeps no more either.
const MaxTouched = presence.MaxTouched

// Event is one hook payload, read: the beat it makes or the leave.
type Event struct {
	// Name is the agent's own hook_event_name ("PreToolUse", "afterFileEdit").
	Name string
	// Beat says who speaks, where (the caller root only: the caller
	// completes worktree and brain), what ran and what it touched.
	Beat contract.BeatRequest
	// Leave: the session (or the subagent) ended; the presence leaves.
	Leave bool
	// Gate: the event fires before a tool runs and the agent honours an
	// "ask" there (the capability table's AskEvents): never for Codex nor
	// Gemini CLI.
	Gate bool
	// Before: the event fires before a tool runs (whether or not the
	// agent honours an ask there); Start: a session starts, resumes or
	// takes a new prompt. They say where the guard and the ownership
	// lines go (say.go).
	Before, Start bool
	// Opened: the event that opens a session (SessionStart), where the
	// person is told the page's address (Say.Page).
	Opened bool
	// Command is the shell command line a Before event's shell tool is
	// about to run, as the agent wrote it; "" for any other tool.
	Command string
}

// Say is what the Hall has for the agent after the beat: the presence's
// north lines (one per collision partner) and whether to ask the person.
type Say struct {
	North []string
	Ask   bool
	// Reminder tells North as one line (said in full before: say.go);
	// Guard and Others are the shell guard's and the ownership lines;
	// Held the guard's lines of earlier answers only the person read,
	// told to the model now (before Guard).
	Reminder            bool
	Guard, Others, Held []string
	// Recovery are the lines of what the Hall kept: the snapshot saved
	// before a destructive command, or the work another session's
	// command lost and how to get it back (docs/recovery.md).
	Recovery []string
	// Overlaps are the overlaps to tell the agent now (the Hall decides
	// when: once as one opens or escalates, once per file as the tool is
	// about to change it), told from PresenceID's side, after everything
	// else. They never ask: an overlap is a warning for the merge.
	Overlaps   []contract.Overlap
	PresenceID string
	// Page is the Hall's page address, told to the person alone, once, on
	// the event that opens a session (Event.Opened), where the agent has
	// a place the model never reads (PageTeller); "" tells nothing.
	Page string
}

// PageNotice is the line that tells the person where the page is.
func PageNotice(page string) string {
	return "The Hall: " + page + " shows the agents at work here and warns when they collide."
}

// Adapter reads one agent's hook payloads and writes its hook output.
type Adapter interface {
	// Agent is the adapter's name: the value of --hook and of
	// /api/hooks/{agent}.
	Agent() string
	// Kind is the presence kind the adapter sets ("claude-code", "codex",
	// "cursor", "gemini-cli").
	Kind() string
	// Parse reads one payload. An error means the payload cannot be used:
	// the hook warns and the agent carries on.
	Parse(payload []byte) (Event, error)
	// Answer renders say as the agent's hook output for ev; nil when there
	// is nothing to say (the command hook then prints nothing).
	Answer(ev Event, say Say) []byte
}

// warningAnswerer is an adapter whose agent takes a hook's stderr, when
// its stdout holds nothing, for the hook's answer and shows it twice
// (Gemini CLI: a systemMessage, shown, then logged as "Hook system
// message"): the hook's own warning is then its answer, to the person
// alone, shown once.
type warningAnswerer interface {
	WarningAnswer(text string) []byte
}

// WarningAnswer is a hook's own warning (the Hall cannot be reached, a
// payload it refused) as agent's hook output, on stdout, where the agent
// would show it twice from stderr; nil where stderr is the place (the
// warning is written there). It never reaches the model.
func WarningAnswer(agent, text string) []byte {
	s, ok := specOf(agent)
	if !ok {
		return nil
	}
	if w, ok := s.Adapter.(warningAnswerer); ok {
		return w.WarningAnswer(text)
	}
	return nil
}

// For returns the adapter named agent ("claude", "codex", "cursor" or
// "gemini").
func For(agent string) (Adapter, bool) {
	s, ok := specOf(agent)
	return s.Adapter, ok
}

// ModelHears reports whether the model reads ad's answer to ev: the
// capability table's ContextEvents. Where it does not (Gemini CLI's
// BeforeTool, whose systemMessage only the person reads), what the Hall
// says reaches the person at most, and counts as told nowhere: the model
// hears it at its next event that reaches it.
func ModelHears(ad Adapter, ev Event) bool {
	c, ok := CapabilityOf(ad.Agent())
	return ok && !ev.Leave && c.Reaches(ev.Name)
}

// Agents lists the registered agents' names, sorted.
func Agents() []string {
	out := make([]string, 0, len(registry))
	for _, s := range registry {
		out = append(out, s.Adapter.Agent())
	}
	slices.Sort(out)
	return out
}

// Policy is what the Hall does when a gate event of a mutating tool finds
// the presence in a live collision.
type Policy string

// The policies: warn (the default) puts the warning in the model's context;
// ask also asks the person before the tool runs.
const (
	Warn Policy = "warn"
	Ask  Policy = "ask"
)

// ParsePolicy reads --on-collision, HALL_ON_COLLISION or ?on_collision=;
// "" is Warn.
func ParsePolicy(s string) (Policy, error) {
	switch Policy(s) {
	case "", Warn:
		return Warn, nil
	case Ask:
		return Ask, nil
	}
	return "", fmt.Errorf("on_collision %q: want warn or ask", s)
}

// Decide says what the Hall answers for ev: the north lines, and an ask
// only under the ask policy, on a gate event, for a mutating tool call
// (mutating: the Hall's classifier says so, or the call names files it
// changes), while the presence is in a live collision.
func Decide(p Policy, ev Event, mutating bool, north []string) Say {
	say := Say{North: north}
	if p == Ask && ev.Gate && !ev.Leave && len(north) > 0 && (mutating || len(ev.Beat.Touched) > 0) {
		say.Ask = true
	}
	return say
}

// maxNorthShown bounds the lines an answer carries; the rest are counted.
const maxNorthShown = 5

// ContextText is the warning as the model reads it: what the Hall is, each
// collision (partner, place, clauses, files) inside the reported block
// (contract.WriteReported: the partner's id and paths are its own record's
// text, data and not instructions), and what to do.
func ContextText(agentID string, north []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The Hall (the witness of the coding agents on this repository) reports that another agent is changing the same place as this session (%s).\n", contract.ClipID(agentID))
	shown := north
	if len(north) > maxNorthShown {
		shown = north[:maxNorthShown]
	}
	contract.WriteReported(&b, shown)
	if len(north) > maxNorthShown {
		fmt.Fprintf(&b, "… and %d more\n", len(north)-maxNorthShown)
	}
	b.WriteString("Before changing files in that place, tell the person you work with, and leave the other agent's changes alone. The Hall only warns: it blocks nothing.")
	return b.String()
}

// AskReason is the sentence the person reads in the agent's permission
// prompt under the ask policy; the collision line, another agent's
// record's text, is quoted.
func AskReason(north []string) string {
	s := "The Hall reports: " + contract.Quoted(north[0])
	if len(north) > 1 {
		s += fmt.Sprintf(" (+%d more)", len(north)-1)
	}
	return s + ". Another agent is changing the same place: go ahead only if that is fine."
}

// agentID is the stable agent id of a session (package agentid: one shape
// on every path into the Hall, hooks and MCP alike).
func agentID(prefix, session, subagent string) string {
	return agentid.Session(prefix, session, subagent)
}

// absUnder makes a path the agent named absolute against its cwd, cleaned;
// "" for a path that cannot be one.
func absUnder(cwd, p string) string {
	p = strings.TrimSpace(p)
	if p == "" || !utf8.ValidString(p) || strings.ContainsRune(p, 0) {
		return ""
	}
	if !filepath.IsAbs(p) {
		if cwd == "" || !filepath.IsAbs(cwd) {
			return ""
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// namedFileTouched is the file a writing tool's input names, as Claude
// Code, Cursor and Gemini CLI all name it (tool_input.file_path, or
// notebook_path for Claude Code's notebooks), when tool is one of the
// agent's writers; none for any other tool.
func namedFileTouched(writers []string, tool string, input json.RawMessage, cwd string) []string {
	if !slices.Contains(writers, tool) {
		return nil
	}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	return touchedFiles(cwd, []string{in.FilePath, in.NotebookPath})
}

// touchedFiles returns the files names holds, absolute against cwd and
// each once: the last MaxTouched distinct ones (the most recent of a
// patch), in the order named. It walks from the end and stops once it
// holds MaxTouched, so the cap comes before any work that grows with the
// list: a patch naming 100,000 files costs MaxTouched joins, and a
// repeated name a map lookup (de-duplication was quadratic: 4 MiB of a
// patch took 56 s of a core).
func touchedFiles(cwd string, names []string) []string {
	var out []string
	seen := make(map[string]bool, min(len(names), MaxTouched))
	for i := len(names) - 1; i >= 0 && len(out) < MaxTouched; i-- {
		if seen[names[i]] {
			continue
		}
		seen[names[i]] = true
		p := absUnder(cwd, names[i])
		if p == "" || slices.Contains(out, p) { // out holds at most MaxTouched
			continue
		}
		out = append(out, p)
	}
	slices.Reverse(out)
	return out
}

// decode reads one JSON object, refusing anything else.
func decode(payload []byte, v any) error {
	if len(payload) > MaxPayload {
		return fmt.Errorf("the payload is %d bytes, limit %d", len(payload), MaxPayload)
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("decode the payload: %w", err)
	}
	return nil
}

var errNoSession = errors.New("the payload names no session")

// marshal encodes an answer; the types here always encode.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("hook: encode answer: %v", err))
	}
	return b
}
