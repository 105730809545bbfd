package contract

import (
	"fmt"
	"net/http"

	"github.com/hall-dev/hall/internal/presence"
)

// StatusOf is the HTTP status a domain error code answers with: the one
// place where the two vocabularies meet (the handlers and the in-process
// client of internal/hallclient both use it).
func StatusOf(code string) int {
	switch code {
	case presence.EINVALID:
		return http.StatusBadRequest
	case presence.ENOTFOUND:
		return http.StatusNotFound
	case presence.ETOOLARGE:
		return http.StatusRequestEntityTooLarge
	case presence.EUNAVAILABLE, presence.EUNREACHABLE, presence.EBUSY:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// BeatError is what a beat the domain refused answers: 400 with
// field_too_large for a field over its limit, invalid_beat for any other
// rule broken; the detail names the field. (413 is kept for a body over
// its limit, which only the HTTP edge can see.)
func BeatError(err error) (int, ErrorResponse) {
	code := "invalid_beat"
	if presence.ErrorCode(err) == presence.ETOOLARGE {
		code = "field_too_large"
	}
	return http.StatusBadRequest, ErrorResponse{Error: code, Detail: presence.ErrorMessage(err)}
}

// LeaveError is what a refused leave answers: 400 invalid_presence_id for
// a malformed id, 404 unknown_presence when no such presence is live, 503
// unavailable when the store cannot delete (out of reach included).
func LeaveError(err error) (int, ErrorResponse) {
	code := presence.ErrorCode(err)
	switch code {
	case presence.EINVALID:
		code = "invalid_presence_id"
	case presence.ENOTFOUND:
		code = "unknown_presence"
	case presence.EUNREACHABLE:
		code = presence.EUNAVAILABLE
	}
	return StatusOf(presence.ErrorCode(err)), ErrorResponse{Error: code, Detail: presence.ErrorMessage(err)}
}

// UnknownBrain is the refusal of a brain the Hall does not know (it was
// never configured and no record names it): 404 unknown_brain, which a
// client treats as an empty roster. Pass the brain as the caller gave it,
// never its canonical form: that is where this host's symlinks lead, which
// the caller did not ask about.
func UnknownBrain(brain string) (int, ErrorResponse) {
	return http.StatusNotFound, ErrorResponse{Error: "unknown_brain", Detail: fmt.Sprintf("the Hall knows no brain %q", brain)}
}
