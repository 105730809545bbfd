package web

import (
	"net/http"
	"strings"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/views"
)

// HandleNotFound answers a path no route serves: under /api/, or for a
// client that does not ask for HTML, {"error":"not_found","detail"} with a
// 404; for a browser, the 404 page inside the layout, its brain picker
// leading back to the Hall. A store that cannot be read leaves the picker
// empty; the page still answers.
func (h *Handler) HandleNotFound(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/") || !acceptsHTML(r) {
		h.writeError(w, contract.Refuse(contract.KindNotFound, "not_found", "the Hall serves nothing at %s %s", r.Method, r.URL.Path))
		return
	}
	ctx := r.Context()
	snap, _ := h.App.Snapshot(ctx)
	a := h.assets()
	h.render(ctx, w, http.StatusNotFound, views.NotFoundPage(views.NotFound{
		Page:    views.Page{Title: "Not found — Hall", CSS: a.Path("hall.css")},
		Brains:  brainCounts(snap),
		Heading: "Nothing here",
		Detail:  "The Hall has no page at " + r.URL.Path + ".",
	}))
}

// acceptsHTML reports whether the request asks for an HTML page, as a
// browser navigating does (Accept: text/html,…).
func acceptsHTML(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(mt), "text/html") {
			return true
		}
	}
	return false
}
