package hall

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hook"
)

// HookRequest is one agent hook call: the agent's raw payload and how to
// answer it.
type HookRequest struct {
	Agent   string // "claude", "codex", "cursor", "gemini": the adapter (unknown_agent otherwise)
	Payload []byte // as the agent wrote it (body_too_large past hook.MaxPayload)
	Policy  string // "warn" (also ""), or "ask" (invalid_on_collision otherwise)
	// Override is what a command line said over the payload (`hall beat
	// --hook --theme …`): each field set wins.
	Override contract.BeatRequest
	// DefaultCallerRoot stands in for a payload that names no cwd: the
	// hook process's own directory. Empty (the Hall's endpoint, whose
	// directory says nothing of the agent's): such a payload is refused.
	DefaultCallerRoot string
	// Leave ends the presence whatever the event (`hall leave --hook`).
	Leave bool
	// Mutating is the classifier that decides an ask: the Hall's own
	// (*Hall.Mutating), or a command line's --mutating-tool.
	Mutating func(tool string) bool
	// Page is the Hall's page address, told to the person at their
	// session's start (hook.Say.Page): the Hall's own (Hall.Page), or the
	// address a command line reached; "" tells nothing.
	Page string
}

// Hook answers an agent's hook payload on the Hall b: read the payload,
// complete the place from its cwd on this machine (the repository's main
// worktree is the brain, the cwd itself outside git), beat (or leave, on
// the events that end a session), and answer the presence's collisions in
// the agent's own hook output (Output nil when there is nothing to say). It runs
// in the Hall for the HTTP hook endpoint and in `hall beat --hook`, over
// whichever Beater reaches the Hall.
//
// A payload that is not the agent's, or names a relative cwd, is a
// refusal (4xx) that writes nothing; the agent treats it as a
// non-blocking error and carries on.
func Hook(ctx context.Context, b Beater, req HookRequest) (HookAnswer, error) {
	ad, ok := hook.For(req.Agent)
	if !ok {
		return HookAnswer{}, contract.Refuse(contract.KindNotFound, "unknown_agent", "no hook adapter for %q: want one of %v", req.Agent, hook.Agents())
	}
	policy, err := hook.ParsePolicy(req.Policy)
	if err != nil {
		return HookAnswer{}, contract.Refuse(contract.KindInvalid, "invalid_on_collision", "%v", err)
	}
	if len(req.Payload) > hook.MaxPayload {
		return HookAnswer{}, contract.Refuse(contract.KindTooLarge, "body_too_large", "the payload is over %d bytes", hook.MaxPayload)
	}
	ev, err := ad.Parse(req.Payload)
	if err != nil {
		return HookAnswer{}, contract.Refuse(contract.KindInvalid, "invalid_payload", "%s hook: %v", ad.Agent(), err)
	}
	beat := withOverride(ev.Beat, req.Override)
	if beat.CallerRoot == "" {
		beat.CallerRoot = req.DefaultCallerRoot
	}
	if !filepath.IsAbs(beat.CallerRoot) {
		return HookAnswer{}, contract.Refuse(contract.KindInvalid, "invalid_payload", "%s hook: the payload's cwd %q is not an absolute path", ad.Agent(), beat.CallerRoot)
	}
	beat = CompletePlace(ctx, beat)

	if req.Leave || ev.Leave {
		return HookAnswer{}, LeaveAgent(ctx, b, beat.AgentID, beat.Brain)
	}
	beat.Hook = hookBeat(ad, ev)
	beat.Listening = listening(beat.Hook) // overlap.go
	resp, err := b.Beat(ctx, beat)
	if err != nil {
		return HookAnswer{}, err
	}
	var ans HookAnswer
	if !Stored(resp) {
		// Fail-open: the answer still goes out, with the collisions the
		// Hall knows.
		ans.Warning = fmt.Sprintf("the Hall did not store the beat: %s", resp.Reason)
	}
	mutating := req.Mutating != nil && req.Mutating(beat.Tool)
	say := withHookSay(policy, ev, hook.Decide(policy, ev, mutating, resp.North), resp.Hook)
	sayOverlaps(&say, resp) // overlap.go
	say.Page = req.Page
	ans.Output = ad.Answer(ev, say)
	return ans, nil
}

// HookAnswer is what a hook call answers: the agent's hook output (nil
// when there is nothing to say), and a warning for the person running the
// hook when the Hall took the call but could not keep the beat.
type HookAnswer struct {
	Output  []byte
	Warning string
}

// withOverride lays what a command line said over what the payload said:
// a field given wins (--agent-id, --theme, --working-set…).
func withOverride(fromPayload, over contract.BeatRequest) contract.BeatRequest {
	out := fromPayload
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&out.AgentID, over.AgentID)
	set(&out.Brain, over.Brain)
	set(&out.CallerRoot, over.CallerRoot)
	set(&out.Worktree, over.Worktree)
	set(&out.Kind, over.Kind)
	set(&out.Theme, over.Theme)
	set(&out.TaskRef, over.TaskRef)
	set(&out.Tool, over.Tool)
	set(&out.DeclaredIntent, over.DeclaredIntent)
	if over.WorkingSet != nil {
		out.WorkingSet = over.WorkingSet
	}
	return out
}

// Hook answers a hook payload on this Hall, with its own classifier when
// the request names none.
func (h *Hall) Hook(ctx context.Context, req HookRequest) (HookAnswer, error) {
	if req.Mutating == nil {
		req.Mutating = h.Mutating
	}
	if req.Page == "" {
		req.Page = h.Page
	}
	return Hook(ctx, h, req)
}

// HookDeadline bounds the Hall's work on one hook call (hook.AnswerDeadline):
// the place lookup, the beat, the answer.
const HookDeadline = hook.AnswerDeadline

// MaxHookPayload bounds a hook payload (hook.MaxPayload): agents send a
// few kilobytes, a Write carries the file's content.
const MaxHookPayload = hook.MaxPayload
