package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// MaxBeatBody bounds a beat's body; the field limits keep a valid beat far
// below it.
const MaxBeatBody = 64 << 10

// HandleBeat serves POST /api/presences/beat: decode, hall.Beat, encode
// {presence_id, stored, throttled, north}. Bad input is a 400 or 413 that
// writes nothing; a store that cannot be written is still a 200, with
// stored false and the reason (fail-open).
func (h *Handler) HandleBeat(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeBeat(w, r)
	if err != nil {
		return err
	}
	resp, err := h.App.Beat(r.Context(), req)
	if err != nil {
		return err
	}
	httpwire.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// decodeBeat reads exactly one JSON object of known fields: 413
// body_too_large past MaxBeatBody, 400 malformed_json otherwise.
func decodeBeat(w http.ResponseWriter, r *http.Request) (contract.BeatRequest, error) {
	var req contract.BeatRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBeatBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	if err == nil {
		if _, err = dec.Token(); errors.Is(err, io.EOF) {
			return req, nil
		} else if err == nil {
			err = errors.New("the body holds more than one JSON value")
		}
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return req, contract.Refuse(contract.KindTooLarge, "body_too_large", "the body is over %d bytes", MaxBeatBody)
	}
	return req, contract.Refuse(contract.KindInvalid, "malformed_json", "%v", fmt.Errorf("decode beat: %w", err))
}
