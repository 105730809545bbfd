package web

import (
	"context"
	"io"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hall"
)

// maxHookBody bounds what is read of a hook's body: one byte past the
// hook operation's own limit, so it can say the payload is too large.
const maxHookBody = hall.MaxHookPayload + 1

// HandleHook serves POST /api/hooks/{agent}[?on_collision=warn|ask]: an
// agent's HTTP hook (hall.Hook). The body is the raw payload the agent
// would give a command hook (Claude Code's type "http" hooks POST exactly
// that); the answer is the JSON `hall beat --hook <agent>` would print,
// `{}` when there is nothing to say. No process per tool call.
//
// Bad input (an unknown agent, a policy other than warn or ask, a payload
// that is not the agent's, a relative cwd) is a 4xx that writes nothing;
// the agent treats any non-2xx as a non-blocking error and carries on. A
// store that cannot be written still answers 200 with the collisions the
// Hall knows.
func (h *Handler) HandleHook(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), hall.HookDeadline)
	defer cancel()
	r = r.WithContext(ctx)
	payload, err := io.ReadAll(io.LimitReader(r.Body, maxHookBody))
	if err != nil {
		return contract.Refuse(contract.KindInvalid, "unreadable_body", "%v", err)
	}
	ans, err := h.App.Hook(r.Context(), hall.HookRequest{
		Agent: r.PathValue("agent"), Policy: r.URL.Query().Get("on_collision"), Payload: payload,
	})
	if err != nil {
		return err
	}
	if ans.Warning != "" && h.Log != nil {
		h.Log.Warn("hook answered without storing its beat", "agent", r.PathValue("agent"), "why", ans.Warning)
	}
	out := ans.Output
	if out == nil {
		out = []byte("{}")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(out, '\n')) // the status is sent: nothing more to say of a failed write
	return nil
}
