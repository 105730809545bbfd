// Package httpwire is the Hall's refusals over HTTP: the one table
// between a refusal's kind (contract.Kind) and an HTTP status, and the one
// writer of an error body. The vocabulary (kinds, codes, Refusal) stays in
// internal/contract, which knows no transport; the web handlers, the
// stream, MCP's HTTP edge and Echo's error handler write through here, and
// the HTTP client (internal/hallclient) reads a status back with KindOf.
package httpwire

import (
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"strconv"

	"github.com/hall-dev/hall/internal/contract"
)

// statuses is the HTTP status of each kind: the one table between the
// two vocabularies.
var statuses = [...]int{
	contract.KindInternal:         http.StatusInternalServerError,
	contract.KindInvalid:          http.StatusBadRequest,
	contract.KindUnauthorized:     http.StatusUnauthorized,
	contract.KindForbidden:        http.StatusForbidden,
	contract.KindNotFound:         http.StatusNotFound,
	contract.KindMethodNotAllowed: http.StatusMethodNotAllowed,
	contract.KindTooLarge:         http.StatusRequestEntityTooLarge,
	contract.KindUnsupportedMedia: http.StatusUnsupportedMediaType,
	contract.KindMisdirected:      http.StatusMisdirectedRequest,
	contract.KindRateLimited:      http.StatusTooManyRequests,
	contract.KindUnavailable:      http.StatusServiceUnavailable,
}

// StatusOf is the HTTP status a kind answers with.
func StatusOf(k contract.Kind) int {
	if int(k) < len(statuses) {
		return statuses[k]
	}
	return http.StatusInternalServerError
}

// KindOf is the kind an HTTP status says, for a client reading a refusal
// back (the table read backwards): a status the table does not hold is
// invalid when it is a 4xx, internal otherwise.
func KindOf(status int) contract.Kind {
	for k, s := range statuses {
		if s == status {
			return contract.Kind(k)
		}
	}
	if status >= 400 && status < 500 {
		return contract.KindInvalid
	}
	return contract.KindInternal
}

// WriteError answers err as {"error","detail"} with its status: the one
// writer of errors over HTTP. A failure the Hall did not foresee is logged
// once with its cause (log may be nil) and answered with a generic detail.
func WriteError(w http.ResponseWriter, log *slog.Logger, err error) {
	e, internal := contract.Refusal(err)
	if internal && log != nil {
		log.Error("request failed", "err", err)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(max(int(math.Ceil(e.RetryAfter.Seconds())), 1)))
	}
	WriteJSON(w, StatusOf(e.Kind), contract.ErrorResponse{Error: e.Code, Detail: e.Detail})
}

// WriteJSON answers v as JSON with the status, uncached, HTML-escaped.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}
