package web

import (
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
	var req contract.BeatRequest
	if err := decodeBody(w, r, MaxBeatBody, "beat", &req); err != nil {
		return err
	}
	resp, err := h.App.Beat(r.Context(), req)
	if err != nil {
		return err
	}
	httpwire.WriteJSON(w, http.StatusOK, resp)
	return nil
}
