package hall

import (
	"context"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/place"
	"github.com/hall-dev/hall/internal/presence"
)

// Beat reports one beat through the service's throttled path and answers
// the presence id, whether the beat reached the store (a store that cannot
// be written is no refusal: stored is false and reason says why), and the
// agent's north lines. A beat that breaks a rule is refused
// (invalid_beat, field_too_large) and writes nothing.
//
// A hook's beat (req.Hook) is also answered for the hook (resp.Hook,
// guard.go): the shell guard, the ownership lines, say it once.
//
// The record takes git's latest answer for its worktree from the
// scanner (gitChanges), so a Hall on another machine sharing the store
// finds path overlaps with it.
func (h *Hall) Beat(ctx context.Context, req contract.BeatRequest) (contract.BeatResponse, error) {
	if err := checkHookBeat(req.Hook); err != nil {
		return contract.BeatResponse{}, err
	}
	b := req.Beat()
	b.Host = h.Host
	if h.Git != nil {
		b.Git = h.gitChanges
	}
	res, err := h.Service.Beat(ctx, b)
	if err != nil {
		return contract.BeatResponse{}, contract.BeatError(err)
	}
	resp := contract.FromBeatResult(res)
	// A beat after a destructive command's own says it ran: check what
	// it lost (recovery.go). A map lookup when none awaits.
	h.checkAfter(res.PresenceID)
	if req.Hook != nil {
		resp.Hook = h.hookSay(ctx, req, res, resp.North)
	}
	resp.Overlaps = h.overlapsToTell(res.PresenceID, req)
	return resp, nil
}

// gitChanges is the scanner's latest answer for a worktree, as a record
// carries it (presence.Beat.Git): a map lookup, never a git run. No
// answer (not scanned yet, or git could not answer here: another
// machine's worktree, git missing) leaves the record's as it was, so a
// Hall that cannot see a worktree never clears what one that can wrote.
func (h *Hall) gitChanges(worktree string) (presence.GitChanges, bool) {
	res, ok := h.Git.Result(worktree)
	if !ok || res.Err != nil {
		return presence.GitChanges{}, false
	}
	return presence.GitChanges{Files: res.Changes.Files, Total: res.Changes.Total, AtMs: res.ScannedAt.UnixMilli(), Repository: res.Changes.Repository}, true
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
		return contract.Refuse(contract.KindInvalid, "invalid_brain", "%s", presence.ErrorMessage(err))
	}
	// The record an older Hall wrote under its old id goes too.
	for _, id := range []string{presence.ID(agentID, canonical), presence.LegacyID(agentID, canonical)} {
		if err := b.Leave(ctx, id); err != nil && !contract.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// Stored reports whether the Hall has the beat: written now, or held by
// the throttle and written within its window. A beat neither stored nor
// throttled met a store that could not be written.
func Stored(resp contract.BeatResponse) bool { return resp.Stored || resp.Throttled }

// CompletePlace fills what a beat left unsaid of where its session works,
// measured from its caller_root on this machine's filesystem (package
// place): the worktree is the git top level holding it, the brain the
// repository's main worktree (else the worktree, else the caller root).
// What the beat said is kept as said, for the Hall to judge. Every surface
// that beats for an agent (the hook, `hall beat`, the MCP handshake)
// completes the place here.
//
// The lookup is bounded (place.Place.Complete): within ctx, a deadline and
// a cap on lookups at once, past which the caller root counts as outside
// git.
func CompletePlace(ctx context.Context, req contract.BeatRequest) contract.BeatRequest {
	if req.CallerRoot == "" {
		return req
	}
	p := place.Place{CallerRoot: req.CallerRoot}.Complete(ctx)
	req.CallerRoot = p.CallerRoot
	if req.Worktree == "" {
		req.Worktree = p.Worktree
	}
	if req.Brain == "" {
		req.Brain = p.Brain
	}
	return req
}
