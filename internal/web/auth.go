package web

import "net/http"

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
			unauthorized(w, "this Hall requires Authorization: Bearer <token> for writes")
			return
		}
		next(w, r)
	}
}
