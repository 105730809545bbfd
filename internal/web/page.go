package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hall"
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

// RecentShown is how many recent events the page's Recent panel shows.
const RecentShown = 50

// HandlePage serves GET /[?brain=][&roster=all]: the Hall page,
// server-rendered and complete without JavaScript. A brain the Hall does
// not know is a 404 page, a brain that is not an absolute path a 400 page,
// both inside the layout. An unreadable registry renders the page with the
// roster dropped whole and says why.
func (h *Handler) HandlePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	a := h.assets()
	page := views.Page{CSS: a.Path("hall.css"), JS: a.Path("hall.js"), Icon: a.Path("icon.svg")}

	q := r.URL.Query()
	v, err := h.App.View(ctx, q.Get("brain"))
	switch {
	case contract.IsNotFound(err):
		page.JS, page.Title = "", "Unknown brain — Hall"
		h.render(ctx, w, http.StatusNotFound, views.NotFoundPage(views.NotFound{
			Page: page, Brains: brainCounts(v.Snap),
			Heading: "The Hall knows no such brain",
			Detail:  fmt.Sprintf("No agent has beaten on %s, and it is not configured with --brain.", q.Get("brain")),
		}))
		return
	case err != nil:
		snap, _ := h.App.Snapshot(ctx) // the picker
		page.JS, page.Title = "", "Not a brain — Hall"
		h.render(ctx, w, http.StatusBadRequest, views.NotFoundPage(views.NotFound{
			Page: page, Brains: brainCounts(snap),
			Heading: "That is not a brain",
			Detail:  "A brain is an absolute path: " + refusalDetail(err) + ".",
		}))
		return
	}
	model := h.hallModel(v, q.Get("roster") == "all")
	model.Page.CSS, model.Page.JS = page.CSS, page.JS
	h.render(ctx, w, http.StatusOK, views.HallPage(model))
}

// hallModel is everything the Hall page and its fragments show for a
// scope: the roster (or why it was dropped), the picker, the recent
// events and how long each collision has been open.
func (h *Handler) hallModel(v hall.View, rosterAll bool) views.Hall {
	snap, brain := v.Snap, v.Brain
	data := v.Response() // a dropped roster is logged by View
	if v.Err != nil {
		data.ServedBrain = contract.Served(brain)
	}
	cfg := h.Page.withDefaults()
	a := h.assets()
	scopeQ := url.Values{}
	if brain != "" {
		scopeQ.Set("brain", brain)
	}
	fragQ := url.Values{}
	for k, v := range scopeQ {
		fragQ[k] = v
	}
	if rosterAll {
		fragQ.Set("roster", "all")
	}
	model := views.Hall{
		Page: views.Page{Icon: a.Path("icon.svg")},
		Live: views.Live{
			StreamURL:    "/api/presences/stream" + query(scopeQ),
			FragmentURL:  "/fragments/hall" + query(fragQ),
			SilenceMs:    cfg.Silence.Milliseconds(),
			PollMs:       cfg.Poll.Milliseconds(),
			RetryMs:      cfg.Retry.Milliseconds(),
			IconURL:      a.Path("icon.svg"),
			AlertIconURL: a.Path("icon-alert.svg"),
		},
		Brain:     brain,
		Data:      data,
		Brains:    brainCounts(snap),
		RosterAll: rosterAll,
		Sig:       views.RosterSig(data),
		Sides:     contract.Colliding(data.Collisions),
		Cards:     views.PlaceCards(data.Collisions, data.Presences),
		Host:      h.App.Host,
	}
	model.Pictures, model.PicturesMore = views.Pictures(data.Overlaps)
	model.RemotesFailing = h.App.RemotesFailing()
	for _, l := range h.App.Losses() {
		if len(model.Losses) == views.LossesShown {
			break
		}
		if brain == "" || l.Brain == brain {
			model.Losses = append(model.Losses, l)
		}
	}
	if len(data.Collisions) > 0 {
		model.Page.Icon = model.AlertIconURL
	}
	if h.History != nil {
		lines, left := h.History.Events(brain, RecentShown)
		kept := h.History.EventsKept()
		evQ := url.Values{"limit": {strconv.Itoa(kept)}}
		if brain != "" {
			evQ.Set("brain", brain)
		}
		model.Recent = views.RecentEvents{Lines: lines, LeftOut: left, Kept: kept, AllURL: "/api/events?" + evQ.Encode()}
		var ids []string
		for _, c := range views.CardsShownOf(model.Cards) {
			ids = append(ids, c.Pairs...)
		}
		model.Opened = h.History.CollisionsOpened(ids)
	}
	model.Title = views.Title(model)
	return model
}

func query(v url.Values) string {
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// render writes a component whole or not at all: it renders into a buffer
// first, so a failure is a clean 500 rather than half a page.
func (h *Handler) render(ctx context.Context, w http.ResponseWriter, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		h.writeError(w, fmt.Errorf("render page: %w", err))
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
