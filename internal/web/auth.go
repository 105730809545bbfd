package web

import (
	"errors"
	"net/http"
	"strings"
)

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
