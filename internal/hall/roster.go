package hall

import (
	"context"
	"strconv"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
)

// Scope resolves a brain as a client gave it: "" for owner-wide, else its
// canonical path. A relative path, or one that breaks the rules of shown
// text (a bidi control, a control character, over presence.MaxPathLen),
// is 400 invalid_brain.
func Scope(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	if err := presence.CheckText("brain", raw, presence.MaxPathLen); err != nil {
		return "", contract.Refuse(contract.KindInvalid, "invalid_brain", "%s", presence.ErrorMessage(err))
	}
	c, err := presence.CanonicalPath(raw)
	if err != nil {
		return "", contract.Refuse(contract.KindInvalid, "invalid_brain", "%s", presence.ErrorMessage(err))
	}
	return c, nil
}

// View is the roster one read shows: the snapshot, the brain it is scoped
// to ("" for owner-wide, else canonical), the stream cursor it matches
// ("" when the roster has none), and Err when the roster is dropped whole
// (an unreadable registry, a store out of reach): a read still answers
// then, saying so.
type View struct {
	Snap   presence.Snapshot
	Brain  string
	Cursor string
	Err    error
}

// Response is the contract for the view: the scoped roster and its
// collisions, or the dropped answer.
func (v View) Response() contract.PresencesResponse {
	if v.Err != nil {
		resp := contract.Dropped(v.Err, v.Snap.AtMs)
		resp.Cursor = v.Cursor
		return resp
	}
	resp := contract.FromSnapshot(v.Snap.ForBrain(v.Brain), v.Brain)
	resp.Cursor = v.Cursor
	return resp
}

// View reads the roster for the brain a client named ("" for owner-wide):
// invalid_brain for a bad path (nothing read), unknown_brain (404) for a
// brain the Hall does not know while the roster can be read; that refusal
// comes with the view read, for a surface that still shows the roster
// (the page's picker, a fragment rendered empty).
func (h *Hall) View(ctx context.Context, brain string) (View, error) {
	scoped, err := Scope(brain)
	if err != nil {
		return View{}, err
	}
	v := View{Brain: scoped}
	v.Snap, v.Cursor, v.Err = h.SnapshotCursor(ctx)
	if v.Err == nil && scoped != "" && !v.Snap.Known(scoped) {
		return v, contract.UnknownBrain(brain)
	}
	if v.Err != nil && h.Log != nil {
		h.Log.Warn("roster dropped", "err", v.Err)
	}
	return v, nil
}

// Presences is the contract for brain ("" for owner-wide).
func (h *Hall) Presences(ctx context.Context, brain string) (contract.PresencesResponse, error) {
	v, err := h.View(ctx, brain)
	if err != nil {
		return contract.PresencesResponse{}, err
	}
	return v.Response(), nil
}

// Cockpit is the strip's text for brain ("" for owner-wide): one root line
// and a drill of at most six rows, within the token budget. An unreadable
// registry still answers, saying so.
func (h *Hall) Cockpit(ctx context.Context, brain string) (string, error) {
	v, err := h.View(ctx, brain)
	if err != nil {
		return "", err
	}
	if v.Err != nil {
		return contract.UnreadableCockpit(v.Err, v.Brain), nil
	}
	return contract.CockpitFor(v.Snap.ForBrain(v.Brain), v.Brain).String(), nil
}

// Who names a presence: by its id, or by agent id and brain
// (contract.Who, the clients' type; WhoID checks it).
type Who = contract.Who

// WhoID is the presence id w names: its own, else agent and brain's.
// missing_presence when it names none, invalid_agent_id,
// invalid_brain or invalid_presence_id for a malformed part.
func WhoID(w Who) (string, error) {
	id := w.PresenceID
	if id == "" {
		if w.AgentID == "" || w.Brain == "" {
			return "", contract.Refuse(contract.KindInvalid, "missing_presence", "give presence_id, or agent_id and brain")
		}
		if err := presence.CheckIdentifier("agent_id", w.AgentID, presence.MaxIDLen); err != nil {
			return "", contract.Refuse(contract.KindInvalid, "invalid_agent_id", "%s", presence.ErrorMessage(err))
		}
		brain, err := Scope(w.Brain)
		if err != nil {
			return "", err
		}
		id = presence.ID(w.AgentID, brain)
	}
	if err := presence.CheckID(id); err != nil {
		return "", contract.FromDomain(err, "invalid_presence_id")
	}
	return id, nil
}

