package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
)

// MaxBeatBody bounds a beat's body; the field limits keep a valid beat far
// below it.
const MaxBeatBody = 64 << 10

// HandleBeat serves POST /api/presences/beat: validate, upsert through the
// throttled beat path, answer {presence_id, stored, north}. Bad input is a
// 400 or 413 that writes nothing; a store that cannot be written is still a
// 200, with stored false and the reason (fail-open).
func (h *Handler) HandleBeat(w http.ResponseWriter, r *http.Request) {
	req, err := decodeBeat(w, r)
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			writeJSON(w, http.StatusRequestEntityTooLarge, errorBody("body_too_large", fmt.Errorf("the body is over %d bytes", MaxBeatBody)))
		default:
			writeJSON(w, http.StatusBadRequest, errorBody("malformed_json", err))
		}
		return
	}
	res, err := h.Service.Beat(r.Context(), req.Beat())
	if err != nil {
		// A field over its limit is a 400 like any other rule broken; 413
		// is kept for a body over MaxBeatBody.
		status, body := contract.BeatError(err)
		writeJSON(w, status, body)
		return
	}
	writeJSON(w, http.StatusOK, contract.FromBeatResult(res))
}

// decodeBeat reads exactly one JSON object of known fields.
func decodeBeat(w http.ResponseWriter, r *http.Request) (contract.BeatRequest, error) {
	var req contract.BeatRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBeatBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("decode beat: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return req, err
		}
		return req, errors.New("decode beat: the body holds more than one JSON value")
	}
	return req, nil
}
