package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hook"
	"github.com/hall-dev/hall/internal/place"
	"github.com/hall-dev/hall/internal/presence"
)

// HandleHook serves POST /api/hooks/{agent}[?on_collision=warn|ask]: an
// agent's HTTP hook. The body is the raw payload the agent would give a
// command hook (Claude Code's type "http" hooks POST exactly that); the
// answer is the JSON `hall beat --hook <agent>` would print, `{}` when
// there is nothing to say. The Hall completes the place from the payload's
// cwd on its own filesystem (the repository's main worktree is the brain,
// the cwd itself outside git), beats (or leaves, on the events that end a
// session), and answers the presence's collisions in the agent's own
// format. No process per tool call.
//
// Bad input (an unknown agent, a policy other than warn or ask, a payload
// that is not the agent's, a relative cwd) is a 4xx that writes nothing;
// the agent treats any non-2xx as a non-blocking error and carries on. A
// store that cannot be written still answers 200 with the collisions the
// Hall knows.
func (h *Handler) HandleHook(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), hook.AnswerDeadline)
	defer cancel()
	r = r.WithContext(ctx)
	ad, ok := hook.For(r.PathValue("agent"))
	if !ok {
		writeJSON(w, http.StatusNotFound, errorBody("unknown_agent", fmt.Errorf("no hook adapter for %q: want one of %v", r.PathValue("agent"), hook.Agents())))
		return
	}
	policy, err := hook.ParsePolicy(r.URL.Query().Get("on_collision"))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody("invalid_on_collision", err))
		return
	}
	payload, err := io.ReadAll(http.MaxBytesReader(w, r.Body, hook.MaxPayload))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeJSON(w, http.StatusRequestEntityTooLarge, errorBody("body_too_large", fmt.Errorf("the payload is over %d bytes", hook.MaxPayload)))
			return
		}
		writeJSON(w, http.StatusBadRequest, errorBody("unreadable_body", err))
		return
	}
	ev, err := ad.Parse(payload)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody("invalid_payload", fmt.Errorf("%s hook: %w", ad.Agent(), err)))
		return
	}
	req := ev.Beat
	if !filepath.IsAbs(req.CallerRoot) {
		writeJSON(w, http.StatusBadRequest, errorBody("invalid_payload", fmt.Errorf("%s hook: the payload's cwd %q is not an absolute path", ad.Agent(), req.CallerRoot)))
		return
	}
	p := place.Place{CallerRoot: req.CallerRoot}.Complete(r.Context())
	req.CallerRoot, req.Worktree, req.Brain = p.CallerRoot, p.Worktree, p.Brain

	if ev.Leave {
		if err := h.leaveAgent(r, req); err != nil {
			writeError(w, err, "")
			return
		}
		writeRaw(w, []byte("{}"))
		return
	}
	res, err := h.Service.Beat(r.Context(), req.Beat())
	if err != nil {
		code := "invalid_beat"
		if presence.ErrorCode(err) == presence.ETOOLARGE {
			code = "field_too_large"
		}
		writeJSON(w, http.StatusBadRequest, contract.ErrorResponse{Error: code, Detail: presence.ErrorMessage(err)})
		return
	}
	north := contract.NorthLines(res.PresenceID, res.Collisions, res.CollisionsTotal)
	out := ad.Answer(ev, hook.Decide(policy, ev, h.Service.Mutating(req.Tool), north))
	if out == nil {
		out = []byte("{}")
	}
	writeRaw(w, out)
}

// leaveAgent ends the presence the hook's agent holds on its brain (and,
// the service sees to it, the subagents it leads); one already gone is no
// error.
func (h *Handler) leaveAgent(r *http.Request, req contract.BeatRequest) error {
	brain, err := presence.CanonicalPath(req.Brain)
	if err != nil {
		return err
	}
	err = h.Service.Leave(r.Context(), presence.ID(req.AgentID, brain))
	if err != nil && presence.ErrorCode(err) != presence.ENOTFOUND {
		return err
	}
	return nil
}

// writeRaw answers 200 with JSON already encoded.
func writeRaw(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, '\n'))
}
