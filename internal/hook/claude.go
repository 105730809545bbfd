package hook

import (
	"encoding/json"
	"time"
)

// claudeLike reads the hooks of agents whose payloads and output follow
// Claude Code's: Claude Code itself and Codex CLI ("Claude-compatible by
// design"). They differ in names, in the tools that name the files they
// change, and in the events each sends.
type claudeLike struct {
	agent, kind, prefix string
	// capa is the agent's row of the capability table: the events that
	// reach the model and those that honour an ask.
	capa Capability
	// touched returns the files a tool call changes, absolute, at most
	// MaxTouched.
	touched func(tool string, input json.RawMessage, cwd string) []string
	// tellsPerson: the answer's systemMessage is shown to the person and
	// never to the model (Claude Code; Codex, where SessionStart's is a
	// warning entry), where the page's address is told (Say.Page).
	tellsPerson bool
}

// claude reads Claude Code: SessionStart, UserPromptSubmit, PreToolUse,
// PostToolUse, Stop, SubagentStart, SubagentStop, SessionEnd.
var claude = claudeLike{agent: "claude", kind: "claude-code", prefix: "claude", capa: claudeCapability, touched: claudeTouched, tellsPerson: true}

// claudeSpec is Claude Code in the registry.
var claudeSpec = Spec{Adapter: claude, Capability: claudeCapability, Install: claudeInstall}

// claudeCapability is Claude Code's row of the capability table.
var claudeCapability = Capability{
	Agent:             "claude",
	Product:           "Claude Code",
	ContextEvents:     []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStart"},
	ContextField:      "`hookSpecificOutput.additionalContext`",
	PersonField:       "`permissionDecisionReason` (with an ask)",
	AskEvents:         []string{"PreToolUse"},
	ProjectFile:       ".claude/settings.local.json",
	SharedProjectFile: ".claude/settings.json",
	UserFile:          "~/.claude/settings.json",
	Format:            "JSON; hooks.<event>: [{matcher?, hooks: [command | http]}]; timeout in seconds",
}

// claudeInstall is how .claude/settings*.json holds the Hall's hooks.
var claudeInstall = Install{
	Events:  []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStart", "SubagentStop", "SessionEnd"},
	Grouped: true,
	HTTP:    func(ev string) bool { return ev != "SessionStart" }, // SessionStart runs command hooks only
	Unit:    time.Second,
	Empty:   "{}",
}

// claudePayload is the part of a payload the Hall reads; the rest is
// ignored and absent fields are empty.
type claudePayload struct {
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	AgentID       string          `json:"agent_id"` // set inside a subagent, and on SubagentStart/Stop
}

func (a claudeLike) Agent() string { return a.agent }
func (a claudeLike) Kind() string  { return a.kind }

// Parse maps a payload to its Event. The agent id is the prefix and 8 hex
// digits of the session id's SHA-256 (package agentid), with "/<agent_id>" inside a subagent,
// whose parent is the session itself. The caller root is the payload's
// cwd; the tool (on PreToolUse as on PostToolUse) is classified by the
// Hall. SessionEnd leaves (and the Hall leaves the session's subagents
// with it); SubagentStop leaves the subagent; Stop ends a turn, not a
// session, and beats.
func (a claudeLike) Parse(payload []byte) (Event, error) {
	var p claudePayload
	if err := decode(payload, &p); err != nil {
		return Event{}, err
	}
	if p.SessionID == "" {
		return Event{}, errNoSession
	}
	ev := Event{Name: p.HookEventName}
	ev.Beat.AgentID = agentID(a.prefix, p.SessionID, p.AgentID)
	if p.AgentID != "" {
		ev.Beat.ParentAgentID = agentID(a.prefix, p.SessionID, "")
	}
	ev.Beat.Kind = a.kind
	ev.Beat.CallerRoot = p.Cwd
	switch p.HookEventName {
	case "PreToolUse", "PostToolUse":
		ev.Beat.Tool = p.ToolName
		ev.Beat.Touched = a.touched(p.ToolName, p.ToolInput, p.Cwd)
		ev.Gate = p.HookEventName == "PreToolUse" && a.capa.Asks(p.HookEventName)
		ev.Before = p.HookEventName == "PreToolUse"
		if ev.Before {
			ev.Command = shellCommand(p.ToolName, p.ToolInput)
		}
	case "SessionStart", "UserPromptSubmit", "SubagentStart":
		ev.Start = true
		ev.Opened = p.HookEventName == "SessionStart"
	case "SessionEnd":
		ev.Leave = true
	case "SubagentStop":
		ev.Leave = p.AgentID != ""
	}
	return ev, nil
}

// claudeAnswer is the hook output: hookSpecificOutput only. The
// permission decision is "ask" or absent, never "allow" nor "deny".
type claudeAnswer struct {
	HookSpecificOutput *claudeSpecific `json:"hookSpecificOutput,omitempty"`
	// SystemMessage is shown to the person, never to the model: the
	// page's address, at a session's start.
	SystemMessage string `json:"systemMessage,omitempty"`
}

type claudeSpecific struct {
	HookEventName            string `json:"hookEventName"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// Answer puts the north lines into the model's context on the events that
// carry additionalContext, and on a PreToolUse under the ask policy asks
// the person with the reason, where the agent honours it (Claude Code, not
// Codex). Nothing when there is nothing to say.
func (a claudeLike) Answer(ev Event, say Say) []byte {
	var page string
	if a.tellsPerson && ev.Opened && say.Page != "" {
		page = PageNotice(say.Page)
	}
	if ev.Leave || !a.capa.Reaches(ev.Name) {
		return nil
	}
	if say.Empty() {
		if page == "" {
			return nil
		}
		return marshal(claudeAnswer{SystemMessage: page})
	}
	if a.capa.HeardAfterRun(ev.Name) && len(say.Guard) > 0 {
		// The model reads this beside the command's result: the guard
		// says so.
		say.Guard = append([]string{BeforeRunHeading}, say.Guard...)
	}
	out := claudeSpecific{HookEventName: ev.Name, AdditionalContext: say.Text(ev.Beat.AgentID)}
	if say.Ask && a.capa.Asks(ev.Name) {
		out.PermissionDecision = "ask"
		out.PermissionDecisionReason = say.Reason()
	}
	return marshal(claudeAnswer{HookSpecificOutput: &out, SystemMessage: page})
}

// claudeTouched names the file of Claude Code's editing tools (Edit,
// MultiEdit, Write, NotebookEdit). Other tools name none.
func claudeTouched(tool string, input json.RawMessage, cwd string) []string {
	return namedFileTouched([]string{"Edit", "MultiEdit", "Write", "NotebookEdit"}, tool, input, cwd)
}
