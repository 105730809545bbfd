package web

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
)

// RequireToken guards the write surfaces (beat, leave): when token is set,
// a request must carry "Authorization: Bearer <token>". Reads stay open:
// the Hall is a witness, and its reads reveal only what agents reported.
func RequireToken(token string, next http.HandlerFunc) http.HandlerFunc {
	if token == "" {
		return next
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if !BearerMatches(token, r.Header.Get("Authorization")) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hall"`)
			writeJSON(w, http.StatusUnauthorized, errorBody("unauthorized", ErrTokenRequired))
			return
		}
		next(w, r)
	}
}

// ErrTokenRequired is the refusal of a write without the Hall's token.
var ErrTokenRequired = errors.New("this Hall requires Authorization: Bearer <token> for writes")

// BearerMatches reports whether an Authorization header carries the token
// as "Bearer <token>", compared in constant time. The MCP endpoint's
// writing tools check it per call (internal/mcp), since its reads stay open.
func BearerMatches(token, authorization string) bool {
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(authorization)), []byte("Bearer "+token)) == 1
}
