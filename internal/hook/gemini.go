package hook

import (
	"encoding/json"
	"strings"
	"time"
)

// gemini reads Gemini CLI's hooks (settings.json, "hooks"): SessionStart,
// BeforeAgent, BeforeTool, AfterTool, AfterAgent and SessionEnd. Its
// payloads carry session_id, cwd and hook_event_name like Claude Code's,
// but its tools are its own: write_file and replace name the file they
// change in tool_input.file_path; run_shell_command, read_file and the MCP
// tools (mcp_<server>_<tool>) name none.
type gemini struct{}

// geminiSpec is Gemini CLI in the registry.
var geminiSpec = Spec{Adapter: gemini{}, Capability: geminiCapability, Install: geminiInstall}

// geminiCapability is Gemini CLI's row of the capability table.
var geminiCapability = Capability{
	Agent:         "gemini",
	Product:       "Gemini CLI",
	ContextEvents: []string{"SessionStart", "BeforeAgent", "AfterTool"},
	ContextField:  "`hookSpecificOutput.additionalContext`",
	// BeforeTool takes no additionalContext; its decision "ask" is in
	// Gemini's code but not in its reference, so the Hall does not rely
	// on it. Its systemMessage reaches the person only: what the Hall
	// says there is told to the model at the next event it hears.
	PersonField: "`systemMessage` (BeforeTool; told to the model at the next event it hears)",
	ProjectFile: ".gemini/settings.json",
	UserFile:    "~/.gemini/settings.json",
	Format:      "JSON; hooks.<event>: [{matcher (regex), hooks: [command]}]; timeout in milliseconds",
	Trust:       "Gemini CLI treats new or changed project hooks as untrusted until you accept them when it starts (docs/hooks.md#gemini-cli).",
}

// geminiToolMatcher: BeforeTool only speaks to the person, so it runs on
// the tools that change files; AfterTool reaches the model after any
// tool. Gemini CLI reads a matcher as a regular expression.
const geminiToolMatcher = "write_file|replace|run_shell_command"

// geminiInstall is how .gemini/settings.json holds the Hall's hooks.
var geminiInstall = Install{
	Events:  []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "SessionEnd"},
	Grouped: true,
	Matcher: func(ev string) string {
		switch ev {
		case "BeforeTool":
			return geminiToolMatcher
		case "AfterTool":
			return ".*"
		}
		return ""
	},
	Unit:  time.Millisecond,
	Name:  "hall",
	Empty: "{}",
}

type geminiPayload struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
}

func (gemini) Agent() string { return "gemini" }
func (gemini) Kind() string  { return "gemini-cli" }

// Parse maps a payload to its Event: agent "gemini-" and 8 hex digits of
// the session id's SHA-256, caller root the payload's cwd. SessionEnd leaves;
// AfterAgent ends a turn and beats. No event gates: Gemini CLI's reference
// documents no "ask" (see the capability table).
func (gemini) Parse(payload []byte) (Event, error) {
	var p geminiPayload
	if err := decode(payload, &p); err != nil {
		return Event{}, err
	}
	if p.SessionID == "" {
		return Event{}, errNoSession
	}
	ev := Event{Name: p.HookEventName}
	ev.Beat.AgentID = agentID("gemini", p.SessionID, "")
	ev.Beat.Kind = "gemini-cli"
	ev.Beat.CallerRoot = p.Cwd
	switch p.HookEventName {
	case "BeforeTool", "AfterTool":
		ev.Beat.Tool = p.ToolName
		ev.Beat.Touched = geminiTouched(p.ToolName, p.ToolInput, p.Cwd)
		ev.Gate = geminiCapability.Asks(p.HookEventName)
		ev.Before = p.HookEventName == "BeforeTool"
		if ev.Before {
			ev.Command = shellCommand(p.ToolName, p.ToolInput)
		}
	case "SessionStart", "BeforeAgent":
		ev.Start = true
		ev.Opened = p.HookEventName == "SessionStart"
	case "SessionEnd":
		ev.Leave = true
	}
	return ev, nil
}

// geminiTouched names the file of Gemini CLI's file-writing tools
// (write_file, replace).
func geminiTouched(tool string, input json.RawMessage, cwd string) []string {
	return namedFileTouched([]string{"write_file", "replace"}, tool, input, cwd)
}

// geminiAnswer is Gemini CLI's hook output. It never carries a decision:
// "deny" and "block" refuse the tool, and the Hall only warns.
type geminiAnswer struct {
	HookSpecificOutput *geminiSpecific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string          `json:"systemMessage,omitempty"`
	// SuppressOutput goes with every systemMessage: Gemini CLI shows a
	// systemMessage to the person, and without it logs it a second time
	// ("Hook system message: …", measured on 0.61.0).
	SuppressOutput bool `json:"suppressOutput,omitempty"`
}

// geminiMessage is an answer telling the person text alone, shown once.
func geminiMessage(text string) geminiAnswer {
	return geminiAnswer{SystemMessage: text, SuppressOutput: true}
}

type geminiSpecific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// WarningAnswer tells the person a hook's own warning (systemMessage,
// which the model never reads), once: from stderr, Gemini CLI would take
// it for a systemMessage and show it twice.
func (gemini) WarningAnswer(text string) []byte {
	return marshal(geminiMessage(text))
}

// Answer puts the north lines into the model's context where Gemini CLI
// lets it (SessionStart, BeforeAgent, AfterTool), and on BeforeTool, which
// takes no context, tells the person in the terminal (systemMessage) before
// the tool runs; the Hall counts nothing said there as told
// (ModelHears), so the model hears it on the next event that reaches it,
// the AfterTool that follows. Under the ask policy the answer is the
// same: nothing is asked.
func (gemini) Answer(ev Event, say Say) []byte {
	if ev.Leave {
		return nil
	}
	var out geminiAnswer
	if ev.Opened && say.Page != "" {
		// The person reads where the page is; the model never does.
		out = geminiMessage(PageNotice(say.Page))
	}
	if say.Empty() {
		if out.SystemMessage == "" {
			return nil
		}
		return marshal(out)
	}
	switch {
	case geminiCapability.Reaches(ev.Name):
		out.HookSpecificOutput = &geminiSpecific{HookEventName: ev.Name, AdditionalContext: geminiContext(say.Text(ev.Beat.AgentID))}
		return marshal(out)
	case ev.Name == "BeforeTool":
		return marshal(geminiMessage(say.Reason()))
	}
	return nil
}

// geminiEntities stands in for the characters Gemini CLI escapes as HTML
// entities in a hook's additionalContext (the model would read "&gt;"
// where the Hall wrote ">"): the fullwidth forms read the same and pass
// through as they are.
var geminiEntities = strings.NewReplacer("<", "＜", ">", "＞", "&", "＆")

// geminiContext is text as it goes into Gemini CLI's context.
func geminiContext(s string) string { return geminiEntities.Replace(s) }
