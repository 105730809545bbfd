package web

import (
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
	if err := decodeBody(w, r, maxCheckBody, "check", &req); err != nil {
		return err
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
