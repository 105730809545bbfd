package web

import (
	"bytes"
	"net/http"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/static"
)

// assets is the page's asset map: the embedded one unless the Handler was
// given another.
func (h *Handler) assets() *static.Assets {
	if h.Assets != nil {
		return h.Assets
	}
	return static.Embedded()
}

// HandleStatic serves GET /static/{name}: an embedded asset by its
// content-hashed name, cached for a year and marked immutable (a new build
// has new names). Any other name is 404: a plain name like hall.css is not
// served, so nothing can be cached under a name whose content may change.
func (h *Handler) HandleStatic(w http.ResponseWriter, r *http.Request) error {
	a, ok := h.assets().Lookup(r.PathValue("name"))
	if !ok {
		return contract.Refuse(contract.KindNotFound, "not_found", "no asset %q", r.PathValue("name"))
	}
	w.Header().Set("Content-Type", a.ContentType)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Header().Set("ETag", `"`+a.Hash+`"`)
	http.ServeContent(w, r, a.Hashed, time.Time{}, bytes.NewReader(a.Body))
	return nil
}
