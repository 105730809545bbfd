package hook

import (
	"encoding/json"
)

// cursor reads Cursor's agent hooks (.cursor/hooks.json, version 1):
// sessionStart, sessionEnd, beforeSubmitPrompt, preToolUse, postToolUse,
// beforeShellExecution, beforeMCPExecution, beforeReadFile, afterFileEdit,
// afterShellExecution, afterMCPExecution and stop. Cursor sends no cwd on
// most events: the caller root is workspace_roots[0].
type cursor struct{}

// cursorSpec is Cursor in the registry.
var cursorSpec = Spec{Adapter: cursor{}, Capability: cursorCapability, Install: cursorInstall}

// cursorCapability is Cursor's row of the capability table.
var cursorCapability = Capability{
	Agent:         "cursor",
	Product:       "Cursor",
	ContextEvents: []string{"sessionStart", "preToolUse", "postToolUse", "beforeShellExecution", "beforeMCPExecution"},
	ContextField:  "`agent_message` (permission events), `additional_context` (sessionStart, postToolUse)",
	PersonField:   "`user_message`",
	AskEvents:     []string{"preToolUse", "beforeShellExecution", "beforeMCPExecution"},
	ProjectFile:   ".cursor/hooks.json",
	UserFile:      "~/.cursor/hooks.json",
	Format:        `JSON; {"version": 1, hooks.<event>: [{command}]}; no published schema`,
}

// cursorInstall is how .cursor/hooks.json holds the Hall's hooks.
var cursorInstall = Install{
	Events: []string{"sessionStart", "sessionEnd", "beforeSubmitPrompt", "preToolUse", "postToolUse", "afterFileEdit", "stop"},
	Empty:  `{"version":1}`,
}

type cursorPayload struct {
	HookEventName  string          `json:"hook_event_name"`
	ConversationID string          `json:"conversation_id"`
	SessionID      string          `json:"session_id"` // sessionStart/sessionEnd in some versions
	WorkspaceRoots []string        `json:"workspace_roots"`
	Cwd            string          `json:"cwd"`
	ToolName       string          `json:"tool_name"`  // preToolUse, postToolUse, before/afterMCPExecution
	ToolInput      json.RawMessage `json:"tool_input"` // an object, or (MCP) a JSON string
	FilePath       string          `json:"file_path"`  // afterFileEdit, beforeReadFile
	Command        string          `json:"command"`    // beforeShellExecution, afterShellExecution
}

func (cursor) Agent() string { return "cursor" }
func (cursor) Kind() string  { return "cursor" }

// Parse maps a payload to its Event: agent "cursor-" and 8 hex digits of
// the conversation id's SHA-256. sessionEnd leaves; stop ends a turn,
// not a session, and beats. A shell command runs as the tool "Shell" and a
// read as "Read" (neither a mutation); an edit Cursor reports (afterFileEdit,
// or a Write's file_path) names the file it touched.
func (cursor) Parse(payload []byte) (Event, error) {
	var p cursorPayload
	if err := decode(payload, &p); err != nil {
		return Event{}, err
	}
	session := p.ConversationID
	if session == "" {
		session = p.SessionID
	}
	if session == "" {
		return Event{}, errNoSession
	}
	ev := Event{Name: p.HookEventName}
	ev.Beat.AgentID = agentID("cursor", session, "")
	ev.Beat.Kind = "cursor"
	root := p.Cwd
	if len(p.WorkspaceRoots) > 0 && p.WorkspaceRoots[0] != "" {
		root = p.WorkspaceRoots[0]
	}
	ev.Beat.CallerRoot = root
	switch p.HookEventName {
	case "sessionEnd":
		ev.Leave = true
	case "sessionStart", "beforeSubmitPrompt":
		ev.Start = true
	case "preToolUse", "postToolUse":
		ev.Beat.Tool = p.ToolName
		ev.Beat.Touched = cursorToolTouched(p.ToolName, p.ToolInput, root)
		ev.Gate = p.HookEventName == "preToolUse"
	case "beforeMCPExecution", "afterMCPExecution":
		ev.Beat.Tool = p.ToolName
		ev.Gate = p.HookEventName == "beforeMCPExecution"
	case "beforeShellExecution", "afterShellExecution":
		ev.Beat.Tool = cursorShellTool
		ev.Gate = p.HookEventName == "beforeShellExecution"
		if ev.Gate {
			ev.Command = p.Command
		}
	case "beforeReadFile":
		ev.Beat.Tool = "Read"
		ev.Gate = true
	case "afterFileEdit":
		ev.Beat.Touched = touchedFiles(root, []string{p.FilePath})
	}
	ev.Before = ev.Gate
	return ev, nil
}

// cursorToolTouched names the file of Cursor's file-writing tools (Write,
// Delete).
func cursorToolTouched(tool string, input json.RawMessage, root string) []string {
	return namedFileTouched([]string{"Write", "Delete"}, tool, input, root)
}

// cursorPermission is the answer of Cursor's permission events
// (preToolUse, beforeShellExecution, beforeMCPExecution): agent_message
// reaches the model, user_message the person. permission is "ask" or
// absent: never "allow" (it would grant what Cursor would otherwise ask
// for), never "deny".
type cursorPermission struct {
	Permission   string `json:"permission,omitempty"`
	UserMessage  string `json:"user_message"`
	AgentMessage string `json:"agent_message"`
}

// cursorContext is the answer of the events that add to the model's
// context (sessionStart, postToolUse).
type cursorContext struct {
	AdditionalContext string `json:"additional_context"`
}

// Answer speaks where Cursor listens: agent_message and user_message on
// the permission events (with permission "ask" under the ask policy),
// additional_context on sessionStart and postToolUse. beforeReadFile takes
// a permission only, beforeSubmitPrompt no context, after* events and stop
// nothing (stop's followup_message would start another turn): there the
// hook stays silent, and the warning reaches the agent on its next event
// that listens.
func (cursor) Answer(ev Event, say Say) []byte {
	if say.Empty() || ev.Leave {
		return nil
	}
	text := say.Text(ev.Beat.AgentID)
	switch ev.Name {
	case "preToolUse", "beforeShellExecution", "beforeMCPExecution":
		out := cursorPermission{UserMessage: say.Reason(), AgentMessage: text}
		if say.Ask && cursorCapability.Asks(ev.Name) {
			out.Permission = "ask"
		}
		return marshal(out)
	case "sessionStart", "postToolUse":
		return marshal(cursorContext{AdditionalContext: text})
	}
	return nil
}
