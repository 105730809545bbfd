package mcp

import (
	"context"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
)

// HandshakeIn is a beat's declarations. Every field is optional; absent
// ones keep what the presence declared before (working_set: [] clears).
type HandshakeIn struct {
	AgentID        string    `json:"agent_id,omitempty" jsonschema:"who is speaking, at most 128 bytes; default: this MCP session's id (see the Hall's docs/mcp.md), the same one its hooks use for Claude Code"`
	Brain          string    `json:"brain,omitempty" jsonschema:"absolute path of the workspace root; default: the main worktree of the git repository at caller_root, else caller_root"`
	CallerRoot     string    `json:"caller_root,omitempty" jsonschema:"absolute path the agent works from; default: the client's first root, else the MCP server's working directory"`
	Kind           string    `json:"kind,omitempty" jsonschema:"executor, reviewer, planner… (at most 128 bytes)"`
	Theme          string    `json:"theme,omitempty" jsonschema:"what the session works on, in a few words (at most 200 bytes)"`
	Worktree       string    `json:"worktree,omitempty" jsonschema:"absolute path of the git worktree; default: the top level of caller_root's repository"`
	WorkingSet     *[]string `json:"working_set,omitempty" jsonschema:"paths the agent will touch, relative to the worktree or absolute (at most 64 of 1024 bytes); [] clears the set"`
	TaskRef        string    `json:"task_ref,omitempty" jsonschema:"the task or mission id (at most 128 bytes)"`
	DeclaredIntent string    `json:"declared_intent,omitempty" jsonschema:"the session's declared intent (at most 200 bytes): \"mutate\" (any case) declares a mutation, which can collide; any other text (\"read\") is shown and signals nothing"`
}

// HandshakeOut is the beat's answer.
type HandshakeOut struct {
	PresenceID string   `json:"presence_id" jsonschema:"the presence this session is: prs_ and 12 hex digits"`
	AgentID    string   `json:"agent_id" jsonschema:"the agent_id beaten as, shortened to 40 characters for display"`
	Brain      string   `json:"brain" jsonschema:"the brain beaten on, its tail kept to 72 characters"`
	Stored     bool     `json:"stored" jsonschema:"whether this beat reached the store now (false when throttled: it is held and written within 5 s)"`
	Reason     string   `json:"reason,omitempty" jsonschema:"why it was not stored"`
	North      []string `json:"north" jsonschema:"one line per session this one collides with"`
	NorthMore  int      `json:"north_more" jsonschema:"collision lines left out"`
	// Overlaps are the overlaps this beat tells (the Hall tells each once
	// as it opens or becomes a conflict): another worktree changed the
	// same files.
	Overlaps     []string `json:"overlaps,omitempty" jsonschema:"one line per overlap told now: another worktree changed the same files (verdict overlap, or conflict when git predicts the merge conflicts)"`
	OverlapsMore int      `json:"overlaps_more,omitempty" jsonschema:"overlap lines left out"`
}

// BrainIn names a brain, or none for every brain.
type BrainIn struct {
	Brain string `json:"brain,omitempty" jsonschema:"absolute path of a brain (workspace root); default: every brain"`
}

// PresenceIn names a presence: by presence_id, or agent_id and brain.
type PresenceIn struct {
	PresenceID string `json:"presence_id,omitempty" jsonschema:"prs_ and 12 hex digits; default: this session's own presence"`
	AgentID    string `json:"agent_id,omitempty" jsonschema:"with brain, instead of presence_id; default: this session's agent_id"`
	Brain      string `json:"brain,omitempty" jsonschema:"with agent_id; default: as handshake derives it"`
}

// NorthOut is a presence's collision lines.
type NorthOut struct {
	PresenceID   string   `json:"presence_id"`
	Live         *bool    `json:"live,omitempty" jsonschema:"whether the presence is on the roster now (absent while the store cannot be read)"`
	North        []string `json:"north" jsonschema:"one line per collision partner: who, where, which clause"`
	NorthMore    int      `json:"north_more" jsonschema:"lines left out"`
	Others       []string `json:"others,omitempty" jsonschema:"whose uncommitted changes are in this worktree, and to leave them alone"`
	Overlaps     []string `json:"overlaps" jsonschema:"one line per overlap: another worktree changed the same files (verdict overlap, or conflict when git predicts the merge conflicts)"`
	OverlapsMore int      `json:"overlaps_more" jsonschema:"overlap lines left out"`
	Error        string   `json:"error,omitempty" jsonschema:"registry_unreadable when the Hall cannot read its store"`
	Detail       string   `json:"detail,omitempty"`
}

