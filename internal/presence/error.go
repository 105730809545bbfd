package presence

import (
	"errors"
	"fmt"
)

// Error codes: the domain's vocabulary of failure. The HTTP edge maps each to
// one status in one place; nothing here knows a status code.
const (
	EINVALID     = "invalid"     // the input breaks a rule
	ENOTFOUND    = "not_found"   // no such presence or brain
	ETOOLARGE    = "too_large"   // a field or body is over its limit
	EUNAVAILABLE = "unavailable" // the store cannot be read or written
	EBUSY        = "busy"        // the store cannot be read for a moment (out of file descriptors): try again
	EUNREACHABLE = "unreachable" // the store is a server on the network, and it cannot be reached
	EINTERNAL    = "internal"    // a bug
)

// Error is a domain error with a machine-readable code and a human message.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("presence %s: %s", e.Code, e.Message) }

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other error and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns the message of the first *Error in err's chain, or
// err's own text.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	default:
		return err.Error()
	}
}
