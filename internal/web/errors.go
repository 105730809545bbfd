package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/web/httpwire"
)

// HandlerFunc is a handler that returns its failure instead of writing
// it: serve writes every one the same way (httpwire.WriteError), so a
// status, a code and what a client reads of an internal failure are
// decided in one place.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// serve adapts f to net/http: its error, if any, is answered
// {"error","detail"} with the refusal's status, an unforeseen one logged
// once with its cause and answered as internal.
func (h *Handler) serve(f HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := f(w, r); err != nil {
			httpwire.WriteError(w, h.Log, err)
		}
	}
}

// writeError answers err through the one writer, for the edge's rules
// (which refuse before any handler runs).
func (h *Handler) writeError(w http.ResponseWriter, err error) {
	httpwire.WriteError(w, h.Log, err)
}
