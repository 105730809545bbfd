package web

import (
	"encoding/json"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// statusOf maps a domain error code to its HTTP status: the one place where
// the two vocabularies meet.
func statusOf(code string) int {
	switch code {
	case presence.EINVALID:
		return http.StatusBadRequest
	case presence.ENOTFOUND:
		return http.StatusNotFound
	case presence.ETOOLARGE:
		return http.StatusRequestEntityTooLarge
	case presence.EUNAVAILABLE, presence.EBUSY:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// writeError answers {"error": code, "detail": sentence} with the status
// the domain code maps to. code overrides the domain's when not empty.
func writeError(w http.ResponseWriter, err error, code string) {
	status := statusOf(presence.ErrorCode(err))
	if code == "" {
		code = presence.ErrorCode(err)
	}
	writeJSON(w, status, contract.ErrorResponse{Error: code, Detail: presence.ErrorMessage(err)})
}

// writeJSON answers v as JSON with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}

func errorBody(code string, err error) contract.ErrorResponse {
	return contract.ErrorResponse{Error: code, Detail: err.Error()}
}
