package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/a-h/templ"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/views"
)

// PageConfig tunes the script that keeps the Hall page live. Zero values
// take the defaults noted; tests shorten them.
type PageConfig struct {
	Silence time.Duration // a stream silent this long is checked, then left for polling; 30 s (two heartbeats)
	Poll    time.Duration // polling period while the stream is unavailable; 3 s
	Retry   time.Duration // how soon a failed stream is tried again; 10 s
}

func (c PageConfig) withDefaults() PageConfig {
	if c.Silence <= 0 {
		c.Silence = 30 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = 3 * time.Second
	}
	if c.Retry <= 0 {
		c.Retry = 10 * time.Second
	}
	return c
}

// HandlePage serves GET /[?brain=]: the Hall page, server-rendered and
// complete without JavaScript. A brain the Hall does not know is a 404
// page, a brain that is not an absolute path a 400 page, both inside the
// layout. An unreadable registry renders the page with the roster dropped
// whole and says why.
func (h *Handler) HandlePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	a := h.assets()
	page := views.Page{CSS: a.Path("hall.css"), JS: a.Path("hall.js")}

	brain, perr := scope(r.URL.Query().Get("brain"))
	snap, serr := h.roster().Snapshot(ctx)
	brains := brainCounts(snap)
	if perr != nil {
		page.JS, page.Title = "", "Not a brain — Hall"
		h.render(ctx, w, http.StatusBadRequest, views.NotFoundPage(views.NotFound{
			Page: page, Brains: brains,
			Heading: "That is not a brain",
			Detail:  "A brain is an absolute path: " + presence.ErrorMessage(perr) + ".",
		}))
		return
	}
	if serr == nil && brain != "" && !snap.Known(brain) {
		page.JS, page.Title = "", "Unknown brain — Hall"
		h.render(ctx, w, http.StatusNotFound, views.NotFoundPage(views.NotFound{
			Page: page, Brains: brains,
			Heading: "The Hall knows no such brain",
			Detail:  fmt.Sprintf("No agent has beaten on %s, and it is not configured with --brain.", r.URL.Query().Get("brain")),
		}))
		return
	}

	var data contract.PresencesResponse
	if serr != nil {
		code, detail := contract.RosterError(serr)
		h.Log.Warn("roster dropped", "error", code, "err", serr)
		data = contract.PresencesResponse{
			Presences: []contract.Presence{}, Collisions: []contract.Collision{},
			ServedBrain: brain, ServedAtMs: snap.AtMs,
			Error: code, Detail: detail,
		}
	} else {
		data = contract.FromSnapshot(snap.ForBrain(brain), brain)
	}
	cfg := h.Page.withDefaults()
	q := ""
	if brain != "" {
		q = "?brain=" + url.QueryEscape(brain)
	}
	model := views.Hall{
		Page: page,
		Live: views.Live{
			StreamURL: "/api/presences/stream" + q,
			PollURL:   "/api/presences" + q,
			SilenceMs: cfg.Silence.Milliseconds(),
			PollMs:    cfg.Poll.Milliseconds(),
			RetryMs:   cfg.Retry.Milliseconds(),
		},
		Brain:  brain,
		Data:   data,
		Brains: brains,
	}
	model.Title = views.Title(model)
	h.render(ctx, w, http.StatusOK, views.HallPage(model))
}

// render writes a component whole or not at all: it renders into a buffer
// first, so a failure is a clean 500 rather than half a page.
func (h *Handler) render(ctx context.Context, w http.ResponseWriter, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		h.Log.Error("render page", "err", err)
		writeError(w, fmt.Errorf("render page: %w", err), "internal")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// brainCounts is the brain picker: every known brain with its live
// presences and collisions.
func brainCounts(s presence.Snapshot) []views.BrainCount {
	idx := map[string]int{}
	out := make([]views.BrainCount, 0, len(s.Brains()))
	for _, b := range s.Brains() {
		idx[b] = len(out)
		out = append(out, views.BrainCount{Brain: b})
	}
	for _, r := range s.Live {
		if i, ok := idx[r.Brain]; ok {
			out[i].Live++
		}
	}
	for i := range out {
		out[i].Collisions = s.Counts.OnBrain(out[i].Brain)
	}
	return out
}
