package web

import (
	"encoding/json"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// writeError answers {"error": code, "detail": sentence} with the status
// the domain code maps to. code overrides the domain's when not empty.
func writeError(w http.ResponseWriter, err error, code string) {
	status := contract.StatusOf(presence.ErrorCode(err))
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
