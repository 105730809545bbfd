package web

import (
	"errors"
	"net/http"
	"strings"
)

// RequireToken guards one handler with the write token: when token is set,
// a request must carry "Authorization: Bearer <token>", or it is a 401.
// The route table applies this rule to every Write route by itself
// (edge.go); RequireToken is for a handler that guards only part of what
// it serves, and for servers beside the table.
func RequireToken(token string, next http.HandlerFunc) http.HandlerFunc {
	if token == "" {
		return next
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if !bearerIs(r, token) {
			unauthorized(w, ErrTokenRequired.Error())
			return
		}
		next(w, r)
	}
}

// ErrTokenRequired is the refusal of a write without the Hall's token.
var ErrTokenRequired = errors.New("this Hall requires Authorization: Bearer <token> for writes")

// BearerMatches reports whether an Authorization header carries the token
// as "Bearer <token>": the scheme in any case (RFC 9110 §11.1: "bearer" is
// the same scheme), the token compared in constant time. The MCP
// endpoint's writing tools check it per call (internal/mcp), since its
// reads stay open.
func BearerMatches(token, authorization string) bool {
	scheme, cred, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return equalSecret(strings.TrimLeft(cred, " "), token)
}

// bearerIs reports whether the request carries "Authorization: Bearer
// <token>", in constant time.
func bearerIs(r *http.Request, token string) bool {
	return BearerMatches(token, r.Header.Get("Authorization"))
}
