package main

import (
	"github.com/hall-dev/hall/internal/agentid"
	"github.com/hall-dev/hall/internal/contract"
)

// claudeHookEvent is the part of a Claude Code hook payload (JSON on stdin)
// the Hall uses; the rest is ignored and absent fields are empty.
type claudeHookEvent struct {
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	HookEventName string `json:"hook_event_name"`
	ToolName      string `json:"tool_name"`
	AgentID       string `json:"agent_id"` // set inside subagents
}

// beat maps the event onto req, keeping what flags already set: the agent
// is "claude-" and the session's first 8 characters (a subagent adds its
// own id), the caller root is the session's cwd, and the tool — on
// PreToolUse as on PostToolUse — is classified by the Hall.
func (ev claudeHookEvent) beat(req contract.BeatRequest) contract.BeatRequest {
	if req.AgentID == "" {
		req.AgentID = agentid.Claude(ev.SessionID, ev.AgentID)
	}
	if req.CallerRoot == "" {
		req.CallerRoot = ev.Cwd
	}
	if req.Kind == "" {
		req.Kind = "claude-code"
	}
	if req.Tool == "" && (ev.HookEventName == "PreToolUse" || ev.HookEventName == "PostToolUse") {
		req.Tool = ev.ToolName
	}
	return req
}
