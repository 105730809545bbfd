package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// maxCheckBody bounds a check's body, as a beat's.
const maxCheckBody = MaxBeatBody

// HandleCheck serves POST /api/presences/check: decode, hall.Check,
// encode. It writes nothing and changes no roster; bad input is a 400 or
// 413 as a beat's; a client past its rate limit a 429 with Retry-After.
func (h *Handler) HandleCheck(w http.ResponseWriter, r *http.Request) error {
	ctx := hall.WithClient(r.Context(), clientKey(r))
	var req contract.CheckRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxCheckBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	if err == nil {
		if _, err = dec.Token(); errors.Is(err, io.EOF) {
			err = nil
		} else if err == nil {
			err = errors.New("the body holds more than one JSON value")
		}
	}
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return contract.Refuse(contract.KindTooLarge, "body_too_large", "the body is over %d bytes", maxCheckBody)
		}
		return contract.Refuse(contract.KindInvalid, "malformed_json", "%v", fmt.Errorf("decode check: %w", err))
	}
	resp, err := h.App.Check(ctx, req)
	if err != nil {
		return err
	}
	httpwire.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// clientKey names the client of a request for the per-client rate limits:
// its remote address. Not its bearer token: the Hall's tokens are one per
// Hall, shared by every client, and where reads need none the header is
// the caller's to vary at will. Clients behind one proxy, or on the
// Hall's own machine, share a key: the limits are generous for it.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip " + host
}
