package web

import (
	"net/http"
	"strconv"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
)

// History is the Hall's recent events, told as hall watch --json tells
// them, and when each open collision opened; *stream.Hub in production.
type History interface {
	Events(brain string, limit int) ([]stream.Line, int)
	EventsKept() int
	CollisionsOpened(ids []string) map[string]stream.Opened
}

// Default and greatest limit of GET /api/events.
const (
	DefaultEventsLimit = 50
	MaxEventsLimit     = stream.DefaultEvents
)

// EventsResponse is GET /api/events: the recent events, newest first;
// LeftOut counts the matching events the history holds beyond the limit,
// Kept is how many events the history holds at most (all brains together).
type EventsResponse struct {
	Events  []stream.Line `json:"events"`
	LeftOut int           `json:"left_out"`
	Kept    int           `json:"kept"`
}

// HandleEvents serves GET /api/events[?brain=][&limit=]: what happened
// lately — joins, leaves, collisions opened, changed and closed (with how
// long each lasted), the registry going unreadable and back — newest
// first, with the same types and fields as `hall watch --json`. The
// history is in memory and bounded (the last 1,000 events of every brain
// together; updates are not kept); a restart starts it empty. An unknown
// brain is 404, a bad limit 400.
func (h *Handler) HandleEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	brain, err := scope(q.Get("brain"))
	if err != nil {
		writeError(w, err, "invalid_brain")
		return
	}
	limit := DefaultEventsLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxEventsLimit {
			writeError(w, presence.Errorf(presence.EINVALID, "limit is %q: want a whole number from 1 to %d", s, MaxEventsLimit), "invalid_limit")
			return
		}
		limit = n
	}
	if brain != "" {
		if snap, err := h.roster().Snapshot(r.Context()); err == nil && !snap.Known(brain) {
			writeError(w, presence.Errorf(presence.ENOTFOUND, "the Hall knows no brain %q", brain), "unknown_brain")
			return
		}
	}
	resp := EventsResponse{Events: []stream.Line{}}
	if h.History != nil {
		resp.Events, resp.LeftOut = h.History.Events(brain, limit)
		resp.Kept = h.History.EventsKept()
	}
	writeJSON(w, http.StatusOK, resp)
}