// North is one presence's collision lines: at most presence.NorthCap and
// then one "+N more" line, none when it collides with nobody. An
// unreadable registry still answers, with no lines and why.
func (h *Hall) North(ctx context.Context, who Who) (contract.NorthResponse, error) {
	id, err := WhoID(who)
	if err != nil {
		return contract.NorthResponse{}, err
	}
	snap, err := h.roster().Snapshot(ctx)
	if err != nil {
		return contract.NorthDropped(id, err), nil
	}
	_, live := snap.Find(id)
	cs, total := snap.North(id)
	resp := contract.NorthResponse{PresenceID: id, Live: &live, North: contract.NorthLines(id, cs, total), CollisionsTotal: total}
	if r, ok := snap.Find(id); ok {
		resp.Others = ownershipLines(h.sceneFor(r, snap.Live, r.CallerRoot))
	}
	resp.Overlaps, resp.OverlapsTotal = northOverlaps(snap, id)
	return resp, nil
}

// Default and greatest limit of an events read.
const (
	DefaultEventsLimit = 50
	MaxEventsLimit     = stream.DefaultEvents
)

// EventsLimit reads a client's limit: DefaultEventsLimit when empty, else
// a whole number from 1 to MaxEventsLimit (invalid_limit).
func EventsLimit(raw string) (int, error) {
	if raw == "" {
		return DefaultEventsLimit, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > MaxEventsLimit {
		return 0, contract.Refuse(contract.KindInvalid, "invalid_limit", "limit is %q: want a whole number from 1 to %d", raw, MaxEventsLimit)
	}
	return n, nil
}

// Events is what happened lately on brain ("" for every brain), newest
// first, at most limit: joins, leaves, collisions opened, changed and
// closed, the registry going unreadable and back. An unknown brain is
// unknown_brain (while the roster can be read).
func (h *Hall) Events(ctx context.Context, brain string, limit int) (contract.EventsResponse, error) {
	scoped, err := Scope(brain)
	if err != nil {
		return contract.EventsResponse{}, err
	}
	if limit < 1 || limit > MaxEventsLimit {
		return contract.EventsResponse{}, contract.Refuse(contract.KindInvalid, "invalid_limit", "limit is %d: want a whole number from 1 to %d", limit, MaxEventsLimit)
	}
	if scoped != "" {
		if snap, err := h.roster().Snapshot(ctx); err == nil && !snap.Known(scoped) {
			return contract.EventsResponse{}, contract.UnknownBrain(brain)
		}
	}
	page := contract.EventsResponse{Events: []contract.Line{}}
	if h.History != nil {
		page.Events, page.LeftOut = h.History.Events(scoped, limit)
		page.Kept = h.History.EventsKept()
	}
	return page, nil
}

// SnapshotCursor is the live roster and the stream cursor it matches (""
// when the roster is not the stream's view).
func (h *Hall) SnapshotCursor(ctx context.Context) (presence.Snapshot, string, error) {
	if cr, ok := h.roster().(CursorRoster); ok {
		return cr.SnapshotCursor(ctx)
	}
	snap, err := h.roster().Snapshot(ctx)
	return snap, "", err
}

// Snapshot is the live roster at this instant, unscoped: for surfaces that
// show every brain (health, the page's picker).
func (h *Hall) Snapshot(ctx context.Context) (presence.Snapshot, error) {
	return h.roster().Snapshot(ctx)
}

// StreamFilter is the live stream's narrowing as a client asked for it
// (GET /api/presences/stream's query): presenceID the agent's view (its
// own join, updates and leave, and its own collisions), collisionsOnly
// "1" or "true" for collisions alone ("", "0" or "false": everything),
// brain one brain's roster. Bad input is refused before any stream
// opens: invalid_presence_id, invalid_collisions_only, invalid_brain, and
// unknown_brain as GET /api/presences answers it; an unreadable registry
// is not refused (the stream opens and says so).
func (h *Hall) StreamFilter(ctx context.Context, brain, presenceID, collisionsOnly string) (stream.Filter, error) {
	f := stream.Filter{PresenceID: presenceID}
	if f.PresenceID != "" {
		if err := presence.CheckID(f.PresenceID); err != nil {
			return stream.Filter{}, contract.FromDomain(err, "invalid_presence_id")
		}
	}
	switch collisionsOnly {
	case "", "0", "false":
	case "1", "true":
		f.CollisionsOnly = true
	default:
		return stream.Filter{}, contract.Refuse(contract.KindInvalid, "invalid_collisions_only", "collisions_only is %q: use 1 or 0", collisionsOnly)
	}
	if brain != "" {
		v, err := h.View(ctx, brain)
		if err != nil {
			return stream.Filter{}, err
		}
		f.Brain = v.Brain
	}
	return f, nil
}
