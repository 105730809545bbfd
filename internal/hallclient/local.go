package hallclient

import (
	"context"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// Roster is the live roster at this instant: *presence.Service, or the
// Hall's cached view (*stream.Hub).
type Roster interface {
	Snapshot(ctx context.Context) (presence.Snapshot, error)
}

// Local is a Hall in this process: a presence service over a registry
// written directly (hall beat and hall mcp with --registry-root), or the
// Hall's own service when it serves MCP. It answers exactly what the
// Hall's handlers (internal/web) answer for the same store.
type Local struct {
	Service *presence.Service
	Roster  Roster // Service when nil
	// Changes signals each change of the roster, for Watch: the Hall's
	// hub (stream.Hub.Changed), or the service's own signal when nothing
	// else reads it (hall mcp --registry-root). Nil: Watch reports none.
	Changes <-chan struct{}
}

// Watch calls changed on each token of Changes until ctx ends.
func (l *Local) Watch(ctx context.Context, changed func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.Changes: // a nil channel never delivers
			changed()
		}
	}
}

func (l *Local) roster() Roster {
	if l.Roster != nil {
		return l.Roster
	}
	return l.Service
}

// Beat takes the beat through the service's throttled path.
func (l *Local) Beat(ctx context.Context, req contract.BeatRequest) (contract.BeatResponse, error) {
	res, err := l.Service.Beat(ctx, req.Beat())
	if err != nil {
		status, body := contract.BeatError(err)
		return contract.BeatResponse{}, refusal(status, body)
	}
	return contract.FromBeatResult(res), nil
}

// Leave ends the presence.
func (l *Local) Leave(ctx context.Context, presenceID string) error {
	if err := l.Service.Leave(ctx, presenceID); err != nil {
		return refusal(contract.LeaveError(err))
	}
	return nil
}

// Presences is the contract for brain ("" for owner-wide).
func (l *Local) Presences(ctx context.Context, given string) (contract.PresencesResponse, error) {
	brain, err := scope(given)
	if err != nil {
		return contract.PresencesResponse{}, err
	}
	snap, err := l.roster().Snapshot(ctx)
	if err != nil {
		return contract.Dropped(err, snap.AtMs), nil
	}
	if brain != "" && !snap.Known(brain) {
		return contract.PresencesResponse{}, refusal(contract.UnknownBrain(given))
	}
	return contract.FromSnapshot(snap.ForBrain(brain), brain), nil
}

// North is the presence's north lines.
func (l *Local) North(ctx context.Context, presenceID string) (contract.NorthResponse, error) {
	if !presence.ValidID(presenceID) {
		return contract.NorthResponse{}, &Error{Status: http.StatusBadRequest, Code: "invalid_presence_id", Detail: "presence_id is prs_ and 12 lowercase hex digits"}
	}
	snap, err := l.roster().Snapshot(ctx)
	if err != nil {
		return contract.NorthDropped(presenceID, err), nil
	}
	cs, total := snap.North(presenceID)
	return contract.NorthResponse{PresenceID: presenceID, North: contract.NorthLines(presenceID, cs, total), CollisionsTotal: total}, nil
}

// Cockpit is the strip's text for brain ("" for owner-wide).
func (l *Local) Cockpit(ctx context.Context, given string) (string, error) {
	brain, err := scope(given)
	if err != nil {
		return "", err
	}
	snap, err := l.roster().Snapshot(ctx)
	if err != nil {
		return contract.UnreadableCockpit(err, brain), nil
	}
	if brain != "" && !snap.Known(brain) {
		return "", refusal(contract.UnknownBrain(given))
	}
	return contract.CockpitFor(snap.ForBrain(brain), brain).String(), nil
}

// scope resolves a brain as the handlers do: "" for owner-wide, else its
// canonical path; a relative one is 400 invalid_brain.
func scope(brain string) (string, error) {
	if brain == "" {
		return "", nil
	}
	c, err := presence.CanonicalPath(brain)
	if err != nil {
		return "", &Error{Status: contract.StatusOf(presence.ErrorCode(err)), Code: "invalid_brain", Detail: presence.ErrorMessage(err)}
	}
	return c, nil
}

func refusal(status int, body contract.ErrorResponse) *Error {
	return &Error{Status: status, Code: body.Error, Detail: body.Detail}
}
