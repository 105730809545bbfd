package hall

import (
	"context"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// Beat reports one beat through the service's throttled path and answers
// the presence id, whether the beat reached the store (a store that cannot
// be written is no refusal: stored is false and reason says why), and the
// agent's north lines. A beat that breaks a rule is refused
// (invalid_beat, field_too_large) and writes nothing.
func (h *Hall) Beat(ctx context.Context, req contract.BeatRequest) (contract.BeatResponse, error) {
	res, err := h.Service.Beat(ctx, req.Beat())
	if err != nil {
		return contract.BeatResponse{}, contract.BeatError(err)
	}
	return contract.FromBeatResult(res), nil
}

// Leave ends a presence at once: unknown_presence when none is live,
// invalid_presence_id for a malformed id.
func (h *Hall) Leave(ctx context.Context, presenceID string) error {
	if err := h.Service.Leave(ctx, presenceID); err != nil {
		return contract.LeaveError(err)
	}
	return nil
}

// LeaveAgent ends agentID's presence on brain (and, the service sees to
// it, the subagents it leads). One already gone is no error: the leave's
// goal holds.
func LeaveAgent(ctx context.Context, b Beater, agentID, brain string) error {
	canonical, err := presence.CanonicalPath(brain)
	if err != nil {
		return contract.Refuse(http.StatusBadRequest, "invalid_brain", "%s", presence.ErrorMessage(err))
	}
	if err := b.Leave(ctx, presence.ID(agentID, canonical)); err != nil && !contract.IsNotFound(err) {
		return err
	}
	return nil
}

// Stored reports whether the Hall has the beat: written now, or held by
// the throttle and written within its window. A beat neither stored nor
// throttled met a store that could not be written.
func Stored(resp contract.BeatResponse) bool { return resp.Stored || resp.Throttled }
