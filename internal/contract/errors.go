package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/hall-dev/hall/internal/presence"
)

// Error is a refusal as the wire says it: the HTTP status, the snake_case
// code a client reads and a sentence naming what was wrong. The
// application (internal/hall) returns it, every transport writes it
// through Refusal (HTTP handlers, the stream, MCP tools, Echo's error
// handler), and the HTTP client (internal/hallclient) reads a refusal back
// into it, so a caller cannot tell where the Hall runs from the error it
// gets.
type Error struct {
	Status int
	Code   string // snake_case: invalid_beat, field_too_large, unknown_brain…
	Detail string
	// RetryAfter, when set, is when the call may be tried again: the
	// Retry-After header over HTTP (whole seconds), read back by the client.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("the Hall answered %d %s: %s", e.Status, e.Code, e.Detail)
}

// BadInput reports whether the request itself was wrong (a 4xx other than
// 404): a field over its limit, a relative path, a missing token. No retry
// mends it.
func (e *Error) BadInput() bool {
	return e.Status >= 400 && e.Status < 500 && e.Status != http.StatusNotFound
}

// Refuse builds a refusal with a formatted detail.
func Refuse(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Detail: fmt.Sprintf(format, args...)}
}

// IsBadInput reports whether err is a refusal of the request itself.
func IsBadInput(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.BadInput()
}

// IsNotFound reports whether err is the Hall knowing no such presence,
// brain or agent.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// StatusOf is the HTTP status a domain error code answers with: the one
// place where the two vocabularies meet.
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

// FromDomain is a domain error on the wire under code ("" keeps the
// domain's own code): the status its kind answers with, and its message.
// An error that is not the domain's comes back as it is, for Refusal to
// answer as internal and its writer to log.
func FromDomain(err error, code string) error {
	kind := presence.ErrorCode(err)
	if kind == presence.EINTERNAL || kind == "" {
		return err
	}
	if code == "" {
		code = kind
	}
	return &Error{Status: StatusOf(kind), Code: code, Detail: presence.ErrorMessage(err)}
}

// internalDetail is all a client reads of a failure the Hall did not
// foresee: the cause is in the Hall's log, once.
const internalDetail = "the Hall failed to answer; its log says why"

// Refusal is what the wire says of err: a refusal as it is, a domain error
// under its own code, and anything else a 500 "internal" whose cause stays
// out of the body. internal reports that last case, for the caller to log
// the cause.
func Refusal(err error) (e *Error, internal bool) {
	var r *Error
	if errors.As(err, &r) {
		return r, false
	}
	if kind := presence.ErrorCode(err); kind != presence.EINTERNAL {
		return &Error{Status: StatusOf(kind), Code: kind, Detail: presence.ErrorMessage(err)}, false
	}
	return &Error{Status: http.StatusInternalServerError, Code: presence.EINTERNAL, Detail: internalDetail}, true
}

// WriteError answers err as {"error","detail"} with its status: the one
// writer of errors over HTTP. A failure the Hall did not foresee is logged
// once with its cause (log may be nil) and answered with a generic detail.
func WriteError(w http.ResponseWriter, log *slog.Logger, err error) {
	e, internal := Refusal(err)
	if internal && log != nil {
		log.Error("request failed", "err", err)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(max(int(math.Ceil(e.RetryAfter.Seconds())), 1)))
	}
	WriteJSON(w, e.Status, ErrorResponse{Error: e.Code, Detail: e.Detail})
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

// BeatError is a beat the domain refused: 400 with field_too_large for a
// field over its limit, invalid_beat for any other rule broken; the detail
// names the field. (413 is kept for a body over its limit, which only the
// HTTP edge can see.) A store that cannot be reached is not a refusal: the
// beat fails open, so no other kind reaches here but a bug.
func BeatError(err error) error {
	switch presence.ErrorCode(err) {
	case presence.ETOOLARGE:
		return &Error{Status: http.StatusBadRequest, Code: "field_too_large", Detail: presence.ErrorMessage(err)}
	case presence.EINVALID:
		return &Error{Status: http.StatusBadRequest, Code: "invalid_beat", Detail: presence.ErrorMessage(err)}
	}
	return FromDomain(err, "")
}

// LeaveError is a refused leave: 400 invalid_presence_id for a malformed
// id, 404 unknown_presence when no such presence is live, 503 unavailable
// when the store cannot delete (out of reach included).
func LeaveError(err error) error {
	switch presence.ErrorCode(err) {
	case presence.EINVALID:
		return FromDomain(err, "invalid_presence_id")
	case presence.ENOTFOUND:
		return FromDomain(err, "unknown_presence")
	case presence.EUNREACHABLE:
		return FromDomain(err, presence.EUNAVAILABLE)
	}
	return FromDomain(err, "")
}

// UnknownBrain is the refusal of a brain the Hall does not know (it was
// never configured and no record names it): 404 unknown_brain, which a
// client treats as an empty roster. Pass the brain as the caller gave it,
// never its canonical form: that is where this host's symlinks lead, which
// the caller did not ask about.
func UnknownBrain(brain string) *Error {
	return Refuse(http.StatusNotFound, "unknown_brain", "the Hall knows no brain %q", brain)
}
