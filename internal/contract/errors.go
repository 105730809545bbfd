package contract

import (
	"errors"
	"fmt"
	"time"

	"github.com/hall-dev/hall/internal/presence"
)

// Kind is what sort of failure an error is, whatever carries it. The
// application (internal/hall) says which; each transport says it its own
// way: HTTP by the one table in internal/web/httpwire (StatusOf), MCP by
// a tool error that names the code, or a resource not found.
type Kind uint8

const (
	KindInternal         Kind = iota // the Hall failed; its log says why
	KindInvalid                      // the request broke a rule
	KindUnauthorized                 // the token is missing or wrong
	KindForbidden                    // refused whoever asks (a cross-origin write)
	KindNotFound                     // no such presence, brain, agent, path or name
	KindMethodNotAllowed             // a known path asked with another method
	KindTooLarge                     // a body over its limit
	KindUnsupportedMedia             // a body that is not JSON
	KindMisdirected                  // a Host this Hall does not serve
	KindRateLimited                  // too many calls: RetryAfter says when to try again
	KindUnavailable                  // the store, the stream or the Hall cannot serve now
)

// Error is a refusal as the wire says it: its kind, the snake_case code a
// client reads and a sentence naming what was wrong. The application
// (internal/hall) returns it, every transport writes it through Refusal
// (HTTP handlers, the stream and Echo's error handler through
// httpwire.WriteError, MCP tools through their tool error), and the
// HTTP client (internal/hallclient) reads a refusal back into it, so a
// caller cannot tell where the Hall runs from the error it gets.
type Error struct {
	Kind   Kind
	Code   string // snake_case: invalid_beat, field_too_large, unknown_brain…
	Detail string
	// RetryAfter, when set, is when the call may be tried again: the
	// Retry-After header over HTTP (whole seconds), read back by the client.
	RetryAfter time.Duration
	// Status is the HTTP status a refusal was read back from (the HTTP
	// client sets it; 0 for one the Hall returned in this process): its
	// text names it, as the Hall answered it.
	Status int
	// Err is the cause a transport found (a refused connection, a
	// deadline), for errors.Is and errors.As; it is never sent.
	Err error
}

// Unwrap is the cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Error is the refusal as a person reads it: with the status it was
// answered with, when read back over HTTP; the transport's sentence alone
// when a transport found it (the Hall unreachable); else its code and
// detail.
func (e *Error) Error() string {
	switch {
	case e.Status != 0:
		return fmt.Sprintf("the Hall answered %d %s: %s", e.Status, e.Code, e.Detail)
	case e.Err != nil:
		return e.Detail
	}
	return e.Code + ": " + e.Detail
}

// BadInput reports whether the request itself was wrong (a 4xx other than
// 404): a field over its limit, a relative path, a missing token. No retry
// mends it.
func (e *Error) BadInput() bool {
	switch e.Kind {
	case KindInternal, KindNotFound, KindUnavailable:
		return false
	}
	return true
}

// Refuse builds a refusal with a formatted detail.
func Refuse(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Detail: fmt.Sprintf(format, args...)}
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
	return errors.As(err, &e) && e.Kind == KindNotFound
}

// kindOf is the kind of a domain error code.
func kindOf(code string) Kind {
	switch code {
	case presence.EINVALID:
		return KindInvalid
	case presence.ENOTFOUND:
		return KindNotFound
	case presence.ETOOLARGE:
		return KindTooLarge
	case presence.EUNAVAILABLE, presence.EUNREACHABLE, presence.EBUSY:
		return KindUnavailable
	default:
		return KindInternal
	}
}

// FromDomain is a domain error on the wire under code ("" keeps the
// domain's own code): the kind its code is, and its message. An error
// that is not the domain's comes back as it is, for Refusal to answer as
// internal and its writer to log.
func FromDomain(err error, code string) error {
	kind := presence.ErrorCode(err)
	if kind == presence.EINTERNAL || kind == "" {
		return err
	}
	if code == "" {
		code = kind
	}
	return &Error{Kind: kindOf(kind), Code: code, Detail: presence.ErrorMessage(err)}
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
		return &Error{Kind: kindOf(kind), Code: kind, Detail: presence.ErrorMessage(err)}, false
	}
	return &Error{Kind: KindInternal, Code: presence.EINTERNAL, Detail: internalDetail}, true
}

// BeatError is a beat the domain refused: 400 with field_too_large for a
// field over its limit, invalid_beat for any other rule broken; the detail
// names the field. (413 is kept for a body over its limit, which only the
// HTTP edge can see.) A store that cannot be reached is not a refusal: the
// beat fails open, so no other kind reaches here but a bug.
func BeatError(err error) error {
	switch presence.ErrorCode(err) {
	case presence.ETOOLARGE:
		return &Error{Kind: KindInvalid, Code: "field_too_large", Detail: presence.ErrorMessage(err)}
	case presence.EINVALID:
		return &Error{Kind: KindInvalid, Code: "invalid_beat", Detail: presence.ErrorMessage(err)}
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
	return Refuse(KindNotFound, "unknown_brain", "the Hall knows no brain %q", brain)
}
