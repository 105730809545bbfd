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
	want := []byte("Bearer " + token)
	return func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hall"`)
			writeJSON(w, http.StatusUnauthorized, errorBody("unauthorized", errors.New("this Hall requires Authorization: Bearer <token> for writes")))
			return
		}
		next(w, r)
	}
}