// CockpitOut is the strip as text.
type CockpitOut struct {
	Text string `json:"text" jsonschema:"exactly GET /api/cockpit's text: a root line and at most six rows"`
}

// LeaveOut says whether the presence was live and has now left.
type LeaveOut struct {
	PresenceID string `json:"presence_id"`
	Left       bool   `json:"left" jsonschema:"false when the presence was not live (already gone)"`
}

func (s *server) addTools(srv *sdk.Server) {
	no := false
	addTool(s, srv, &sdk.Tool{
		Name:  "handshake",
		Title: "Declare what this session works on",
		Description: "Beat into the Hall with this session's declarations (theme, worktree, working_set, declared_intent…) " +
			"and get its north: one line per mutating session it collides with. Call it when you start and when your work changes. " +
			"brain, caller_root and worktree default to where this session works. Answers the presence_id.",
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, s.handshake)
	addTool(s, srv, &sdk.Tool{
		Name:        "presences",
		Title:       "Who else is here",
		Description: "The live sessions and collisions of a brain (or every brain), compact: at most 5 sessions, colliding ones first, and 3 collisions, each list saying how many it left out.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
	}, s.presences)
	addTool(s, srv, &sdk.Tool{
		Name:        "north",
		Title:       "Do I collide",
		Description: "One presence's collisions (this session's by default): one line per other mutating session sharing its worktree, caller root or working set.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
	}, s.north)
	addTool(s, srv, &sdk.Tool{
		Name:  "check",
		Title: "Would this collide",
		Description: "Before starting work on some paths, ask whom it would collide with (another mutating session in the same worktree, caller root or working set) " +
			"or overlap (another worktree changing the same files), and why. Writes nothing. brain, caller_root and worktree default to where this session works.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
	}, s.check)
	addTool(s, srv, &sdk.Tool{
		Name:        "cockpit",
		Title:       "The strip",
		Description: "The Hall's strip as text, exactly as GET /api/cockpit: live count, scope, the collision warning, and at most six sessions.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
	}, s.cockpit)
	addTool(s, srv, &sdk.Tool{
		Name:        "leave",
		Title:       "End this session's presence",
		Description: "End a presence at once (this session's by default) instead of letting it lapse after its ttl.",
		Annotations: &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, s.leave)
	s.addSnapshotsTool(srv)
}

func (s *server) handshake(ctx context.Context, req *sdk.CallToolRequest, in HandshakeIn) (HandshakeOut, string, error) {
	if err := s.authorize(req); err != nil {
		return HandshakeOut{}, "", err
	}
	b := contract.BeatRequest{
		AgentID: in.AgentID, Brain: in.Brain, CallerRoot: in.CallerRoot, Kind: in.Kind, Theme: in.Theme,
		Worktree: in.Worktree, WorkingSet: in.WorkingSet, TaskRef: in.TaskRef, DeclaredIntent: in.DeclaredIntent,
	}
	if b.AgentID == "" {
		b.AgentID = s.defaultAgent(req)
	}
	if err := s.locate(ctx, req, &b); err != nil {
		return HandshakeOut{}, "", err
	}
	resp, err := s.cfg.Client.Beat(ctx, b)
	if err != nil {
		return HandshakeOut{}, "", err
	}
	out, text := renderHandshake(b, resp)
	return out, text, nil
}

// locate fills what the call did not declare as `hall beat` measures it:
// caller_root from the client's roots or the server's directory, worktree
// and brain from git at caller_root.
func (s *server) locate(ctx context.Context, req *sdk.CallToolRequest, b *contract.BeatRequest) error {
	if b.CallerRoot == "" {
		dir, err := s.callerDir(ctx, req)
		if err != nil {
			return err
		}
		b.CallerRoot = dir
	}
	if b.CallerRoot != "" && !filepath.IsAbs(b.CallerRoot) {
		_, err := presence.CanonicalPath(b.CallerRoot)
		return contract.Refuse(contract.KindInvalid, "invalid_beat", "caller_root: %s", presence.ErrorMessage(err))
	}
	*b = hall.CompletePlace(ctx, *b)
	if b.Brain == "" {
		return contract.Refuse(contract.KindInvalid, "invalid_beat",
			"brain is required: this MCP client sent no roots, and the server has no working directory of the agent's to measure it from")
	}
	return nil
}

// target is the presence a call names: its presence_id, else agent_id
// (this session's by default) on brain (measured as handshake measures it
// by default).
func (s *server) target(ctx context.Context, req *sdk.CallToolRequest, in PresenceIn) (contract.Who, error) {
	if in.PresenceID != "" {
		return contract.Who{PresenceID: in.PresenceID}, nil
	}
	b := contract.BeatRequest{AgentID: in.AgentID, Brain: in.Brain}
	if b.AgentID == "" {
		b.AgentID = s.defaultAgent(req)
	}
	if b.Brain == "" {
		if err := s.locate(ctx, req, &b); err != nil {
			return contract.Who{}, err
		}
	}
	return contract.Who{AgentID: b.AgentID, Brain: b.Brain}, nil
}

func (s *server) presences(ctx context.Context, _ *sdk.CallToolRequest, in BrainIn) (PresencesOut, string, error) {
	resp, err := s.cfg.Client.Presences(ctx, in.Brain)
	if err != nil {
		return PresencesOut{}, "", err
	}
	out, text := renderPresences(resp)
	return out, text, nil
}

func (s *server) north(ctx context.Context, req *sdk.CallToolRequest, in PresenceIn) (NorthOut, string, error) {
	who, err := s.target(ctx, req, in)
	if err != nil {
		return NorthOut{}, "", err
	}
	resp, err := s.cfg.Client.North(ctx, who)
	if err != nil {
		return NorthOut{}, "", err
	}
	out, text := renderNorth(resp)
	return out, text, nil
}

func (s *server) check(ctx context.Context, req *sdk.CallToolRequest, in CheckIn) (CheckOut, string, error) {
	b := contract.BeatRequest{AgentID: in.AgentID, Brain: in.Brain, CallerRoot: in.CallerRoot, Worktree: in.Worktree}
	if b.AgentID == "" {
		b.AgentID = s.defaultAgent(req)
	}
	if err := s.locate(ctx, req, &b); err != nil {
		return CheckOut{}, "", err
	}
	resp, err := s.cfg.Client.Check(withSession(ctx, req), contract.CheckRequest{
		AgentID: b.AgentID, Brain: b.Brain, CallerRoot: b.CallerRoot, Worktree: b.Worktree, Paths: in.Paths, Mutating: in.Mutating,
	})
	if err != nil {
		return CheckOut{}, "", err
	}
	out, text := renderCheck(resp)
	return out, text, nil
}

// withSession names the call's MCP session as its client: a check and a
// snapshot read are rate-limited per client, here per MCP session (the
// Hall bounds their number). Over `hall mcp` the HTTP Hall names the
// client itself.
func withSession(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	if req != nil && req.Session != nil && req.Session.ID() != "" {
		return hall.WithClient(ctx, "mcp "+req.Session.ID())
	}
	return ctx
}

func (s *server) cockpit(ctx context.Context, _ *sdk.CallToolRequest, in BrainIn) (CockpitOut, string, error) {
	text, err := s.cfg.Client.Cockpit(ctx, in.Brain)
	if err != nil {
		return CockpitOut{}, "", err
	}
	return CockpitOut{Text: text}, text, nil
}

func (s *server) leave(ctx context.Context, req *sdk.CallToolRequest, in PresenceIn) (LeaveOut, string, error) {
	if err := s.authorize(req); err != nil {
		return LeaveOut{}, "", err
	}
	who, err := s.target(ctx, req, in)
	if err != nil {
		return LeaveOut{}, "", err
	}
	id, err := hall.WhoID(who)
	if err != nil {
		return LeaveOut{}, "", err
	}
	switch err := s.cfg.Client.Leave(ctx, id); {
	case contract.IsNotFound(err):
		return LeaveOut{PresenceID: id}, id + " was not live: nothing to end\n", nil
	case err != nil:
		return LeaveOut{}, "", err
	}
	return LeaveOut{PresenceID: id, Left: true}, id + " left\n", nil
}

// authorize applies the Hall's write rule (Config.AuthorizeWrite) to a
// writing call, given the Authorization header of the request that
// carries it. Over stdio there is no rule: `hall mcp` carries its own
// token to the Hall.
func (s *server) authorize(req *sdk.CallToolRequest) error {
	if s.cfg.AuthorizeWrite == nil {
		return nil
	}
	var got string
	if req.Extra != nil && req.Extra.Header != nil {
		got = req.Extra.Header.Get("Authorization")
	}
	return s.cfg.AuthorizeWrite(got)
}
